import Foundation

/// What happens while an episode is listened to, as a front end shows it.
public enum ListeningEvent: Sendable, Equatable {
    /// Sound began at `position`; `duration` when known.
    case started(position: Double, duration: Double?, speed: Double)
    /// Where the listener is: at least every ``ListeningRules/saveInterval`` while playing,
    /// and after a seek or a pause. Each one has been saved.
    case position(Double)
    case paused(Double)
    case resumed(Double)
    case speedChanged(Double)
    /// A chapter began.
    case chapter(title: String?, start: Double)
    /// The last event: how listening ended and what was saved.
    case ended(ListeningEnd)
}

/// How listening to an episode ended.
public struct ListeningEnd: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The audio played to its end.
        case end
        /// The listener quit the player.
        case quit
        /// The listener asked the player for the next episode (see ``EpisodeListening/Options/offersNext``).
        case next
        /// ``EpisodeListening/stop()`` was called (by a signal, a key of the terminal UI, …).
        case stopped
        /// The player's process went away.
        case playerDied
        /// The audio could not be played: nothing was saved.
        case failed(PlayerFailure)
    }

    /// Where listening stopped; nil when nothing was heard.
    public var position: Double?
    /// The episode's length, when known.
    public var duration: Double?
    /// Whether the episode is now marked played.
    public var played: Bool
    public var reason: Reason
}

/// An episode being listened to: plays it with a ``Player``, saves where the listener is as
/// ``ListeningRules`` say (periodically, and at once on a pause, a seek, a speed change and at
/// the end), marks it played when it was heard to its end, and reports what happens as
/// ``ListeningEvent`` values. The library's record of the episode is all it changes; what a
/// front end shows of it is the front end's.
public final class EpisodeListening: Sendable {
    /// Where the episode is played from.
    public enum Source: Sendable, Equatable {
        /// The downloaded file, by path.
        case file(String)
        /// The enclosure URL: the episode is not downloaded, or its file is gone.
        case stream(URL)
    }

    /// What was asked of the listening.
    public struct Options: Sendable {
        /// Start here instead of where the rules say (a time the listener chose, or 0 for the beginning).
        public var start: Double?
        /// Play at this speed, and remember it for the podcast; nil: the podcast's speed.
        public var speed: Double?
        /// Whether the listener is at a terminal (the player's own keys work).
        public var interactive: Bool
        /// The speed of a podcast that has none of its own (the `speed` setting).
        public var defaultSpeed: Double
        /// Whether the player's "next" (a media key, the desktop's controls) ends listening with
        /// ``ListeningEnd/Reason/next``, for a front end that plays the queue's next episode then.
        public var offersNext: Bool

        public init(
            start: Double? = nil, speed: Double? = nil, interactive: Bool = false, defaultSpeed: Double = 1, offersNext: Bool = false
        ) {
            self.offersNext = offersNext
            self.start = start
            self.speed = speed
            self.interactive = interactive
            self.defaultSpeed = defaultSpeed
        }
    }

    public let podcast: StoredPodcast
    public let entry: EpisodeEntry
    public let source: Source
    /// The events, ending with ``ListeningEvent/ended(_:)``. Iterate it once.
    public let events: AsyncStream<ListeningEvent>

    private let session: any PlaybackSession
    /// Marks a stop as asked for, so that the end that follows is reported as ``ListeningEnd/Reason/stopped``.
    private let requestStop: @Sendable () async -> Void

    /// Starts playing `entry` of `podcast`. Throws ``ListeningError`` when the episode has no
    /// audio, or the player's error when it cannot be started.
    public static func start(
        _ entry: EpisodeEntry, of podcast: StoredPodcast, library: Library, player: any Player, options: Options = Options()
    ) async throws -> EpisodeListening {
        try await start(entry, of: podcast, library: library, player: player, options: options, clock: ContinuousClock())
    }

    /// Starts playing, measuring the time between saves on `clock` (a test's clock, say).
    public static func start<C: Clock>(
        _ entry: EpisodeEntry, of podcast: StoredPodcast, library: Library, player: any Player, options: Options, clock: C
    ) async throws -> EpisodeListening where C.Duration == Duration {
        let source = try await Self.source(of: entry)
        if let requested = options.start, let length = try await Self.length(of: entry, source: source), requested >= length {
            throw ListeningError.startPastEnd(title: entry.episode.title, start: requested, length: length)
        }
        let speed = options.speed ?? podcast.playbackSpeed ?? options.defaultSpeed
        if let chosen = options.speed, chosen != podcast.playbackSpeed {
            try await library.setPlaybackSpeed(chosen, podcastID: podcast.id)
        }
        let start = ListeningRules.startPosition(for: entry.playback, requested: options.start)
        let request = PlaybackRequest(
            source: source.playbackSource, start: start, speed: speed, title: entry.episode.title,
            chapters: try await Self.chapters(of: entry, library: library), interactive: options.interactive,
            offersNext: options.offersNext)
        let session = try await player.play(request)
        return EpisodeListening(
            podcast: podcast, entry: entry, source: source, session: session, library: library, start: start, speed: speed,
            clock: clock)
    }

    private init<C: Clock>(
        podcast: StoredPodcast, entry: EpisodeEntry, source: Source, session: any PlaybackSession, library: Library,
        start: Double, speed: Double, clock: C
    ) where C.Duration == Duration {
        self.podcast = podcast
        self.entry = entry
        self.source = source
        self.session = session
        let (events, continuation) = AsyncStream.makeStream(of: ListeningEvent.self)
        self.events = events
        let recorder = Recorder(
            library: library, episodeID: entry.id, podcastID: podcast.id, wasPlayed: entry.playback.isPlayed,
            started: start, feedDuration: entry.episode.duration.map(Double.init), speed: speed, clock: clock)
        requestStop = { await recorder.requestStop() }
        let playerEvents = session.events
        let task = Task {
            for await event in playerEvents {
                for listened in await recorder.handle(event) {
                    continuation.yield(listened)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }

    /// Stops listening: the position is saved (or the episode marked played when it was within
    /// its end) and ``ListeningEvent/ended(_:)`` follows with ``ListeningEnd/Reason/stopped``.
    public func stop() async {
        await requestStop()
        await session.stop()
    }

    /// The listener's controls, for front ends that offer them beside the player's own keys.
    public func seek(to seconds: Double) async throws { try await session.seek(to: seconds) }
    public func setPaused(_ paused: Bool) async throws { try await session.setPaused(paused) }
    public func setSpeed(_ speed: Double) async throws { try await session.setSpeed(speed) }

    /// The downloaded file when it is there, else the enclosure URL.
    static func source(of entry: EpisodeEntry) async throws -> Source {
        if let download = entry.download, download.state == .completed {
            let file = download.file
            if try await OffPool.run({ FileManager.default.fileExists(atPath: file) }) { return .file(file) }
        }
        guard let url = entry.episode.enclosure?.location, url.scheme == "http" || url.scheme == "https" else {
            throw ListeningError.noAudio(number: entry.number, title: entry.episode.title)
        }
        return .stream(url)
    }

    /// The episode's length: the feed's, else the downloaded file's own (read from its headers).
    static func length(of entry: EpisodeEntry, source: Source) async throws -> Double? {
        if let duration = entry.episode.duration, duration > 0 { return Double(duration) }
        guard case .file(let path) = source else { return nil }
        return try await OffPool.run { MediaDuration.seconds(ofFileAt: path) }
    }

    /// The chapters saved beside the episode's file (downloaded with its extras), if any: what
    /// the player is given, and what a front end lists.
    public static func chapters(of entry: EpisodeEntry, library: Library) async throws -> [PlaybackChapter] {
        guard let download = entry.download,
            let saved = try await library.extrasByDownload()[download.id]?.first(where: { $0.extra.kind == .chapters && $0.isSaved })
        else { return [] }
        let file = saved.file
        return try await OffPool.run { (try? Data(contentsOf: URL(fileURLWithPath: file))).map(ChaptersDocument.chapters) ?? [] }
    }
}

extension EpisodeListening.Source {
    var playbackSource: PlaybackRequest.Source {
        switch self {
        case .file(let path): .file(path)
        case .stream(let url): .stream(url)
        }
    }
}

/// Why an episode cannot be listened to.
public enum ListeningError: Error, Equatable, Sendable {
    /// The episode has no audio file (`episodes` lists it "(no audio)").
    case noAudio(number: Int, title: String)
    /// Nothing to continue: no episode heard and not finished.
    case nothingToContinue
    /// The place asked to start at is at or past the end of the episode, `length` seconds long.
    case startPastEnd(title: String, start: Double, length: Double)
}

/// Turns the player's events into listening events, saving positions as the rules say.
private actor Recorder<C: Clock> where C.Duration == Duration {
    let library: Library
    let episodeID: Int64
    let podcastID: Int64
    /// The episode was played before this listening: it stays played until stopped before its end.
    let wasPlayed: Bool
    let started: Double
    let feedDuration: Double?
    let speed: Double
    let clock: C

    private var position: Double?
    private var duration: Double?
    private var lastSave: C.Instant?
    private var hasStarted = false
    private var stopRequested = false

    init(
        library: Library, episodeID: Int64, podcastID: Int64, wasPlayed: Bool, started: Double, feedDuration: Double?,
        speed: Double, clock: C
    ) {
        self.library = library
        self.episodeID = episodeID
        self.podcastID = podcastID
        self.wasPlayed = wasPlayed
        self.started = started
        self.feedDuration = feedDuration
        self.speed = speed
        self.clock = clock
    }

    func requestStop() {
        stopRequested = true
    }

    func handle(_ event: PlayerEvent) async -> [ListeningEvent] {
        switch event {
        case .started(let at, let known):
            hasStarted = true
            position = at
            duration = known ?? feedDuration
            // The start itself is not saved: a listener who stops at once keeps the place they had.
            lastSave = clock.now
            return [.started(position: at, duration: duration, speed: speed)]
        case .position(let at):
            position = at
            guard isSaveDue() else { return [] }
            await save()
            return [.position(at)]
        case .paused(let at):
            position = at
            await save()
            return [.paused(at), .position(at)]
        case .resumed(let at):
            position = at
            return [.resumed(at)]
        case .seeked(let at):
            position = at
            await save()
            return [.position(at)]
        case .speedChanged(let speed):
            try? await library.setPlaybackSpeed(speed, podcastID: podcastID)
            await save()
            return [.speedChanged(speed)]
        case .chapter(_, let title, let start):
            return [.chapter(title: title, start: start)]
        case .ended(let end):
            return [.ended(await finish(end))]
        }
    }

    private func isSaveDue() -> Bool {
        ListeningRules.isSaveDue(elapsed: lastSave.map { $0.duration(to: clock.now) })
    }

    /// Saves the position while playing; a played episode heard again stays played.
    private func save() async {
        guard hasStarted, let position else { return }
        lastSave = clock.now
        _ = try? await library.recordPlayback(
            episodeID: episodeID, .position(position, started: started, total: duration, keepsPlayed: wasPlayed))
    }

    private func finish(_ end: PlaybackEnd) async -> ListeningEnd {
        let reason: ListeningEnd.Reason
        switch end.reason {
        case .failed(let failure):
            return ListeningEnd(position: nil, duration: end.duration, played: false, reason: .failed(failure))
        case .endOfFile: reason = .end
        case .quit: reason = stopRequested ? .stopped : .quit
        case .next: reason = stopRequested ? .stopped : .next
        case .stopped: reason = .stopped
        case .playerDied: reason = stopRequested ? .stopped : .playerDied
        }
        if let known = end.duration { duration = known }
        if let last = end.position { position = last }
        guard hasStarted, let position else {
            return ListeningEnd(position: nil, duration: duration, played: wasPlayed, reason: reason)
        }
        let finished = end.reason == .endOfFile || ListeningRules.isFinished(position: position, duration: duration)
        let change: PlaybackChange =
            finished ? .played(total: duration) : .position(position, started: started, total: duration)
        let saved = try? await library.recordPlayback(episodeID: episodeID, change)
        return ListeningEnd(position: position, duration: duration, played: saved?.isPlayed ?? finished, reason: reason)
    }
}

/// The Podcasting 2.0 chapters JSON (`{"chapters": [{"startTime": 0, "title": "…"}]}`), read leniently.
enum ChaptersDocument {
    private struct Document: Decodable {
        var chapters: [Chapter]
    }

    private struct Chapter: Decodable {
        var startTime: Double?
        var title: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            startTime =
                (try? container.decode(Double.self, forKey: .startTime))
                ?? (try? container.decode(String.self, forKey: .startTime)).flatMap(Double.init)
            title = try? container.decode(String.self, forKey: .title)
        }

        enum CodingKeys: String, CodingKey { case startTime, title }
    }

    /// The chapters with a start, in order of their starts; none when the data is not such a document.
    static func chapters(_ data: Data) -> [PlaybackChapter] {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else { return [] }
        return document.chapters.compactMap { chapter in
            guard let start = chapter.startTime, start.isFinite, start >= 0 else { return nil }
            return PlaybackChapter(title: chapter.title ?? "", start: start)
        }.sorted { $0.start < $1.start }
    }
}
