import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

/// gPodder's own client library, mygpoclient (Debian's python3-mygpoclient), plays the phone
/// against the test server: what it uploads appears here after a sync, and what Singlecast
/// sends it reads back as sent.
@Suite(.timeLimit(.minutes(2)))
struct MygpoclientInteropTests {
    /// Runs the phone off the cooperative threads (the server answers on its own).
    static func phone(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let script = Fixtures.url("sync/phone.py").path
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Python.run([script] + arguments) })
            }
        }
    }

    @Test func whatMygpoclientUploadsArrivesAndWhatSinglecastSendsItReadsBack() async throws {
        try #require(mygpoclientIsInstalled, "/usr/bin/python3 cannot import mygpoclient: apt-get install python3-mygpoclient (.ci/run does)")
        let world = try await SynchronizerTests.World.start()
        try await world.library.rememberSyncAccount(
            SyncAccount(server: world.server.baseURL, user: "alice", device: "phone", dialect: nil))
        let other = "https://other.example/rss"
        let upload = try await Self.phone([
            world.server.baseURL.absoluteString, "upload", other, SynchronizerTests.episodeURL(0),
        ])
        #expect(upload.status == 0, "\(upload.stderr)")
        // mygpoclient sent its credentials only after the server's Basic challenge.
        #expect(world.server.requests.first?.header("Authorization") == nil)
        #expect(world.server.requests.contains { $0.header("Authorization") != nil })

        // The play is found by its media URL; the phone's device follows `other`.
        let episode = try await world.entry(1)
        try await world.library.recordPlayback(
            episodeID: episode.id, .position(600, started: 30, total: 3600), at: Date(timeIntervalSince1970: 1_700_000_000))
        let report = try await world.sync()
        #expect(report.addedHere == 1)
        #expect(try await world.library.podcast(feedKey: other)?.subscription != nil)
        #expect(report.actionsApplied == 1)
        #expect(try await world.entry(0).playback.position == 1234)
        #expect(report.actionsSent == 1)

        let download = try await Self.phone([world.server.baseURL.absoluteString, "download"])
        #expect(download.status == 0, "\(download.stderr)")
        let actions = try #require(try JSONSerialization.jsonObject(with: Data(download.stdout.utf8)) as? [[String: Any]])
        let sent = try #require(actions.first { $0["episode"] as? String == SynchronizerTests.episodeURL(1) })
        #expect(sent["action"] as? String == "play")
        #expect(sent["podcast"] as? String == SynchronizerTests.feedURL)
        #expect(sent["timestamp"] as? String == "2023-11-14T22:13:20")
        #expect(sent["started"] as? Int == 30 && sent["position"] as? Int == 600 && sent["total"] as? Int == 3600)
        #expect(sent["device"] as? String == "phone")
        try await world.stop()
    }
}

/// Whether `/usr/bin/python3` can import mygpoclient.
let mygpoclientIsInstalled = (try? Python.run(["-c", "import mygpoclient"]).status) == 0

/// Debian's python, which has python3-mygpoclient.
enum Python {
    static let python = "/usr/bin/python3"

    /// Runs python with `arguments`; returns its status and standard output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "no_proxy": "*", "NO_PROXY": "*"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
