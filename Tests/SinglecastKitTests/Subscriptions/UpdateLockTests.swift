import Foundation
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
        var first: UpdateLock? = try await UpdateLock.acquire(libraryDirectory: directory)
        // The task holds the only reference: the lock goes when it ends.
        let holder = Task { [first] in
            try await Task.sleep(for: .milliseconds(300))
            withExtendedLifetime(first) {}
        }
        first = nil
        let second = try await UpdateLock.acquire(libraryDirectory: directory, patience: .seconds(5))
        #expect(holder.isCancelled == false)
        withExtendedLifetime(second) {}
    }
}
