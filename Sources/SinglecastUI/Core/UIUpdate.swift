import Foundation
import SinglecastKit

/// The update function: the state and a message to the next state and the work to do. It
/// reads no clock, touches no file and starts nothing; ``Command``s do that.
public enum UIUpdate {
    /// How many episodes are read at a time around the rows shown.
    public static let episodeWindowSize = 200

    /// The work the UI starts with.
    public static let startCommands: [Command] = [.loadPodcasts]

    public static func update(_ state: UIState, _ message: Message) -> (UIState, [Command]) {
        var step = Step(state: state)
        step.handle(message)
        return (step.state, step.commands)
    }
}

/// One update in progress: the state as it changes and the commands gathered.
struct Step {
    var state: UIState
    var commands: [Command] = []

    var layout: ScreenLayout { ScreenLayout(state) }

    mutating func handle(_ message: Message) {
        switch message {
        case .key(let key):
            handle(key)
        case .resized(let width, let height):
            state.width = width
            state.height = height
            clampCursors()
        case .tick(let now):
            state.now = now
            checkSleepTimer()
        case .signal(let number):
            commands.append(.quit(status: 128 + number))
        case .podcastsLoaded(let podcasts):
            let counts = Dictionary(state.podcasts.rows.map { ($0.podcast.id, $0) }) { first, _ in first }
            replacePodcasts(
                podcasts.map { podcast in
                    PodcastRow(
                        podcast: podcast, unplayedCount: counts[podcast.id]?.unplayedCount,
                        newCount: counts[podcast.id]?.newCount)
                })
        case .podcastCountsLoaded(let summaries):
            replacePodcasts(
                summaries.map { PodcastRow(podcast: $0.podcast, unplayedCount: $0.unplayedCount, newCount: $0.newCount) })
        case .episodesLoaded(let window):
            receive(window)
        case .detailsLoaded(let details):
            if details.episodeID == selectedEpisode?.id { state.details = details }
        case .newEpisodesLoaded(let items):
            receive(items, into: \.newEpisodes)
        case .queueLoaded(let entries):
            receive(entries, into: \.queue)
        case .queued(let title, let addition):
            state.status = StatusLine(UIWords.queued(title, addition))
        case .queueCleared(let count):
            state.status = StatusLine(UIWords.queueCleared(count: count))
        case .nextInQueue(let next, let autoplay):
            guard let next else {
                if !autoplay { state.status = StatusLine(UIWords.nothingNextInQueue) }
                return
            }
            // Autoplay gives way to an episode the listener started meanwhile.
            if autoplay && state.playing != nil { return }
            play(next.entry, of: next.podcast)
        case .downloadsLoaded(let downloads):
            state.downloads.items = downloads
            state.downloads.isLoaded = true
            clampCursors()
        case .libraryChanged:
            reloadAfterChange()
        case .listening(let episodeID, let event, let now):
            state.now = max(state.now, now)
            guard state.playing?.episodeID == episodeID else { return }
            handle(event)
        case .refreshStarted(let ids):
            state.refreshing.formUnion(ids)
            state.status = StatusLine(UIWords.refreshing(count: state.refreshing.count))
        case .podcastRefreshed(let update):
            state.refreshing.remove(update.podcast.id)
            if let index = state.podcasts.rows.firstIndex(where: { $0.podcast.id == update.podcast.id }) {
                state.podcasts.rows[index].podcast = update.podcast
            }
            if state.refreshing.isEmpty {
                state.status = StatusLine(UIWords.refreshed)
                commands.append(.loadPodcasts)
            }
        case .searchFinished(let term, let results):
            guard term == state.search.term else { return }
            state.search.isSearching = false
            state.search.isEditing = false
            state.search.results = ItemList(items: results, isLoaded: true)
            if results.isEmpty { state.status = StatusLine(UIWords.noResults(term)) }
        case .subscribed(let podcast):
            state.status = StatusLine(UIWords.subscribed(podcast.podcast.title))
            commands.append(.loadPodcasts)
        case .unsubscribed(let title):
            state.status = StatusLine(UIWords.unsubscribed(title))
            commands.append(.loadPodcasts)
        case .localDownloads(let count):
            state.localDownloads = count
        case .downloadQueued(let title, let toDaemon):
            state.status = StatusLine(UIWords.downloadQueued(title, toDaemon: toDaemon))
        case .fileDeleted(let title, let deleted):
            state.status = StatusLine(UIWords.fileDeleted(title, deleted: deleted))
        case .failed(let action, let error):
            if case .play = action {
                state.playing = nil
                commands.append(.setTicking(false))
            }
            if case .search = action { state.search.isSearching = false }
            if case .refresh = action { state.refreshing = [] }
            state.status = StatusLine(UIWords.failure(action, error), isFailure: true)
        }
    }

    // MARK: - The player

    /// Starts playing an episode in place of what plays.
    mutating func play(_ entry: EpisodeEntry, of podcast: StoredPodcast) {
        state.playing = NowPlaying(episodeID: entry.id, podcastID: podcast.id, title: TerminalText.sanitized(entry.episode.title))
        state.status = nil
        commands.append(.play(entry, of: podcast))
    }

    private mutating func handle(_ event: ListeningEvent) {
        guard var playing = state.playing else { return }
        let now = state.now
        switch event {
        case .started(let position, let duration, let speed):
            playing.hasStarted = true
            playing.position = position
            playing.reportedAt = now
            playing.duration = duration
            playing.speed = speed
            commands.append(.setTicking(true))
        case .position(let position):
            playing.position = position
            playing.reportedAt = now
        case .paused(let position), .resumed(let position):
            let isPaused = if case .paused = event { true } else { false }
            playing.isPaused = isPaused
            playing.position = position
            playing.reportedAt = now
            // The clock ticks only while the position moves.
            commands.append(.setTicking(!isPaused))
        case .speedChanged(let speed):
            playing.position = playing.position(at: now)
            playing.reportedAt = now
            playing.speed = speed
        case .chapter(let title, _):
            playing.chapter = title.map { TerminalText.sanitized($0) }
        case .ended(let end):
            state.playing = nil
            // The queue goes on by itself unless the sleep timer waited for this end; the
            // player's "next" (a media key) always goes on.
            let playsNext = end.reason == .next || state.sleepTimer != .endOfEpisode
            if state.sleepTimer == .endOfEpisode, end.reason != .next { state.sleepTimer = .off }
            commands.append(.setTicking(false))
            commands.append(.advanceQueue(after: playing.episodeID, end, playsNext: playsNext))
            state.status = UIWords.ended(playing.title, end)
            reloadAfterChange()
            return
        }
        state.playing = playing
    }

    private mutating func checkSleepTimer() {
        guard case .after(_, let deadline) = state.sleepTimer, state.now >= deadline else { return }
        state.sleepTimer = .off
        if let playing = state.playing, !playing.isPaused {
            commands.append(.setPaused(true))
            state.status = StatusLine(UIWords.sleepTimerPaused)
        }
    }

    // MARK: - Lists

    /// Replaces the subscriptions, keeping the same podcast selected.
    private mutating func replacePodcasts(_ rows: [PodcastRow]) {
        let selectedID = state.podcasts.selected?.podcast.id
        state.podcasts.rows = rows
        state.podcasts.isLoaded = true
        if let selectedID, let index = state.podcasts.visible.firstIndex(where: { $0.podcast.id == selectedID }) {
            state.podcasts.cursor.selected = index
        }
        clampCursors()
        podcastSelectionChanged()
    }

    /// Replaces a list of episodes held whole; the selection changes only as far as it must.
    private mutating func receive<Item>(_ items: [Item], into list: WritableKeyPath<UIState, ItemList<Item>>) {
        let before = selectedEpisode?.id
        state[keyPath: list].items = items
        state[keyPath: list].isLoaded = true
        clampCursors()
        episodeSelectionChanged(from: before)
    }

    private mutating func receive(_ window: EpisodeWindow) {
        guard window.podcastID == state.episodes.podcastID, window.filter == state.episodes.filter else { return }
        let before = selectedEpisode?.id
        state.episodes.total = window.total
        state.episodes.windowStart = window.start
        state.episodes.entries = window.entries
        state.episodes.isLoaded = true
        if state.episodes.pendingStart == window.start { state.episodes.pendingStart = nil }
        clampCursors()
        requestEpisodeWindowIfNeeded()
        episodeSelectionChanged(from: before)
    }

    /// After the selected podcast changed: its episodes are read from the top.
    mutating func podcastSelectionChanged() {
        let id = state.podcasts.selected?.podcast.id
        guard id != state.episodes.podcastID else { return }
        state.episodes = EpisodeList(podcastID: id)
        state.details = nil
        if let id { loadEpisodes(podcastID: id, start: 0) }
    }

    /// After the selected episode changed: its details are read.
    mutating func episodeSelectionChanged(from previousID: Int64?) {
        let current = selectedEpisode
        guard current?.id != previousID else { return }
        if state.details?.episodeID != current?.id {
            state.details = nil
            state.detailsScroll = 0
        }
        if let current { commands.append(.loadDetails(current)) }
    }

    private mutating func loadEpisodes(podcastID: Int64, start: Int) {
        state.episodes.pendingStart = start
        commands.append(
            .loadEpisodes(podcastID: podcastID, filter: state.episodes.filter, start: start, limit: UIUpdate.episodeWindowSize))
    }

    /// Asks for the window around the rows shown when they are not all read.
    mutating func requestEpisodeWindowIfNeeded() {
        let list = state.episodes
        guard let id = list.podcastID, list.isLoaded, list.pendingStart == nil else { return }
        let visible = layout.listRows
        let first = list.cursor.top
        let last = min(list.total, first + visible)
        let windowEnd = list.windowStart + list.entries.count
        guard first < list.windowStart || last > windowEnd else { return }
        let margin = (UIUpdate.episodeWindowSize - visible) / 2
        loadEpisodes(podcastID: id, start: max(0, first - margin))
    }

    /// Every cursor within its list and showing its selection.
    mutating func clampCursors() {
        let rows = layout.listRows
        let browseRows = layout.listRows
        state.podcasts.cursor = state.podcasts.cursor.clamped(count: state.podcasts.visible.count, visible: browseRows)
        state.episodes.cursor = state.episodes.cursor.clamped(count: state.episodes.total, visible: browseRows)
        state.newEpisodes.cursor = state.newEpisodes.cursor.clamped(count: state.newEpisodes.visible.count, visible: rows)
        state.downloads.cursor = state.downloads.cursor.clamped(count: state.downloads.visible.count, visible: rows)
        state.queue.cursor = state.queue.cursor.clamped(count: state.queue.visible.count, visible: rows)
        state.search.results.cursor = state.search.results.cursor.clamped(
            count: state.search.results.visible.count, visible: layout.listRows)
    }

    /// Reads again what is on screen, after the library changed.
    mutating func reloadAfterChange() {
        commands.append(.loadPodcasts)
        if let id = state.episodes.podcastID, state.episodes.pendingStart == nil {
            loadEpisodes(podcastID: id, start: state.episodes.windowStart)
        }
        switch state.screen {
        case .new: commands.append(.loadNewEpisodes)
        case .queue: commands.append(.loadQueue)
        case .downloads: commands.append(.loadDownloads)
        case .browse, .search: break
        }
    }

    /// The episode the episode keys act on: the one selected in the episodes pane, or on the
    /// new or queue screen.
    var selectedEpisode: EpisodeEntry? {
        switch state.screen {
        case .browse: state.episodes.selected
        case .new: state.newEpisodes.selected?.entry
        case .queue: state.queue.selected?.entry
        case .downloads, .search: nil
        }
    }

    /// The podcast of ``selectedEpisode``.
    var selectedEpisodePodcast: StoredPodcast? {
        switch state.screen {
        case .browse: state.podcasts.rows.first { $0.podcast.id == state.episodes.podcastID }?.podcast
        case .new: state.newEpisodes.selected?.podcast
        case .queue: state.queue.selected?.podcast
        case .downloads, .search: nil
        }
    }
}
