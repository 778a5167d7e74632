import Foundation

/// Where a library's daemon keeps its lock, control socket and log.
public struct DaemonPaths: Sendable {
    public let libraryDirectory: URL
    /// The control socket, mode 0600: only the user can reach it. Under `$XDG_RUNTIME_DIR`
    /// when it is set, as `singlecast-<hash of the library path>.sock` (short, so that a long
    /// library path cannot overflow a socket address); else `daemon.sock` in the library.
    public let socket: String
    /// The folder of Singlecast's sockets (the daemon's, and the player's): `$XDG_RUNTIME_DIR`
    /// when it is set and not empty, else the library.
    public let socketDirectory: URL

    public init(libraryDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.libraryDirectory = libraryDirectory
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            var hash = StableHash()
            hash.mix(libraryDirectory.standardizedFileURL.path)
            let name = "singlecast-" + String(hash.value, radix: 36) + ".sock"
            socketDirectory = URL(fileURLWithPath: runtime, isDirectory: true)
            socket = socketDirectory.appendingPathComponent(name).path
        } else {
            socketDirectory = libraryDirectory
            socket = libraryDirectory.appendingPathComponent("daemon.sock").path
        }
    }

    /// `daemon.lock`, held by the running daemon and holding its process id.
    public var lock: String { libraryDirectory.appendingPathComponent("daemon.lock").path }
    /// `daemon.log`, where a daemon started on demand writes.
    public var log: String { libraryDirectory.appendingPathComponent("daemon.log").path }
}

/// The one-daemon-per-library lock on `daemon.lock` (see ``ProcessLock``), held for the daemon's life.
enum DaemonLock {
    static func take(paths: DaemonPaths) throws -> ProcessLock {
        try FileManager.default.createDirectory(at: paths.libraryDirectory, withIntermediateDirectories: true)
        do {
            return try ProcessLock(path: paths.lock)
        } catch .held(let owner) {
            throw DaemonError.alreadyRunning(library: paths.libraryDirectory.path, processID: owner)
        } catch .system(let code) {
            throw DaemonError.socket(path: paths.lock, problem: .system(errno: code))
        }
    }
}
