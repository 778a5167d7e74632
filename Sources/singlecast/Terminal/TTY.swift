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
}
