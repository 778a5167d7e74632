import Foundation

/// Where a library's daemon keeps its lock, control socket and log.
public struct DaemonPaths: Sendable {
    public let libraryDirectory: URL

    public init(libraryDirectory: URL) {
        self.libraryDirectory = libraryDirectory
    }

    /// `daemon.sock`, mode 0600: only the user can reach it.
    public var socket: String { libraryDirectory.appendingPathComponent("daemon.sock").path }
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
            throw DaemonError.socket(path: paths.lock, detail: String(cString: strerror(errno)))
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
