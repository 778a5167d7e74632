import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

@Suite(.timeLimit(.minutes(2))) struct DaemonResponsivenessTests {
    /// Another connection holds the database's write lock: the daemon still answers status
    /// requests while it is held, and its transfers keep receiving bytes meanwhile.
    @Test func aLockedDatabaseStallsNeitherTheControlSocketNorTheTransfers() async throws {
        let server = try await TestServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-lock-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["one", "two"] {
            server.serve(path: "/\(name).mp3", generatedSize: 4_000_000, contentType: "audio/mpeg", bytesPerSecond: 400_000)
        }
        var configuration = DownloadDaemon.Configuration(libraryDirectory: folder)
        configuration.jobs = 2
        let daemon = DownloadDaemon(configuration: configuration) { _ in }
        let running = Task { try await daemon.run() }
        let client = DaemonClient(libraryDirectory: folder)
        try await waitUntil { await client.isRunning() }

        let requests = ["one", "two"].map { name in
            DownloadRequest(
                podcastTitle: "Show", episode: Episode(title: name),
                enclosure: Enclosure(url: server.url("/\(name).mp3").absoluteString, type: "audio/mpeg"))
        }
        _ = try await client.send(ControlRequest(command: .enqueue, downloads: requests))
        let parts = ["one", "two"].map { folder.appendingPathComponent("Episodes/Show/\($0).mp3.part").path }
        try await waitUntil { parts.allSatisfy { (fileSize(atPath: $0) ?? 0) > 100_000 } }

        _ = try await client.send(ControlRequest(command: .status))
        let locked = LockHolder(path: folder.appendingPathComponent("library.sqlite").path)
        try await locked.start()
        let before = parts.map { fileSize(atPath: $0) ?? 0 }
        // The lock is held until finish(): a daemon stalled by it would answer only once it is
        // released, so every reply must come while it is still held. No reply is timed.
        for _ in 0..<5 {
            let reply = try await client.send(ControlRequest(command: .status))
            #expect(reply.statusDownloads.count == 2)
            #expect(locked.isHolding, "answered while the lock was held")
        }
        try await waitUntil { zip(before, parts.map { fileSize(atPath: $0) ?? 0 }).allSatisfy { $1 > $0 + 100_000 } }
        #expect(locked.isHolding, "bytes arrived while the lock was held")
        try await locked.finish()

        await daemon.stop()
        try await running.value
        try await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Holds SQLite's write lock on a database from a thread of its own until ``finish()`` (at
/// most 60 s, so that a failing test does not hang): however slow the machine, the lock is held
/// for as long as the test needs it.
final class LockHolder: Sendable {
    private let path: String
    private let state = Mutex((holding: false, released: false, finishing: false))

    init(path: String) {
        self.path = path
    }

    var isHolding: Bool { state.withLock { $0.holding } }

    /// Returns once the lock is held.
    func start() async throws {
        let path = self.path
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    // The daemon writes its progress meanwhile: wait for the lock, never fail on it.
                    var configuration = Configuration()
                    configuration.busyMode = .timeout(30)
                    let queue = try DatabaseQueue(path: path, configuration: configuration)
                    try queue.writeWithoutTransaction { db in
                        try db.execute(sql: "BEGIN IMMEDIATE")
                        self.state.withLock { $0.holding = true }
                        started.resume()
                        let start = Date()
                        while Date().timeIntervalSince(start) < 60, !self.state.withLock({ $0.finishing }) {
                            Thread.sleep(forTimeInterval: 0.05)
                        }
                        self.state.withLock { $0.holding = false }
                        try db.execute(sql: "COMMIT")
                    }
                    self.state.withLock { $0.released = true }
                } catch {
                    started.resume(throwing: error)
                }
            }.start()
        }
    }

    /// Lets the lock go and returns once it is released.
    func finish() async throws {
        state.withLock { $0.finishing = true }
        try await waitUntil { state.withLock { $0.released } }
    }
}
