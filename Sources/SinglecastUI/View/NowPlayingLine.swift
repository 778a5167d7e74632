import SinglecastKit

/// The line above the hints while something plays: ▶ or ⏸, title, position / duration, a
/// progress bar, speed, chapter, sleep timer.
enum NowPlayingLine {
    static func draw(_ state: UIState, _ area: Rect, _ canvas: inout Canvas) {
        guard let playing = state.playing else { return }
        let glyph = playing.isPaused || !playing.hasStarted ? state.glyphs.paused : state.glyphs.playing
        let position = playing.position(at: state.now)
        var tail = playing.hasStarted ? UIFormat.duration(position) : "starting…"
        if playing.hasStarted, let duration = playing.duration { tail += " / " + UIFormat.duration(duration) }
        var extras = [UIFormat.speed(playing.speed)]
        if let chapter = playing.chapter, !chapter.isEmpty { extras.append(chapter) }
        switch state.sleepTimer {
        case .off: break
        case .after(_, let deadline): extras.append("sleep " + UIFormat.duration(max(0, deadline - state.now)))
        case .endOfEpisode: extras.append("sleep at end")
        }
        let right = " " + tail + " " + bar(position, playing.duration, width: 20, state.glyphs) + " " + extras.joined(separator: " · ")
        let titleWidth = max(0, area.width - 2 - TerminalText.width(right))
        var x = area.x + canvas.put(glyph + " ", x: area.x, y: area.y, style: [.bold, .accent])
        x += canvas.put(TerminalText.fitted(playing.title, toWidth: titleWidth), x: x, y: area.y, style: .bold)
        canvas.put(right, x: x, y: area.y, limit: area.x + area.width - x)
    }

    static func bar(_ position: Double, _ duration: Double?, width: Int, _ glyphs: Glyphs) -> String {
        guard let duration, duration > 0 else { return "" }
        let done = min(width, max(0, Int((position / duration * Double(width)).rounded())))
        return String(repeating: glyphs.barDone, count: done) + String(repeating: glyphs.barLeft, count: width - done)
    }
}
