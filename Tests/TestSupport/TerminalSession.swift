import Foundation

/// A real terminal for end-to-end tests: a tmux server of its own (its socket in a folder the
/// test owns), with one window of a given size running a command, whose screen is read back as
/// the user would see it.
public struct TerminalSession: Sendable {
    private let socket: String

    /// Starts `arguments` (an executable and its arguments, with `environment` added to tmux's
    /// own, which sets `TERM`) in a detached window of `columns` × `rows` cells, below a line
    /// as a shell's prompt would leave it (`$ singlecast downloads --watch`): from the top row,
    /// every redraw would erase the whole screen, which tmux copies into its history. The window
    /// stays after the command ends, so that its last screen can still be read.
    ///
    /// With `recording`, every byte the window's program writes is also copied to that file
    /// (tmux's `pipe-pane`, set up before the program starts): what was drawn and then erased
    /// between two reads of the screen can still be checked.
    public static func start(
        _ arguments: [String], environment: [String: String], columns: Int, rows: Int, folder: URL,
        recording: URL? = nil
    ) throws -> TerminalSession {
        let session = TerminalSession(socket: folder.appendingPathComponent("tmux.sock").path)
        let configuration = folder.appendingPathComponent("tmux.conf")
        try "set -g remain-on-exit on\nset -g history-limit 1000\n".write(to: configuration, atomically: true, encoding: .utf8)
        let variables = environment.filter { $0.key != "TERM" }.map { "\($0.key)=\($0.value)" }.sorted()
        let prompt = "$ " + ([URL(fileURLWithPath: arguments[0]).lastPathComponent] + arguments.dropFirst()).joined(separator: " ")
        // When recording, the program waits for the recording to begin (a file named `go`).
        let go = folder.appendingPathComponent("tmux.go").path
        let wait = recording == nil ? "" : "while [ ! -e '\(go)' ]; do sleep 0.01; done; "
        try session.tmux(
            ["-f", configuration.path, "new-session", "-d", "-x", String(columns), "-y", String(rows), "env"] + variables
                + ["/bin/sh", "-c", wait + "echo \"$0\"; exec \"$@\"", prompt] + arguments)
        if let recording {
            // The program goes on even if the recording could not begin, rather than wait forever.
            defer { FileManager.default.createFile(atPath: go, contents: nil) }
            try session.tmux(["pipe-pane", "-o", "cat > '\(recording.path)'"])
        }
        return session
    }

    /// The lines on the screen, with what scrolled off it before them when `history`; a line the
    /// terminal wrapped is one line here, so its length is what the program wrote.
    public func lines(history: Bool = false) throws -> [String] {
        let output = try tmux(["capture-pane", "-p", "-J"] + (history ? ["-S", "-"] : []))
        var lines = output.components(separatedBy: "\n")
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Gives the window a new size (its program gets SIGWINCH).
    public func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-x", String(columns), "-y", String(rows)])
    }

    /// Ends the tmux server and what runs in it (before its folder is removed: the socket is there).
    public func stop() {
        _ = try? tmux(["kill-server"])
    }

    /// Runs tmux and returns what it printed. It is started with no signal blocked: a process
    /// started from a test's thread would inherit that thread's mask, every signal blocked, and a
    /// tmux server that never gets SIGCHLD, SIGTERM or SIGWINCH to pass on serves no test.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw TerminalSessionError(arguments: arguments, status: errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, output[0])
        posix_spawn_file_actions_addclose(&actions, output[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = (["tmux", "-u", "-S", socket] + arguments).map { strdup($0) } + [nil]
        let variables: [String] = ["LANG=C.UTF-8", "PATH=/usr/bin:/bin"]
        let environment = variables.map { strdup($0) } + [nil]
        defer { (argv + environment).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, "/usr/bin/tmux", &actions, &attributes, argv, environment)
        close(output[1])
        defer { close(output[0]) }
        guard spawned == 0 else { throw TerminalSessionError(arguments: arguments, status: spawned) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let count = read(output[0], &buffer, buffer.count), count != 0 {
            if count > 0 { data.append(contentsOf: buffer[0..<count]) } else if errno != EINTR { break }
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw TerminalSessionError(arguments: arguments, status: status) }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A tmux command that failed.
public struct TerminalSessionError: Error, CustomStringConvertible {
    public var arguments: [String]
    public var status: Int32
    public var description: String { "tmux \(arguments.joined(separator: " ")) exited with \(status)" }
}
