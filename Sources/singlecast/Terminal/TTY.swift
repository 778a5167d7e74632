import Foundation

/// Facts about the terminal.
enum TTY {
    /// Whether standard output (or error) is an interactive terminal that can redraw lines.
    static func isTerminal(stdout: Bool) -> Bool {
        let descriptor = stdout ? STDOUT_FILENO : STDERR_FILENO
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return isatty(descriptor) == 1 && term != "dumb"
    }

    /// The terminal's size in cells, 80 × 24 when unknown.
    static var size: (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return (80, 24) }
        return (Int(size.ws_col), size.ws_row > 0 ? Int(size.ws_row) : 24)
    }

    /// The width tables are fitted to: the terminal's when standard output is one, else nil
    /// (a pipe or a file gets whole values).
    static var outputWidth: Int? {
        isatty(STDOUT_FILENO) == 1 ? size.columns : nil
    }

    /// Whether the locale's characters are UTF-8 (`LC_ALL`, else `LC_CTYPE`, else `LANG`, as
    /// the C library reads them), so that the terminal shows `━`.
    static let isUTF8: Bool = {
        let environment = ProcessInfo.processInfo.environment
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let name = locale.lowercased()
        return name.contains("utf-8") || name.contains("utf8")
    }()

    /// Calls `handler` each time the terminal is resized (SIGWINCH), until the returned source
    /// is cancelled.
    static func onResize(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}

/// The settings of the terminal on standard input, to put back after a program that changes
/// them (mpv's raw mode) has gone, however it went.
struct TerminalSettings {
    private var saved: termios

    /// The current settings; nil when standard input is not a terminal.
    static func save() -> TerminalSettings? {
        var settings = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        return TerminalSettings(saved: settings)
    }

    func restore() {
        var settings = saved
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
