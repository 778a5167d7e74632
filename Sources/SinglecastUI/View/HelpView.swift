/// `h` or `?`: every key.
enum HelpView {
    /// The keys and what they do, as the README's table lists them.
    static let keys: [(String, String)] = [
        ("↑/↓ k/j", "move"), ("PgUp/PgDn", "move a page"), ("g/G", "first/last"),
        ("←/→ Tab", "move between panes"), ("Enter", "play (in podcasts: open its episodes)"),
        ("p", "pause/resume"), ("f / b", "forward 30 s / back 10 s"), ("] / [", "speed +0.1 / -0.1 (kept per podcast)"),
        ("Space", "add the episode to the end of the queue"), ("n", "play the next in the queue"),
        ("c", "clear the queue"), ("K/J x", "on 3: move the entry up/down, remove it"),
        ("s", "download the episode"), ("x", "delete its file"), ("m", "mark played/unplayed"),
        ("r / R", "refresh all / the selected podcast"), ("a", "add a feed (on 5: subscribe to the result)"),
        ("d", "unsubscribe (asks first; files kept)"), ("/", "filter the list (Esc clears)"),
        ("u", "show the URL"), ("t", "sleep timer: off, 15, 30, 45, 60 min, end of episode"),
        ("1 2 3 4 5", "podcasts, new, queue, downloads, directory search"), ("h / ?", "this help"), ("q", "quit"),
    ]

    static func draw(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        canvas.put("Keys", x: area.x + 1, y: area.y, style: [.bold, .accent])
        let columns: [Column] = [.fixed(12, style: .bold), .flexible]
        for (offset, key) in keys.prefix(area.height - 1).enumerated() {
            canvas.putColumns([key.0, key.1], columns, in: Rect(x: area.x + 1, y: area.y + 1 + offset, width: area.width - 1, height: 1))
        }
    }
}
