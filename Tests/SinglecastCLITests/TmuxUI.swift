import Foundation
import Testing
import TestSupport

/// The terminal UI running in a tmux pane of a private tmux server, read as a user sees it.
///
/// The pane runs `singlecast ARGUMENTS`, then prints its exit status and the terminal's modes
/// (`stty -a`), so that a test can check the terminal was given back as it was.
struct TmuxUI {
    let socket: String
    let home: URL

    /// Starts the UI in a `width`×`height` window with `cli`'s environment on a UTF-8 terminal.
    static func start(
        _ cli: CLI, arguments: [String] = [], width: Int = 120, height: Int = 40, environment extra: [String: String] = [:]
    ) async throws -> TmuxUI {
        let ui = TmuxUI(socket: "sc-ui-\(UUID().uuidString.prefix(8))", home: cli.home)
        var environment = cli.environment
        environment["TERM"] = "screen"
        environment["LANG"] = "C.UTF-8"
        environment.merge(extra) { $1 }
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(shellQuoted($0.value))" }
        let command =
            "env -i \(assignments.joined(separator: " ")) \(shellQuoted(CLI.executable.path)) "
            + arguments.map(shellQuoted).joined(separator: " ")
            + "; echo EXIT:$?; stty -a | tr '\\n' ' '; echo; sleep 600"
        try ui.tmux(["new-session", "-d", "-s", "ui", "-x", "\(width)", "-y", "\(height)", "sh", "-c", command])
        return ui
    }

    /// The pane's lines as they are now.
    func screen() throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", "ui"]).components(separatedBy: "\n")
    }

    /// Waits until the screen shows `text` (the wait only bounded); returns the screen.
    @discardableResult
    func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        var lines: [String] = []
        do {
            try await waitUntil(timeout: .seconds(20), sourceLocation: sourceLocation) {
                lines = try screen()
                return lines.contains { $0.contains(text) }
            }
        } catch {
            Issue.record("the screen never showed \(text):\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
            throw error
        }
        return lines
    }

    /// Waits until `condition` holds for the screen.
    func waitUntilScreen(sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping ([String]) -> Bool) async throws {
        var lines: [String] = []
        do {
            try await waitUntil(timeout: .seconds(20), sourceLocation: sourceLocation) {
                lines = try screen()
                return condition(lines)
            }
        } catch {
            Issue.record("the screen:\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Types keys as tmux names them (`Tab`, `Enter`, `C-c`, `j`).
    func press(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "ui"] + keys)
    }

    /// Types `text` as it is.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", "ui", "-l", text])
    }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "ui", "-x", "\(width)", "-y", "\(height)"])
    }

    /// A tmux format of the pane, such as `#{alternate_on}`.
    func pane(_ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "ui", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `singlecast` process (the shell's child), and its children (the player).
    func singlecastProcess() throws -> pid_t? {
        guard let shell = pid_t(try pane("#{pane_pid}")) else { return nil }
        return TestProcess.children(of: shell).first
    }

    /// Waits for the UI to end; returns its exit status, having checked that the terminal is as
    /// it was: the main screen, the cursor shown, echo and line mode on.
    func waitForExit(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int32? {
        let lines = try await waitFor("EXIT:", sourceLocation: sourceLocation)
        try await waitFor(" icanon", sourceLocation: sourceLocation)
        let modes = try screen().joined(separator: " ")
        #expect(try pane("#{alternate_on}") == "0", sourceLocation: sourceLocation)
        #expect(try pane("#{cursor_flag}") == "1", sourceLocation: sourceLocation)
        #expect(modes.contains(" echo ") && !modes.contains(" -echo ") && !modes.contains(" -icanon"), sourceLocation: sourceLocation)
        let status = lines.first { $0.contains("EXIT:") }.flatMap { Int32($0.components(separatedBy: "EXIT:")[1].prefix { $0.isNumber }) }
        return status
    }

    /// Ends the tmux server and removes its socket.
    func stop() {
        _ = try? tmux(["kill-server"])
        let folder = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(folder)/tmux-\(getuid())/\(socket)")
    }

    /// Runs tmux to its end and returns what it printed. It is spawned with no signal blocked
    /// or ignored (the test's threads block some): the server it starts, and the UI under it,
    /// must receive SIGHUP and SIGTERM as in a user's terminal.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let output = home.appendingPathComponent("tmux-\(UUID().uuidString).out").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // A file, not a pipe: the server keeps the descriptors it was given.
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["tmux", "-L", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/tmux", &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

}

private func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
