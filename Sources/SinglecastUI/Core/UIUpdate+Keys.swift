import Foundation
import SinglecastKit

/// What each key does: castero's keys, with arrows and vi keys to move.
extension Step {
    mutating func handle(_ key: Key) {
        if state.showsHelp {
            if key == .interrupt || state.keyMap.translate(key) == .character("q") { return quit() }
            state.showsHelp = false
            return
        }
        if state.input != nil { return typeIntoInput(key) }
        if state.screen == .search && state.search.isEditing { return typeSearchTerm(key) }
        guard let key = state.keyMap.translate(key) else { return }
        switch key {
        case .interrupt, .character("q"): quit()
        case .character("1"): switchScreen(to: .browse)
        case .character("2"): switchScreen(to: .new)
        case .character("3"): switchScreen(to: .queue)
        case .character("4"): switchScreen(to: .downloads)
        case .character("5"): switchScreen(to: .search)
        case .character("h"), .character("?"): state.showsHelp = true
        case .up, .character("k"): move(by: -1)
        case .down, .character("j"): move(by: 1)
        case .pageUp: move(by: -page)
        case .pageDown: move(by: page)
        case .home, .character("g"): move(by: -Int(Int32.max))
        case .end, .character("G"): move(by: Int(Int32.max))
        case .left, .backTab: moveFocus(by: -1)
        case .right, .tab: moveFocus(by: 1)
        case .enter: enter()
        case .escape: clearFilter()
        case .character("/"): state.input = TextInput(purpose: .filter, text: currentFilter)
        case .character("p"): togglePause()
        case .character("f"): seek(by: state.skipForward)
        case .character("b"): seek(by: -state.skipBack)
        case .character("]"): changeSpeed(by: 0.1)
        case .character("["): changeSpeed(by: -0.1)
        case .character("t"): cycleSleepTimer()
        case .character("s"): downloadSelected()
        case .character("x") where state.screen == .queue: removeSelectedFromQueue()
        case .character("x"): deleteSelected()
        case .character(" "): queueSelected()
        case .character("n"): commands.append(.nextInQueue(after: state.playing?.episodeID))
        case .character("c"): commands.append(.clearQueue)
        case .character("K") where state.screen == .queue: moveSelectedInQueue(by: -1)
        case .character("J") where state.screen == .queue: moveSelectedInQueue(by: 1)
        case .character("m"): togglePlayed()
        case .character("u"): showURL()
        case .character("r"): commands.append(.refresh(podcastIDs: nil))
        case .character("R"): refreshSelected()
        case .character("a"): add()
        case .character("d"): askToUnsubscribe()
        default: break
        }
    }

    private var page: Int { max(1, layout.listRows - 1) }

    /// Quits, first asking what becomes of the downloads running here, if any.
    private mutating func quit() {
        if state.localDownloads > 0 {
            state.input = TextInput(purpose: .quitWithDownloads)
        } else {
            commands.append(.quit(status: 0))
        }
    }

    private mutating func switchScreen(to screen: UIState.Screen) {
        let before = selectedEpisode?.id
        state.screen = screen
        switch screen {
        case .browse: break
        case .new: commands.append(.loadNewEpisodes)
        case .queue: commands.append(.loadQueue)
        case .downloads: commands.append(.loadDownloads)
        case .search: if state.search.results.items.isEmpty { state.search.isEditing = true }
        }
        clampCursors()
        episodeSelectionChanged(from: before)
    }

    // MARK: - Moving

    private mutating func move(by delta: Int) {
        let before = selectedEpisode?.id
        let rows = layout.listRows
        switch state.screen {
        case .browse:
            let browseRows = layout.listRows
            switch state.focus {
            case .podcasts:
                state.podcasts.cursor = state.podcasts.cursor.moved(
                    by: delta, count: state.podcasts.visible.count, visible: browseRows)
                podcastSelectionChanged()
            case .episodes:
                state.episodes.cursor = state.episodes.cursor.moved(by: delta, count: state.episodes.total, visible: browseRows)
                requestEpisodeWindowIfNeeded()
            case .details:
                state.detailsScroll = min(10_000, max(0, state.detailsScroll + delta))
            }
        case .new:
            state.newEpisodes.cursor = state.newEpisodes.cursor.moved(
                by: delta, count: state.newEpisodes.visible.count, visible: rows)
        case .queue:
            state.queue.cursor = state.queue.cursor.moved(by: delta, count: state.queue.visible.count, visible: rows)
        case .downloads:
            state.downloads.cursor = state.downloads.cursor.moved(by: delta, count: state.downloads.visible.count, visible: rows)
        case .search:
            state.search.results.cursor = state.search.results.cursor.moved(
                by: delta, count: state.search.results.visible.count, visible: rows)
        }
        episodeSelectionChanged(from: before)
    }

    private mutating func moveFocus(by delta: Int) {
        guard state.screen == .browse else { return }
        let panes = UIState.Pane.allCases
        state.focus = panes[min(panes.count - 1, max(0, state.focus.rawValue + delta))]
    }

    private mutating func enter() {
        switch (state.screen, state.focus) {
        case (.browse, .podcasts): state.focus = .episodes
        case (.browse, _), (.new, _), (.queue, _): playSelected()
        case (.search, _): state.search.isEditing = true
        case (.downloads, _): break
        }
    }

    // MARK: - Filters

    /// The filter of the list the keys move in.
    private var currentFilter: String {
        switch state.screen {
        case .browse: state.focus == .podcasts ? state.podcasts.filter : state.episodes.filter
        case .new: state.newEpisodes.filter
        case .queue: state.queue.filter
        case .downloads: state.downloads.filter
        case .search: state.search.results.filter
        }
    }

    private mutating func setFilter(_ filter: String) {
        let before = selectedEpisode?.id
        switch state.screen {
        case .browse where state.focus == .podcasts:
            state.podcasts.filter = filter
            state.podcasts.cursor = ListCursor()
            podcastSelectionChanged()
        case .browse:
            guard let id = state.episodes.podcastID, filter != state.episodes.filter else { break }
            state.episodes = EpisodeList(podcastID: id, filter: filter)
            state.episodes.pendingStart = 0
            commands.append(.loadEpisodes(podcastID: id, filter: filter, start: 0, limit: UIUpdate.episodeWindowSize))
        case .new:
            state.newEpisodes.filter = filter
            state.newEpisodes.cursor = ListCursor()
        case .queue:
            state.queue.filter = filter
            state.queue.cursor = ListCursor()
        case .downloads:
            state.downloads.filter = filter
            state.downloads.cursor = ListCursor()
        case .search:
            state.search.results.filter = filter
            state.search.results.cursor = ListCursor()
        }
        clampCursors()
        episodeSelectionChanged(from: before)
    }

    private mutating func clearFilter() {
        state.status = nil
        if !currentFilter.isEmpty { setFilter("") }
    }

    // MARK: - Typing

    private mutating func typeIntoInput(_ key: Key) {
        guard var input = state.input else { return }
        if input.purpose == .quitWithDownloads {
            state.input = nil
            switch key {
            case .character("d"): commands.append(.quit(status: 0, downloads: .handToDaemon))
            case .character("p"): commands.append(.quit(status: 0, downloads: .pause))
            default: break
            }
            return
        }
        if case .confirmUnsubscribe(let id, let title) = input.purpose {
            state.input = nil
            if key == .character("y") || key == .character("Y") {
                commands.append(.unsubscribe(podcastID: id, title: title))
            } else {
                state.status = StatusLine(UIWords.stillSubscribed(title))
            }
            return
        }
        switch key {
        case .escape, .interrupt:
            state.input = nil
            if input.purpose == .filter { setFilter("") }
            return
        case .enter:
            state.input = nil
            if input.purpose == .feedURL, !input.text.isEmpty { commands.append(.subscribe(feedURL: input.text)) }
            return
        case .backspace:
            if !input.text.isEmpty { input.text.removeLast() }
        case .character(let character):
            input.text.append(character)
        default:
            return
        }
        state.input = input
        if input.purpose == .filter { setFilter(input.text) }
    }

    private mutating func typeSearchTerm(_ key: Key) {
        switch key {
        case .interrupt: quit()
        case .escape: state.search.isEditing = false
        case .enter:
            let term = state.search.term.trimmingCharacters(in: .whitespaces)
            guard !term.isEmpty else { return }
            state.search.isSearching = true
            state.status = StatusLine(UIWords.searching(term))
            commands.append(.search(term: state.search.term))
        case .backspace:
            if !state.search.term.isEmpty { state.search.term.removeLast() }
        case .character(let character):
            state.search.term.append(character)
        case .down, .tab:
            state.search.isEditing = false
        default: break
        }
    }

    // MARK: - Playing

    private mutating func playSelected() {
        guard let entry = selectedEpisode, let podcast = selectedEpisodePodcast else { return }
        play(entry, of: podcast)
    }

    private mutating func togglePause() {
        guard let playing = state.playing, playing.hasStarted else { return }
        commands.append(.setPaused(!playing.isPaused))
    }

    private mutating func seek(by seconds: Double) {
        guard let playing = state.playing, playing.hasStarted else { return }
        var target = max(0, playing.position(at: state.now) + seconds)
        if let duration = playing.duration { target = min(target, duration) }
        commands.append(.seek(to: target))
    }

    private mutating func changeSpeed(by delta: Double) {
        guard let playing = state.playing, playing.hasStarted else { return }
        let speed = ((playing.speed + delta) * 10).rounded() / 10
        let range = PlaybackRequest.speeds
        commands.append(.setSpeed(min(range.upperBound, max(range.lowerBound, speed))))
    }

    private mutating func cycleSleepTimer() {
        switch state.sleepTimer {
        case .off: state.sleepTimer = .after(minutes: 15, deadline: state.now + 15 * 60)
        case .after(let minutes, _) where minutes < 60:
            state.sleepTimer = .after(minutes: minutes + 15, deadline: state.now + Double(minutes + 15) * 60)
        case .after: state.sleepTimer = .endOfEpisode
        case .endOfEpisode: state.sleepTimer = .off
        }
        state.status = StatusLine(UIWords.sleepTimer(state.sleepTimer))
    }

    // MARK: - Episodes

    private mutating func downloadSelected() {
        guard let entry = selectedEpisode, let podcast = selectedEpisodePodcast else { return }
        guard entry.episode.enclosure != nil else {
            state.status = StatusLine(UIWords.noAudio(entry.episode.title), isFailure: true)
            return
        }
        commands.append(.download(entry, podcastTitle: podcast.podcast.title))
    }

    private mutating func deleteSelected() {
        guard let entry = selectedEpisode else { return }
        commands.append(.deleteFile(entry))
    }

    private mutating func togglePlayed() {
        guard let entry = selectedEpisode else { return }
        commands.append(.setPlayed(entry, !entry.playback.isPlayed))
    }

    private mutating func showURL() {
        let url: String?
        switch state.screen {
        case .browse where state.focus == .podcasts: url = state.podcasts.selected?.podcast.feedKey
        case .browse, .new, .queue: url = selectedEpisode?.episode.enclosure?.url
        case .downloads: url = state.downloads.selected?.enclosureURL
        case .search: url = state.search.results.selected?.feedURL?.absoluteString
        }
        state.status = url.map { StatusLine(TerminalText.sanitized($0.redactingURLPasswords)) } ?? StatusLine(UIWords.noURL)
    }

    // MARK: - The queue

    private mutating func queueSelected() {
        guard let entry = selectedEpisode else { return }
        commands.append(.enqueue(entry))
    }

    private mutating func removeSelectedFromQueue() {
        guard let entry = selectedEpisode else { return }
        commands.append(.dequeue(episodeID: entry.id))
    }

    /// Moves the selected entry one place up (`delta` -1) or down, the selection going with it.
    private mutating func moveSelectedInQueue(by delta: Int) {
        guard let selected = state.queue.selected, let index = state.queue.items.firstIndex(of: selected),
            state.queue.items.indices.contains(index + delta)
        else { return }
        state.queue.items.swapAt(index, index + delta)
        if let shown = state.queue.visible.firstIndex(of: selected) {
            state.queue.cursor = state.queue.cursor.moved(to: shown, count: state.queue.visible.count, visible: layout.listRows)
        }
        commands.append(.moveInQueue(episodeID: selected.entry.id, to: index + delta + 1))
    }

    // MARK: - Subscriptions

    private mutating func refreshSelected() {
        let id = state.screen == .new ? state.newEpisodes.selected?.podcast.id : state.podcasts.selected?.podcast.id
        guard let id else { return }
        commands.append(.refresh(podcastIDs: [id]))
    }

    private mutating func add() {
        if state.screen == .search {
            guard let result = state.search.results.selected else { return }
            guard let feedURL = result.feedURL else {
                state.status = StatusLine(UIWords.noFeed(result.title), isFailure: true)
                return
            }
            commands.append(.subscribe(feedURL: feedURL.absoluteString))
        } else {
            state.input = TextInput(purpose: .feedURL)
        }
    }

    private mutating func askToUnsubscribe() {
        guard state.screen == .browse, let podcast = state.podcasts.selected?.podcast else { return }
        state.input = TextInput(
            purpose: .confirmUnsubscribe(podcastID: podcast.id, title: TerminalText.sanitized(podcast.podcast.title)))
    }
}
