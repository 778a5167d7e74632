import SinglecastKit

/// `h` or `?`: every key, as the key map binds it.
enum HelpView {
    /// The keys and what they do, as the README's table lists them.
    static func rows(_ state: UIState) -> [(String, String)] {
        let table: [([KeyMap.Action], String)] = [
            ([.up, .down], "move"), ([.pageUp, .pageDown], "move a page"), ([.first, .last], "first/last"),
            ([.previousPane, .nextPane], "move between panes"), ([.open], "play (in podcasts: open its episodes)"),
            ([.pause], "pause/resume"),
            ([.forward, .back], "forward \(Int(state.skipForward)) s / back \(Int(state.skipBack)) s"),
            ([.faster, .slower], "speed +0.1 / -0.1 (kept per podcast)"),
            ([.enqueue], "add the episode to the end of the queue"), ([.nextInQueue], "play the next in the queue"),
            ([.clearQueue], "clear the queue"), ([.moveUp, .moveDown], "on 3: move the entry up/down"),
            ([.download], "download the episode"), ([.delete], "delete its file (on 3: take it out of the queue)"),
            ([.played], "mark played/unplayed"), ([.refreshAll, .refresh], "refresh all / the selected podcast"),
            ([.add], "add a feed (on 5: subscribe to the result)"), ([.unsubscribe], "unsubscribe (asks first; files kept)"),
            ([.filter], "filter the list"), ([.clearFilter], "clear the filter"), ([.url], "show the URL"),
            ([.sleepTimer], "sleep timer: off, 15, 30, 45, 60 min, end of episode"),
            ([.viewPodcasts, .viewNew, .viewQueue, .viewDownloads, .viewSearch], "podcasts, new, queue, downloads, directory search"),
            ([.help], "this help"), ([.quit], "quit"),
        ]
        let labels = KeyLabels(state)
        return table.map { (labels.all($0.0), $0.1) }.filter { !$0.0.isEmpty }
    }

    static func draw(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        canvas.put("Keys", x: area.x + 1, y: area.y, style: [.bold, .accent])
        let rows = rows(state)
        let keyWidth = min(rows.map { TerminalText.width($0.0) }.max() ?? 0, max(12, area.width / 3)) + 2
        let columns: [Column] = [.fixed(keyWidth, style: .bold), .flexible]
        for (offset, row) in rows.prefix(area.height - 1).enumerated() {
            canvas.putColumns([row.0, row.1], columns, in: Rect(x: area.x + 1, y: area.y + 1 + offset, width: area.width - 1, height: 1))
        }
    }
}
