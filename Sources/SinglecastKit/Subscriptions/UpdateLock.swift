import Foundation

/// Keeps two updates of a library from running at once (the timer's and a typed one): an
/// exclusive lock on `update.lock` in the library folder, held while the value lives.
public final class UpdateLock: Sendable {
    private let lock: ProcessLock

    /// How long an update waits for another to finish before it gives up.
    public static let patience: Duration = .seconds(5)

    private init(lock: ProcessLock) {
        self.lock = lock
    }

    /// Takes the lock of the library in `libraryDirectory`, waiting at most `patience` for
    /// another update to finish; then throws ``AnotherUpdateIsRunning``.
    public static func acquire(libraryDirectory: URL, patience: Duration = patience) async throws -> UpdateLock {
        try FileManager.default.createDirectory(at: libraryDirectory, withIntermediateDirectories: true)
        let path = libraryDirectory.appendingPathComponent("update.lock").path
        do {
            return UpdateLock(lock: try await ProcessLock.acquire(path: path, patience: patience))
        } catch ProcessLock.Failure.held(let owner) {
            throw AnotherUpdateIsRunning(processID: owner)
        } catch ProcessLock.Failure.system(let code) {
            throw LibraryError.unusableDatabase(path: path, detail: String(cString: strerror(code)))
        }
    }
}

/// Another process is updating the library (its id, when known).
public struct AnotherUpdateIsRunning: Error, Equatable, Sendable {
    public var processID: Int32?
}
