import Foundation
import Synchronization
import Testing

@testable import SinglecastKit

@Suite struct UpdateLockTests {
    @Test func aSecondUpdateWaitsThenSaysWhoHoldsTheLockAndGetsItOnceFree() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("update-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var first: UpdateLock? = try await UpdateLock.acquire(libraryDirectory: directory)
        let started = ContinuousClock.now
        await #expect(throws: AnotherUpdateIsRunning(processID: getpid())) {
            try await UpdateLock.acquire(libraryDirectory: directory, patience: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        withExtendedLifetime(first) {}
        first = nil
        let second = try await UpdateLock.acquire(libraryDirectory: directory, patience: .zero)
        withExtendedLifetime(second) {}
    }

    @Test func aLockFreedWhileWaitingIsTaken() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("update-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let held = Held(try await UpdateLock.acquire(libraryDirectory: directory))
        let holder = Task {
            try await Task.sleep(for: .milliseconds(300))
            held.lock.withLock { $0 = nil }
        }
        let second = try await UpdateLock.acquire(libraryDirectory: directory, patience: .seconds(30))
        try await holder.value
        withExtendedLifetime(second) {}
    }
}

/// A lock another task lets go of.
private final class Held: Sendable {
    let lock: Mutex<UpdateLock?>

    init(_ lock: UpdateLock) {
        self.lock = Mutex(lock)
    }
}
