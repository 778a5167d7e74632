import CNcursesw
import Foundation
import Synchronization

/// The terminal, through ncursesw, on a thread of its own: it reads keys (a resize among them)
/// and draws the frames it is given, writing only the rows that changed. ncurses is not
/// thread-safe, so no other thread calls it; and its reads block, so they stay off the
/// threads that run tasks.
final class TerminalScreen: Sendable {
    /// What the terminal can show.
    struct Capabilities: Sendable {
        /// The locale's characters are UTF-8; otherwise everything drawn is ASCII.
        var unicode: Bool
        var colors: Bool
    }

    private struct Shared {
        var frame: Canvas?
        var stopping = false
        /// Resumed once the terminal is restored.
        var closed: CheckedContinuation<Void, Never>?
        var isClosed = false
    }

    private let shared = Mutex(Shared())
    /// Written to wake the thread: a frame to draw, or the end.
    private let wake: (read: Int32, write: Int32)

    /// Opens the terminal (the alternate screen, raw mode, no echo, no cursor) and starts
    /// reading keys: each one, and each new size, goes to `send`. Returns nil, changing
    /// nothing, when ncurses cannot drive the terminal `TERM` names, or it cannot move the
    /// cursor (`dumb`).
    static func open(colors chosen: UIColors?, send: @escaping @Sendable (Message) -> Void) async
        -> (screen: TerminalScreen, capabilities: Capabilities, width: Int, height: Int)?
    {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let screen = TerminalScreen(wake: (pipeEnds[0], pipeEnds[1]))
        let opened = await withCheckedContinuation { (continuation: CheckedContinuation<(Capabilities, Int, Int)?, Never>) in
            let thread = Thread { screen.run(colors: chosen, opened: { continuation.resume(returning: $0) }, send: send) }
            thread.name = "terminal"
            thread.start()
        }
        guard let (capabilities, width, height) = opened else {
            screen.closeWakePipe()
            return nil
        }
        return (screen, capabilities, width, height)
    }

    private init(wake: (read: Int32, write: Int32)) {
        self.wake = wake
    }

    /// Draws `canvas` as soon as the terminal's thread can (a newer frame replaces one not drawn yet).
    func draw(_ canvas: Canvas) {
        let isOpen = shared.withLock { shared in
            if !shared.stopping { shared.frame = canvas }
            return !shared.stopping
        }
        if isOpen { poke() }
    }

    /// Puts the terminal back as it was (the screen, the cursor, echo and line mode) and
    /// returns once it has.
    func close() async {
        await withCheckedContinuation { continuation in
            let isClosed = shared.withLock { shared in
                shared.stopping = true
                if !shared.isClosed { shared.closed = continuation }
                return shared.isClosed
            }
            if isClosed { continuation.resume() } else { poke() }
        }
        closeWakePipe()
    }

    /// Closed once the thread is gone: no poke can reach a descriptor number used again since.
    private func closeWakePipe() {
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    // MARK: - The terminal's thread

    private func run(colors chosen: UIColors?, opened: (sending (Capabilities, Int, Int)?) -> Void, send: @Sendable (Message) -> Void) {
        setlocale(LC_ALL, "")
        let unicode = String(cString: nl_langinfo(nl_item(CODESET))) == "UTF-8"
        guard let terminal = cn_open_terminal() else {
            opened(nil)
            return
        }
        set_term(terminal)
        guard cn_can_address_cursor() != 0 else {
            endwin()
            delscreen(terminal)
            opened(nil)
            return
        }
        raw()
        noecho()
        nonl()
        keypad(cn_screen(), true)
        nodelay(cn_screen(), true)
        set_escdelay(25)
        curs_set(0)
        var colors = false
        if let chosen, has_colors() {
            start_color()
            use_default_colors()
            init_pair(Self.accentPair, chosen.curses(.accent), -1)
            init_pair(Self.warningPair, chosen.curses(.warning), -1)
            colors = true
        }
        let capabilities = Capabilities(unicode: unicode, colors: colors)
        opened((capabilities, Int(cn_columns()), Int(cn_lines())))
        var drawn: Canvas?
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            // The timeout lets a resize be noticed: ncurses learns of it from SIGWINCH, which
            // may interrupt another thread than this one.
            _ = poll(&descriptors, 2, 200)
            drainWake()
            readKeys(send: send)
            let (frame, stopping) = shared.withLock { ($0.frame, $0.stopping) }
            if stopping { break }
            if let frame, frame != drawn {
                draw(frame, over: drawn, capabilities)
                drawn = frame
            }
        }
        curs_set(1)
        endwin()
        delscreen(terminal)
        let closed = shared.withLock { shared in
            shared.isClosed = true
            defer { shared.closed = nil }
            return shared.closed
        }
        closed?.resume()
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &buffer, buffer.count) > 0 {}
    }

    private func readKeys(send: @Sendable (Message) -> Void) {
        var character: wint_t = 0
        while true {
            let result = cn_read_key(&character)
            if result == ERR { return }
            if result == KEY_CODE_YES {
                if character == KEY_RESIZE {
                    send(.resized(width: Int(cn_columns()), height: Int(cn_lines())))
                } else if let key = Self.functionKey(Int32(character)) {
                    send(.key(key))
                }
            } else if let key = Self.characterKey(UInt32(character)) {
                send(.key(key))
            }
        }
    }

    static func characterKey(_ value: UInt32) -> Key? {
        switch value {
        case 3: .interrupt
        case 9: .tab
        case 10, 13: .enter
        case 27: .escape
        case 8, 127: .backspace
        case 0..<32: nil
        default: Unicode.Scalar(value).map { .character(Character($0)) }
        }
    }

    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BTAB: .backTab
        case KEY_BACKSPACE: .backspace
        default: nil
        }
    }

    // MARK: - Drawing

    private static let accentPair: Int16 = 1
    private static let warningPair: Int16 = 2

    /// Writes the rows of `frame` that differ from `previous`, a run of cells of one style at a time.
    private func draw(_ frame: Canvas, over previous: Canvas?, _ capabilities: Capabilities) {
        if previous == nil || previous?.width != frame.width || previous?.height != frame.height {
            erase()
        }
        for y in frame.changedRows(since: previous) {
            var x = 0
            while x < frame.width {
                let style = frame[x, y].style
                var text: [wchar_t] = []
                var end = x
                while end < frame.width && frame[end, y].style == style {
                    for scalar in frame[end, y].text.unicodeScalars {
                        text.append(wchar_t(bitPattern: Self.shown(scalar, unicode: capabilities.unicode)))
                    }
                    end += 1
                }
                let (attributes, pair) = Self.attributes(style, colors: capabilities.colors)
                _ = cn_put(Int32(y), Int32(x), text, Int32(text.count), attributes, pair)
                x = end
            }
        }
        refresh()
    }

    /// What is written for `scalar`: itself, or on a terminal that is not UTF-8 an ASCII stand-in.
    private static func shown(_ scalar: Unicode.Scalar, unicode: Bool) -> UInt32 {
        if unicode || scalar.isASCII { return scalar.value }
        return scalar == "…" ? UInt32(UInt8(ascii: "~")) : UInt32(UInt8(ascii: "?"))
    }

    private static func attributes(_ style: CellStyle, colors: Bool) -> (attr_t, Int16) {
        var attributes: attr_t = 0
        if style.contains(.bold) { attributes |= cn_bold() }
        if style.contains(.reverse) { attributes |= cn_reverse() }
        if style.contains(.underline) { attributes |= cn_underline() }
        if style.contains(.dim) { attributes |= cn_dim() }
        var pair: Int16 = 0
        if style.contains(.warning) {
            if colors { pair = warningPair } else { attributes |= cn_bold() }
        } else if style.contains(.accent), colors {
            pair = accentPair
        }
        return (attributes, pair)
    }
}
