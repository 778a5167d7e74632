import Foundation
import SinglecastKit

/// The screens that are one list across the whole width: new episodes, the queue, downloads, search.
enum ListViews {
    static func drawNew(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        drawEpisodes(
            state.newEpisodes, named: "New episodes", empty: "No new episodes.", state, area, &canvas,
            podcast: \.podcast, entry: \.entry)
    }

    static func drawQueue(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        drawEpisodes(
            state.queue, named: "Queue", empty: "The queue is empty: Space adds the selected episode.", state, area, &canvas,
            podcast: \.podcast, entry: \.entry)
    }

    /// A list of episodes of several podcasts, each with its podcast's title.
    private static func drawEpisodes<Item>(
        _ list: ItemList<Item>, named name: String, empty: String, _ state: UIState, _ area: Rect, _ canvas: inout Canvas,
        podcast: KeyPath<Item, StoredPodcast>, entry: KeyPath<Item, EpisodeEntry>
    ) {
        let shown = list.visible
        title("\(name) (\(shown.count))", filter: list.filter, area, &canvas)
        let columns = [Column.fixed(min(30, area.width / 4))] + BrowseView.episodeColumns(width: area.width - min(30, area.width / 4) - 1)
        canvas.putColumns(["Podcast", "", "Title", "Date", "Length", "State"], columns, in: area.row(1), style: .dim)
        drawRows(shown, cursor: list.cursor, in: area, loaded: list.isLoaded, empty: empty, &canvas) { item in
            [TerminalText.sanitized(item[keyPath: podcast].podcast.title)] + EpisodeCells.cells(item[keyPath: entry], state)
        } columns: { columns }
    }

    static func drawDownloads(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        let list = state.downloads
        let shown = list.visible
        title("Downloads (\(shown.count))", filter: list.filter, area, &canvas)
        let columns: [Column] = [
            .fixed(11), .fixed(5, alignRight: true), .fixed(21, alignRight: true), .fixed(10, alignRight: true),
            .fixed(8, alignRight: true), .flexible,
        ]
        canvas.putColumns(["State", "Done", "Bytes", "Speed", "Left", "Episode"], columns, in: area.row(1), style: .dim)
        drawRows(shown, cursor: list.cursor, in: area, loaded: list.isLoaded, empty: "No downloads.", &canvas) { download in
            downloadCells(download)
        } columns: { columns }
    }

    static func downloadCells(_ download: Download) -> [String] {
        let bytes =
            download.expectedBytes.map { "\(UIFormat.bytes(download.receivedBytes)) of \(UIFormat.bytes($0))" }
            ?? UIFormat.bytes(download.receivedBytes)
        return [
            download.state.rawValue, download.fractionCompleted.map { "\(Int($0 * 100))%" } ?? "", bytes,
            download.currentBytesPerSecond().map { UIFormat.bytes(Int64($0)) + "/s" } ?? "",
            download.secondsLeft().map(UIFormat.duration) ?? "",
            TerminalText.sanitized("\(download.podcastTitle): \(download.episodeTitle)"),
        ]
    }

    static func drawSearch(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        let search = state.search
        let label = "Search the directory: "
        let used = canvas.put(label, x: area.x, y: area.y, style: .bold)
        canvas.put(search.term + (search.isEditing ? "▏" : ""), x: area.x + used, y: area.y, style: search.isEditing ? .accent : [])
        let columns: [Column] = [.flexible, .fixed(24), .fixed(8, alignRight: true), .fixed(14)]
        canvas.putColumns(["Title", "Artist", "Episodes", "Genre"], columns, in: area.row(1), style: .dim)
        let empty = search.isSearching ? "Searching…" : "Type a term and press Enter."
        drawRows(
            search.results.visible, cursor: search.results.cursor, in: area, loaded: true, empty: empty,
            highlightsSelection: !search.isEditing, &canvas
        ) { result in
            [
                TerminalText.sanitized(result.title), TerminalText.sanitized(result.artist ?? ""),
                result.episodeCount.map(String.init) ?? "", TerminalText.sanitized(result.genre ?? ""),
            ]
        } columns: { columns }
    }

    private static func title(_ text: String, filter: String, _ area: Rect, _ canvas: inout Canvas) {
        canvas.put(text + (filter.isEmpty ? "" : " /\(filter)"), x: area.x, y: area.y, limit: area.width, style: [.bold, .accent])
    }

    /// The rows shown from `cursor.top`, under the title and the headers; the selected one
    /// highlighted unless the keys are elsewhere (typing a search term).
    private static func drawRows<Item>(
        _ items: [Item], cursor: ListCursor, in area: Rect, loaded: Bool, empty: String, highlightsSelection: Bool = true,
        _ canvas: inout Canvas,
        cells: (Item) -> [String], columns: () -> [Column]
    ) {
        let rows = area.droppingTop(2)
        if loaded && items.isEmpty {
            canvas.put(TerminalText.truncated(empty, toWidth: rows.width), x: rows.x, y: rows.y, style: .dim)
        }
        let shownColumns = columns()
        for (offset, index) in (cursor.top..<min(items.count, cursor.top + rows.height)).enumerated() {
            let line = rows.row(offset)
            canvas.putColumns(cells(items[index]), shownColumns, in: line)
            if index == cursor.selected && highlightsSelection {
                BrowseView.highlight(line, focused: true, &canvas)
            }
        }
    }
}
