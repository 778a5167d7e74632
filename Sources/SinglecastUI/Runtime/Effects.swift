import Foundation
import SinglecastKit
import Synchronization

/// Carries out the update's commands against the library, the player, the downloads and the
/// network, and reports what happened as messages. Commands run in the order given; those
/// that wait on the network or a process run beside the others, so the UI keeps answering.
actor Effects {
    private let configuration: TerminalUI.Configuration
    private let send: @Sendable (Message) -> Void
    private let clock: UIClock
    private nonisolated var library: Library { configuration.library }

    private var listening: EpisodeListening?
    /// Forwards the listening's events; done once its end has been sent.
    private var listeningEvents: Task<Void, Never>?
    /// Whether the listening's events still reach the UI (its end does not, when another
    /// episode takes its place or the UI ends).
    private var listeningIsShown: Switch?
    private var ticker: Task<Void, Never>?
    private var session: HTTPSession?
    private var engine: DownloadEngine?
    /// The downloads this process runs or queues, by id, with what was asked for.
    private var localDownloads: [Int64: DownloadRequest] = [:]
    private var buffer: ProgressBuffer?
    private var hasSentTitles = false
    /// A read of the podcasts runs; another was asked for meanwhile.
    private var isLoadingPodcasts = false
    private var podcastsAreStale = false

    init(configuration: TerminalUI.Configuration, clock: UIClock, send: @escaping @Sendable (Message) -> Void) {
        self.configuration = configuration
        self.clock = clock
        self.send = send
    }

    func perform(_ command: Command) async {
        switch command {
        case .loadPodcasts:
            spawn { await $0.loadPodcasts() }
        case .loadEpisodes(let podcastID, let filter, let start, let limit):
            spawn(failing: .read) { effects in
                let page = try await effects.library.episodeWindow(
                    podcastID: podcastID, titleContaining: filter, start: start, limit: limit)
                effects.send(.episodesLoaded(EpisodeWindow(podcastID: podcastID, filter: filter, start: start, total: page.total, entries: page.entries)))
            }
        case .loadDetails(let entry):
            spawn(failing: .read) { effects in
                let loaded = try await SinglecastKit.EpisodeDetails.load(entry, library: effects.library)
                effects.send(.detailsLoaded(EpisodeDetails(episodeID: entry.id, loaded)))
            }
        case .loadNewEpisodes:
            spawn(failing: .read) { effects in effects.send(.newEpisodesLoaded(try await effects.library.newEpisodes())) }
        case .loadDownloads:
            spawn(failing: .read) { effects in effects.send(.downloadsLoaded(try await effects.library.downloads())) }
        case .loadQueue:
            spawn(failing: .read) { try await $0.sendQueue() }
        case .enqueue(let entry):
            spawn(failing: .queue) { effects in
                let addition = try await effects.library.enqueue(episodeIDs: [entry.id])[0]
                effects.send(.queued(title: entry.episode.title, addition))
                try await effects.sendQueue()
            }
        case .dequeue(let episodeID):
            spawn(failing: .queue) { effects in
                try await effects.library.dequeue(episodeIDs: [episodeID])
                try await effects.sendQueue()
            }
        case .moveInQueue(let episodeID, let number):
            spawn(failing: .queue) { effects in
                try await effects.library.moveInQueue(episodeID: episodeID, to: number)
                try await effects.sendQueue()
            }
        case .clearQueue:
            spawn(failing: .queue) { effects in
                effects.send(.queueCleared(count: try await effects.library.clearQueue()))
                try await effects.sendQueue()
            }
        case .nextInQueue(let episodeID):
            spawn(failing: .queue) { effects in
                effects.send(.nextInQueue(try await effects.library.nextInQueue(after: episodeID), autoplay: false))
            }
        case .advanceQueue(let episodeID, let end, let playsNext):
            spawn(failing: .queue) { effects in
                let next = try await effects.library.advanceQueue(after: episodeID, end)
                if playsNext, let next { effects.send(.nextInQueue(next, autoplay: true)) }
                try await effects.sendQueue()
            }
        case .play(let entry, let podcast):
            await play(entry, of: podcast)
        case .setPaused(let paused):
            await control { try await $0.setPaused(paused) }
        case .seek(let seconds):
            await control { try await $0.seek(to: seconds) }
        case .setSpeed(let speed):
            await control { try await $0.setSpeed(speed) }
        case .setTicking(let on):
            setTicking(on)
        case .download(let entry, let podcastTitle):
            spawn(failing: .download(title: entry.episode.title)) { try await $0.download(entry, podcastTitle: podcastTitle) }
        case .deleteFile(let entry):
            spawn(failing: .delete(title: entry.episode.title)) { effects in
                let deleted = try await effects.progressBuffer().deleteFiles(of: [entry])
                effects.send(.fileDeleted(title: entry.episode.title, deleted: !deleted.isEmpty))
            }
        case .setPlayed(let entry, let played):
            spawn(failing: .mark(title: entry.episode.title)) { effects in
                let change: PlaybackChange = played ? .played(total: entry.episode.duration.map(Double.init)) : .unplayed
                _ = try await effects.library.recordPlayback(episodeID: entry.id, change)
            }
        case .refresh(let podcastIDs):
            spawn(failing: .refresh) { try await $0.refresh(podcastIDs) }
        case .subscribe(let feedURL):
            spawn(failing: .subscribe(url: feedURL)) { effects in
                let resolver = FeedResolver(library: effects.library, session: await effects.httpSession())
                let saved = try await resolver.load(FeedReference(feedURL))
                try await effects.library.subscribe(podcastID: saved.podcast.id)
                effects.send(.subscribed(saved.podcast))
            }
        case .unsubscribe(let podcastID, let title):
            spawn(failing: .unsubscribe(title: title)) { effects in
                try await effects.library.unsubscribe(podcastID: podcastID)
                effects.send(.unsubscribed(title: title))
            }
        case .search(let term):
            spawn(failing: .search(term: term)) { effects in
                let search = PodcastSearch(session: await effects.httpSession(), baseURL: effects.configuration.searchBaseURL)
                effects.send(.searchFinished(term: term, try await search.search(term: term)))
            }
        case .quit(_, let downloads):
            await shutDown(downloads: downloads)
        }
    }

    /// Runs `work` beside the commands that follow; a failure is reported as `action`'s.
    private nonisolated func spawn(failing action: UIAction = .read, _ work: @escaping @Sendable (Effects) async throws -> Void) {
        let send = send
        Task {
            do { try await work(self) } catch { send(.failed(action, error)) }
        }
    }

    // MARK: - Reading

    /// The titles first (once: they are quick to read), then the counts; reads asked for
    /// while one runs are done once after it.
    private func loadPodcasts() async {
        guard !isLoadingPodcasts else {
            podcastsAreStale = true
            return
        }
        isLoadingPodcasts = true
        defer { isLoadingPodcasts = false }
        do {
            if !hasSentTitles {
                hasSentTitles = true
                send(.podcastsLoaded(try await library.subscribedPodcasts()))
            }
            repeat {
                podcastsAreStale = false
                send(.podcastCountsLoaded(try await library.subscriptions()))
            } while podcastsAreStale
        } catch {
            send(.failed(.read, error))
        }
    }

    /// Reads the queue and sends it.
    private nonisolated func sendQueue() async throws {
        send(.queueLoaded(try await library.queue()))
    }

    // MARK: - Playing

    private func play(_ entry: EpisodeEntry, of podcast: StoredPodcast) async {
        await stopListening()
        do {
            let settings = configuration.settings
            let executable = try PlayerExecutable.locate(configured: settings[.player].value?.text, environment: configuration.environment)
            let player = MpvPlayer(
                executable: executable, libraryDirectory: configuration.libraryDirectory, terminalOutput: .discard,
                environment: configuration.environment, extraOptions: settings.playerOptions, mpris: settings.playerMPRIS)
            let started = try await EpisodeListening.start(
                entry, of: podcast, library: library, player: player,
                options: .init(defaultSpeed: settings.speed, offersNext: true))
            listening = started
            let send = send
            let clock = clock
            let isShown = Switch()
            listeningIsShown = isShown
            listeningEvents = Task {
                for await event in started.events where isShown.isOn {
                    send(.listening(episodeID: entry.id, event, now: clock.now))
                }
            }
        } catch {
            send(.failed(.play(title: entry.episode.title), error))
        }
    }

    /// Stops the episode playing, saving its position (the events are read to their end, so
    /// that the last position is recorded), without showing its end.
    private func stopListening() async {
        guard let current = listening else { return }
        listening = nil
        listeningIsShown?.turnOff()
        await current.stop()
        await listeningEvents?.value
        listeningEvents = nil
    }

    private func control(_ action: @Sendable (EpisodeListening) async throws -> Void) async {
        guard let listening else { return }
        do { try await action(listening) } catch { send(.failed(.control, error)) }
    }

    private func setTicking(_ on: Bool) {
        ticker?.cancel()
        ticker = nil
        guard on else { return }
        let send = send
        let clock = clock
        ticker = Task {
            while !Task.isCancelled {
                send(.tick(now: clock.now))
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    // MARK: - Downloads and subscriptions

    /// Hands the episode to the daemon when one runs, else downloads it in this process.
    private func download(_ entry: EpisodeEntry, podcastTitle: String) async throws {
        guard let enclosure = entry.episode.enclosure else { return }
        let request = DownloadRequest(podcastTitle: podcastTitle, episode: entry.episode, enclosure: enclosure)
        let daemon = DaemonClient(libraryDirectory: configuration.libraryDirectory, environment: configuration.environment)
        if await daemon.isRunning() {
            _ = try await daemon.send(ControlRequest(command: .enqueue, downloads: [request]))
            send(.downloadQueued(title: entry.episode.title, toDaemon: true))
            return
        }
        for claim in try await downloadEngine().enqueue([request]) {
            if case .claimed(let download) = claim { localDownloads[download.id] = request }
        }
        send(.localDownloads(localDownloads.count))
        send(.downloadQueued(title: entry.episode.title, toDaemon: false))
    }

    private func downloadEnded(_ id: Int64) {
        guard localDownloads.removeValue(forKey: id) != nil else { return }
        send(.localDownloads(localDownloads.count))
    }

    private func progressBuffer() async throws -> ProgressBuffer {
        if let buffer { return buffer }
        let made = ProgressBuffer(library: library, episodes: configuration.settings.episodesFolder(libraryDirectory: configuration.libraryDirectory))
        try await made.rebuild()
        buffer = made
        return made
    }

    private func downloadEngine() async throws -> DownloadEngine {
        if let engine { return engine }
        let made = DownloadEngine(
            buffer: try await progressBuffer(), transfer: FileTransfer(session: httpSession()), giveUp: .interrupt,
            events: { [weak self] event in
                switch event {
                case .completed(let download), .failed(let download), .stopped(let download):
                    Task { await self?.downloadEnded(download.id) }
                default: break
                }
            })
        engine = made
        return made
    }

    private func httpSession() -> HTTPSession {
        if let session { return session }
        let made = HTTPSession()
        session = made
        return made
    }

    private func refresh(_ podcastIDs: [Int64]?) async throws {
        let all = try await library.subscriptions()
        let chosen = podcastIDs.map { ids in all.filter { ids.contains($0.podcast.id) } } ?? all
        guard !chosen.isEmpty else { return }
        send(.refreshStarted(chosen.map(\.podcast.id)))
        let send = send
        _ = await FeedUpdater(library: library, session: httpSession()).update(chosen) { send(.podcastRefreshed($0)) }
    }

    // MARK: - The end

    /// Stops everything: the episode playing (its position saved, mpv gone), this process's
    /// downloads (paused, their partial files kept, and handed to the daemon when asked), the
    /// timers and the network.
    private func shutDown(downloads: DownloadsAtQuit) async {
        setTicking(false)
        await stopListening()
        let running = localDownloads
        if let engine {
            for id in running.keys { _ = try? await engine.stop(id: id, on: .pause) }
            await engine.stopAll()
        }
        if downloads == .handToDaemon && !running.isEmpty {
            let daemon = DaemonClient(libraryDirectory: configuration.libraryDirectory, environment: configuration.environment)
            _ = try? await daemon.sendStartingDaemon(
                ControlRequest(command: .enqueue, downloads: Array(running.values)), executable: configuration.executablePath)
        }
        try? await session?.shutdown()
        session = nil
    }
}

/// A flag that starts on and is turned off once, from any task.
private final class Switch: Sendable {
    private let state = Mutex(true)

    var isOn: Bool { state.withLock { $0 } }

    func turnOff() {
        state.withLock { $0 = false }
    }
}
