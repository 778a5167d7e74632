import Foundation
import SinglecastKit
import Synchronization

/// The lines at the bottom of a terminal that a live display draws again in place (`download`'s
/// progress, `downloads --watch`): the one owner of moving back up over them.
///
/// Each line is cut to the terminal's width, so that it takes one row and the count of rows to
/// move up stays right; at most the rows the screen has but one are drawn, as the cursor cannot
/// move up past its top.
struct LiveArea {
    /// The display widths of the lines on screen: after a resize, a terminal that rewraps them
    /// shows each on as many rows as the new width needs.
    private var drawn: [Int] = []

    /// What erases the lines on screen, on a terminal `columns` wide: back to the first one's
    /// row (CR and CUU, which every terminal since the VT100 knows), then everything below.
    mutating func clear(columns: Int) -> String {
        let rows = drawn.reduce(0) { $0 + max(1, ($1 + columns - 1) / max(1, columns)) }
        drawn = []
        return rows > 0 ? "\r\u{1B}[\(rows)A\u{1B}[J" : ""
    }

    /// What replaces the lines on screen with `lines` on a terminal of `columns` × `rows`; when
    /// they are too many, the first (a header) and the last (the total) stay, `…` between them.
    mutating func draw(_ lines: [String], columns: Int, rows: Int) -> String {
        var lines = lines
        let room = max(1, rows - 1)
        if lines.count > room {
            lines = room < 3 ? Array(lines.suffix(room)) : [lines[0], "…"] + lines.suffix(room - 2)
        }
        let text = clear(columns: columns)
        let fitted = lines.map { TerminalText.truncated($0, toWidth: columns) }
        drawn = fitted.map { TerminalText.width($0) }
        return fitted.isEmpty ? text : text + fitted.joined(separator: "\n") + "\n"
    }
}

/// A live area on standard output showing a frame drawn for the terminal's width, drawn again
/// at the new width as soon as the terminal is resized (`downloads --watch`).
final class LiveScreen: Sendable {
    private struct State {
        var area = LiveArea()
        var frame: (@Sendable (_ columns: Int) -> String)?
    }

    private let state = Mutex(State())

    /// Shows `frame` in place of what was shown.
    func show(_ frame: @escaping @Sendable (_ columns: Int) -> String) {
        state.withLock { state in
            state.frame = frame
            draw(&state)
        }
    }

    /// Draws the last frame again at the terminal's current size.
    func redraw() {
        state.withLock { draw(&$0) }
    }

    private func draw(_ state: inout State) {
        guard let frame = state.frame else { return }
        let size = TTY.size
        let lines = frame(size.columns).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        StandardStreams.write(state.area.draw(lines, columns: size.columns, rows: size.rows), to: STDOUT_FILENO)
    }
}
