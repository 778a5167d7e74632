import Foundation
import Testing
import TestSupport

/// A command ended by a signal exits 128 + its number; the daemon stopped by SIGTERM exits 0.
@Suite struct ExitCodeTests {
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func anUpdateEndedByASignalExits128PlusItsNumber(signal: Int32) async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        // The feed now trickles in: the update is under way when the signal comes.
        let feed = try Data(contentsOf: Fixtures.url("cli/show.xml"))
        show.server.serve(path: "/feeds/show.xml", data: feed + Data(repeating: 0x20, count: 2_000_000), contentType: "application/rss+xml", bytesPerSecond: 20_000)
        show.server.clearRequests()
        let update = try show.cli.start(["update"])
        try await waitUntil { show.server.requests.contains { $0.path == "/feeds/show.xml" } }
        kill(update.processIdentifier, signal)
        try await waitUntil { !update.isRunning }
        #expect(update.terminationReason == .exit)
        #expect(update.terminationStatus == 128 + signal)
        try await show.stop()
    }

    @Test func theDaemonStoppedBySIGINTExits130AndBySIGTERM0() async throws {
        let show = try await LoopbackShow.start()
        let interrupted = try show.cli.start(["daemon"], outputName: "interrupted")
        try await waitUntil { FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent("daemon.sock").path) }
        kill(interrupted.processIdentifier, SIGINT)
        try await waitUntil { !interrupted.isRunning }
        #expect(interrupted.terminationStatus == 130)
        let stopped = try show.cli.start(["daemon"], outputName: "stopped")
        try await waitUntil { FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent("daemon.sock").path) }
        kill(stopped.processIdentifier, SIGTERM)
        try await waitUntil { !stopped.isRunning }
        #expect(stopped.terminationStatus == 0)
        try await show.stop()
    }
}
