import Foundation

/// An exclusive `flock` on a file that holds its owner's process id, held for as long as the
/// value lives (the kernel drops it when the process dies, SIGKILL included).
final class ProcessLock: Sendable {
    private let descriptor: Int32

    /// Why the lock was not taken.
    enum Failure: Error {
        /// Another process holds it (its id, when the file names one).
        case held(processID: Int32?)
        /// The file cannot be opened (`errno`).
        case system(errno: Int32)
    }

    /// Takes the lock on `path` (creating the file, 0600) at once, or fails.
    init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system(errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let owner = (try? String(contentsOfFile: path, encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            close(descriptor)
            throw .held(processID: owner)
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// Takes the lock on `path`, trying again every `interval` while another process holds it,
    /// for at most `patience`; then throws ``Failure/held(processID:)``.
    static func acquire(path: String, patience: Duration, interval: Duration = .milliseconds(100)) async throws -> ProcessLock {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return try ProcessLock(path: path)
            } catch .held(let owner) {
                guard ContinuousClock.now + interval <= deadline else { throw Failure.held(processID: owner) }
                try await Task.sleep(for: interval)
            }
        }
    }

    deinit {
        close(descriptor)
    }
}
