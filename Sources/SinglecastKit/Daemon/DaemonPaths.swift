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

/// The one-daemon-per-library lock: an exclusive `flock` on `daemon.lock`, held for the
/// daemon's life (the kernel drops it when the process dies, SIGKILL included).
final class DaemonLock: Sendable {
    private let descriptor: Int32

    init(paths: DaemonPaths) throws {
        try FileManager.default.createDirectory(at: paths.libraryDirectory, withIntermediateDirectories: true)
        let descriptor = open(paths.lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DaemonError.socket(path: paths.lock, problem: .system(errno: errno))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let owner = (try? String(contentsOfFile: paths.lock, encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            close(descriptor)
            throw DaemonError.alreadyRunning(library: paths.libraryDirectory.path, processID: owner)
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
