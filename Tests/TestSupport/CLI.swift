import Foundation
import Testing

/// Runs the built `singlecast` binary with its own library folder, as a user would.
public struct CLI: Sendable {
    /// What one run printed and how it ended.
    public struct Result: Sendable {
        public var stdout: String
        public var stderr: String
        public var status: Int32
    }

    /// The binary: next to the test bundle in the build's products folder.
    public static let executable: URL = {
        let products = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("singlecast")
    }()

    /// `$SINGLECAST_HOME` for these runs: a fresh temporary folder.
    public let home: URL
    /// The environment the binary gets (no `HOME`-based library, no internet).
    public var environment: [String: String]

    public init(environment extra: [String: String] = [:]) throws {
        home = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-cli-\(UUID().uuidString)", isDirectory: true)
        // Private, as the library makes its folder: else opening it would say it tightened it.
        try FileManager.default.createDirectory(
            at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = ["PATH": "/usr/bin:/bin", "SINGLECAST_HOME": home.path, "TERM": "dumb"]
        // The config file is this run's own (none unless a test writes one), never the user's.
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["SINGLECAST_ITUNES_URL"] = "http://127.0.0.1:9"  // never the real API
        environment.merge(extra) { $1 }
        self.environment = environment
    }

    /// The config file these runs read: `$XDG_CONFIG_HOME/singlecast/config.toml`.
    public var configFile: URL {
        URL(fileURLWithPath: environment["XDG_CONFIG_HOME"] ?? home.path).appendingPathComponent("singlecast/config.toml")
    }

    /// Writes `text` as the config file.
    public func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: configFile, atomically: true, encoding: .utf8)
    }

    /// The `Episodes` folder of this library.
    public var episodesDirectory: URL { home.appendingPathComponent("Episodes", isDirectory: true) }

    /// Starts the binary without waiting; standard output and error go to files in `home`.
    public func start(_ arguments: [String], outputName: String = "run") throws -> Process {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = home
        let stdout = home.appendingPathComponent("\(outputName).stdout")
        let stderr = home.appendingPathComponent("\(outputName).stderr")
        FileManager.default.createFile(atPath: stdout.path, contents: nil)
        FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the binary to its end (killing it after `timeout`) and returns what it printed.
    public func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Result {
        let name = "run-\(UUID().uuidString)"
        let process = try start(arguments, outputName: name)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                process.waitUntilExit()
                throw CLIError.timedOut(arguments)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let stdout = home.appendingPathComponent("\(name).stdout")
        let stderr = home.appendingPathComponent("\(name).stderr")
        defer {
            try? FileManager.default.removeItem(at: stdout)
            try? FileManager.default.removeItem(at: stderr)
        }
        return Result(
            stdout: try String(contentsOf: stdout, encoding: .utf8),
            stderr: try String(contentsOf: stderr, encoding: .utf8),
            status: process.terminationStatus)
    }

    /// The process id of the library's download daemon, as its lock file records it.
    public var daemonPID: Int32? {
        (try? String(contentsOf: home.appendingPathComponent("daemon.lock"), encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Stops the library's download daemon, if one runs, as systemd would (SIGTERM).
    public func stopDaemon() async throws {
        guard let pid = daemonPID, kill(pid, 0) == 0 else { return }
        kill(pid, SIGTERM)
        try await waitUntil { kill(pid, 0) != 0 }
    }

    /// Removes the library folder.
    public func removeHome() {
        try? FileManager.default.removeItem(at: home)
    }
}

/// A CLI run that did not end in time.
public enum CLIError: Error, CustomStringConvertible {
    case timedOut([String])

    public var description: String {
        switch self {
        case .timedOut(let arguments): return "singlecast \(arguments.joined(separator: " ")) did not finish in time"
        }
    }
}
