import Foundation

/// Facts about the terminal.
enum TTY {
    /// Whether standard output (or error) is an interactive terminal that can redraw lines.
    static func isTerminal(stdout: Bool) -> Bool {
        let descriptor = stdout ? STDOUT_FILENO : STDERR_FILENO
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return isatty(descriptor) == 1 && term != "dumb"
    }

    /// The terminal's width in columns, 80 when unknown.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// The width tables are fitted to: the terminal's when standard output is one, else nil
    /// (a pipe or a file gets whole values).
    static var outputWidth: Int? {
        isatty(STDOUT_FILENO) == 1 ? columns : nil
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
