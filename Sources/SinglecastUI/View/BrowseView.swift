import Foundation
import SinglecastKit

/// Screen `1`: podcasts, episodes and details side by side.
enum BrowseView {
    static func draw(_ state: UIState, _ layout: ScreenLayout, _ canvas: inout Canvas) {
        let panes = layout.panes
        for separatorX in panes.dropLast().map({ $0.x + $0.width }) {
            for y in layout.body.y..<layout.body.y + layout.body.height {
                canvas.put(state.glyphs.separator, x: separatorX, y: y, style: .dim)
            }
        }
        drawPodcasts(state, panes[0], &canvas)
        drawEpisodes(state, panes[1], &canvas)
        drawDetails(state, panes[2], &canvas)
    }

    private static func title(_ text: String, pane: UIState.Pane, _ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        let focused = state.focus == pane
        canvas.put(TerminalText.truncated(text, toWidth: area.width), x: area.x, y: area.y, style: focused ? [.bold, .accent] : .bold)
    }

    // MARK: - Podcasts

    private static func drawPodcasts(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        let list = state.podcasts
        let shown = list.visible
        let filter = list.filter.isEmpty ? "" : " /\(list.filter)"
        title("Podcasts (\(shown.count))\(filter)", pane: .podcasts, state, area.row(0), &canvas)
        canvas.putColumns(["", "", "unpl", "new"], podcastColumns(state), in: headerRow(area), style: .dim)
        let rows = area.droppingTop(2)
        if list.isLoaded && shown.isEmpty {
            let empty = list.filter.isEmpty ? "No subscriptions: press a to add a feed, 5 to search." : "Nothing matches."
            canvas.put(TerminalText.truncated(empty, toWidth: rows.width), x: rows.x, y: rows.y, style: .dim)
        }
        for (offset, index) in (list.cursor.top..<min(shown.count, list.cursor.top + rows.height)).enumerated() {
            let row = shown[index]
            let line = rows.row(offset)
            canvas.putColumns(
                [mark(row, state), TerminalText.sanitized(row.podcast.podcast.title), row.unplayedCount.map(String.init) ?? "",
                 row.newCount.map { $0 > 0 ? "\(state.glyphs.new)\($0)" : "" } ?? ""],
                podcastColumns(state), in: line)
            if index == list.cursor.selected { highlight(line, focused: state.focus == .podcasts, &canvas) }
        }
    }

    private static func podcastColumns(_ state: UIState) -> [Column] {
        [.fixed(1, style: .warning), .flexible, .fixed(4, alignRight: true), .fixed(5, alignRight: true, style: .accent)]
    }

    /// A podcast being refreshed, or whose last refresh failed.
    private static func mark(_ row: PodcastRow, _ state: UIState) -> String {
        if state.refreshing.contains(row.podcast.id) { return state.glyphs.updating }
        if case .failed = row.podcast.subscription?.lastUpdate?.status { return state.glyphs.failed }
        if case .gone = row.podcast.subscription?.lastUpdate?.status { return state.glyphs.failed }
        return ""
    }

    // MARK: - Episodes

    private static func drawEpisodes(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        let list = state.episodes
        let podcastTitle = state.podcasts.rows.first { $0.podcast.id == list.podcastID }.map {
            TerminalText.sanitized($0.podcast.podcast.title)
        }
        let filter = list.filter.isEmpty ? "" : " /\(list.filter)"
        title("Episodes (\(list.total))\(filter)" + (podcastTitle.map { ": \($0)" } ?? ""), pane: .episodes, state, area.row(0), &canvas)
        let columns = episodeColumns(width: area.width)
        canvas.putColumns(["", "Title", "Date", "Length", "State"], columns, in: headerRow(area), style: .dim)
        let rows = area.droppingTop(2)
        if list.isLoaded && list.total == 0 {
            canvas.put(list.filter.isEmpty ? "No episodes." : "Nothing matches.", x: rows.x, y: rows.y, style: .dim)
        }
        for (offset, index) in (list.cursor.top..<min(list.total, list.cursor.top + rows.height)).enumerated() {
            let line = rows.row(offset)
            guard let entry = list.entry(at: index) else { continue }
            canvas.putColumns(EpisodeCells.cells(entry, state), columns, in: line)
            if index == list.cursor.selected { highlight(line, focused: state.focus == .episodes, &canvas) }
        }
    }

    /// The episode columns that fit: the date goes first when the pane is narrow, then the length.
    static func episodeColumns(width: Int) -> [Column] {
        var columns: [Column] = [.fixed(1, style: .accent), .flexible, .fixed(10), .fixed(7, alignRight: true), .fixed(13)]
        var titleWidth: Int {
            let shown = columns.filter { $0.width != 0 }
            return width - shown.compactMap(\.width).reduce(0, +) - (shown.count - 1)
        }
        if titleWidth < 16 { columns[2].width = 0 }
        if titleWidth < 16 { columns[3].width = 0 }
        return columns
    }

    // MARK: - Details

    private static func drawDetails(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        title("Details", pane: .details, state, area.row(0), &canvas)
        guard let entry = state.episodes.selected else { return }
        let podcast = state.podcasts.rows.first { $0.podcast.id == state.episodes.podcastID }?.podcast
        let lines = DetailsText.lines(entry, podcast: podcast, details: state.details, width: area.width)
        let body = area.droppingTop(1)
        let scroll = min(state.detailsScroll, max(0, lines.count - body.height))
        for (offset, line) in lines.dropFirst(scroll).prefix(body.height).enumerated() {
            canvas.put(line.text, x: body.x, y: body.y + offset, limit: body.width, style: line.style)
        }
    }

    // MARK: - Rows

    /// The column headers' row, under the pane's title.
    static func headerRow(_ area: Rect) -> Rect { area.row(1) }

    static func highlight(_ line: Rect, focused: Bool, _ canvas: inout Canvas) {
        canvas.addStyle(focused ? .reverse : .underline, to: line)
    }
}

/// The cells of an episode's row, shared by the episodes pane and the new screen.
enum EpisodeCells {
    static func cells(_ entry: EpisodeEntry, _ state: UIState) -> [String] {
        let isPlaying = state.playing?.episodeID == entry.id
        let mark = isPlaying ? state.glyphs.playing : (entry.isNew ? state.glyphs.new : "")
        return [
            mark, TerminalText.sanitized(entry.episode.title), entry.episode.published.map(UIFormat.date) ?? "",
            entry.episode.duration.map { UIFormat.duration(Double($0)) } ?? "", stateCell(entry, glyphs: state.glyphs),
        ]
    }

    /// Downloading with its percent, the position heard, played, or downloaded.
    static func stateCell(_ entry: EpisodeEntry, glyphs: Glyphs) -> String {
        if entry.episode.enclosure == nil { return "no audio" }
        if let download = entry.download, [.waiting, .downloading, .retrying].contains(download.state) {
            return glyphs.downloading + (download.fractionCompleted.map { " \(Int($0 * 100))%" } ?? "")
        }
        if entry.playback.isPlayed { return "played" }
        if let position = entry.playback.position {
            let duration = entry.episode.duration.map { "/" + UIFormat.duration(Double($0)) } ?? ""
            return UIFormat.duration(position) + duration
        }
        if entry.download?.state == .completed { return "downloaded" }
        return ""
    }
}
