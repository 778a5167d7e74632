import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

/// A local server, a session aimed at it and a scratch directory, torn down afterwards.
struct TransferHarness: Sendable {
    let server: TestServer
    let session: HTTPSession
    let transfer: FileTransfer
    let directory: URL

    /// Runs `body` with a fresh harness; the whole thing must finish within `timeLimit` seconds.
    static func run(
        readTimeout: Duration = .seconds(5),
        retryPolicy: FileTransfer.RetryPolicy = .init(
            giveUpAfter: .seconds(5), baseDelay: .milliseconds(10), growth: 2, maxDelay: .seconds(2)),
        timeLimit: Double = 20,
        _ body: @escaping @Sendable (TransferHarness) async throws -> Void
    ) async throws {
        var configuration = HTTPSession.Configuration()
        configuration.readTimeout = readTimeout
        configuration.connectTimeout = .seconds(2)
        let server = try await TestServer.start()
        let session = HTTPSession(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-dl-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let harness = TransferHarness(
            server: server, session: session,
            transfer: FileTransfer(session: session, retryPolicy: retryPolicy), directory: directory)
        let outcome: Result<Void, any Error>
        do {
            try await withTransferTimeLimit(timeLimit) { try await body(harness) }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await session.shutdown()
        try? await server.stop()
        try? FileManager.default.removeItem(at: directory)
        try outcome.get()
    }

    func destination(_ name: String = "ep.mp3") -> URL {
        directory.appendingPathComponent(name)
    }

    /// Leaves a partial file of `bytes` with the sidecar a previous attempt would have saved.
    func leavePart(_ bytes: Data, for destination: URL, validator: String?, contentType: String = "audio/mpeg") throws {
        try bytes.write(to: FileTransfer.partURL(for: destination))
        PartInfo(url: "x", validator: validator, contentType: contentType, totalBytes: nil)
            .write(to: FileTransfer.partInfoURL(for: destination))
    }

    /// Nothing of the download is left beside `destination` (no part, no sidecar).
    func expectNoLeftovers(_ destination: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!Self.exists(FileTransfer.partURL(for: destination)), sourceLocation: sourceLocation)
        #expect(!Self.exists(FileTransfer.partInfoURL(for: destination)), sourceLocation: sourceLocation)
    }
}

extension TransferHarness {
    static func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// Content for tests: deterministic, not repetitive at short periods.
    static func sample(_ count: Int, offset: Int64 = 0) -> Data {
        TestServer.generatedBytes(offset: offset, count: count)
    }
}

struct TransferTimeLimitExceeded: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "did not finish within \(seconds) s" }
}

/// Runs `operation`, cancelling it and failing if it takes longer than `seconds`.
func withTransferTimeLimit<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TransferTimeLimitExceeded(seconds: seconds)
        }
        return value
    }
}

/// Collects progress reports from any thread.
final class TransferProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [FileTransfer.Progress] = []

    func record(_ progress: FileTransfer.Progress) {
        lock.lock()
        defer { lock.unlock() }
        reports.append(progress)
    }

    var all: [FileTransfer.Progress] {
        lock.lock()
        defer { lock.unlock() }
        return reports
    }

    var last: FileTransfer.Progress? { all.last }
}
