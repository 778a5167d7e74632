import Foundation
import Testing
import TestSupport

/// Downloads that outlast the network, end to end: the server goes away and comes back.
@Suite struct WaitingForNetworkCommandTests {
    private func text(_ url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    @Test func aForegroundDownloadWaitsForTheServerToComeBack() async throws {
        let show = try await LoopbackShow.start()
        let size: Int64 = 3_000_000
        show.server.serve(path: "/media/one.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"one\"", bytesPerSecond: 1_000_000)
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let process = try show.cli.start(["download", "3"], outputName: "foreground")
        let part = show.folder.appendingPathComponent("Episode One.mp3.part")
        try await waitUntil { fileSize(part) > 300_000 }
        try await show.server.stop()
        let stdout = show.cli.home.appendingPathComponent("foreground.stdout")
        try await waitUntil { text(stdout).contains("connection refused") }
        #expect(text(stdout).contains("waiting for network: Episode One (retrying in "))
        #expect(process.isRunning)
        try await show.server.restart()
        try await waitUntil { !process.isRunning }
        #expect(process.terminationStatus == 0, "\(text(show.cli.home.appendingPathComponent("foreground.stderr")))")
        let file = show.folder.appendingPathComponent("Episode One.mp3")
        #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: Int(size)))
        #expect(text(stdout).hasSuffix("done: \(file.path)\n"))
        try await show.stop()
    }

    @Test func aForegroundDownloadGivesUpAsInterruptedAndSaysHowToResume() async throws {
        let show = try await LoopbackShow.start(environment: ["SINGLECAST_GIVE_UP_AFTER": "2s"])
        show.server.serve(path: "/media/one.mp3", generatedSize: 3_000_000, contentType: "audio/mpeg", bytesPerSecond: 1_000_000)
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let process = try show.cli.start(["download", "3"], outputName: "foreground")
        let part = show.folder.appendingPathComponent("Episode One.mp3.part")
        try await waitUntil { fileSize(part) > 100_000 }
        try await show.server.stop()
        try await waitUntil { !process.isRunning }
        #expect(process.terminationStatus == 1)
        let stderr = text(show.cli.home.appendingPathComponent("foreground.stderr"))
        #expect(stderr.contains("interrupted: Episode One, "))
        #expect(stderr.contains("gave up after ") && stderr.contains(" s without data"))
        #expect(stderr.contains("resume it with `singlecast resume 1`"))
        #expect(fileSize(part) > 100_000)
        #expect(try await show.downloadStates() == ["interrupted"])
        try await show.stop()
    }

    @Test func aGiveUpTimeThatIsNotADurationIsRefused() async throws {
        let show = try await LoopbackShow.start()
        let option = try await show.cli.run(["download", "3", "--give-up-after", "soon"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("--give-up-after must be a duration such as 90s, 10m or 24h, not \u{201C}soon\u{201D}"))
        var cli = show.cli
        cli.environment["SINGLECAST_GIVE_UP_AFTER"] = "-5m"
        let variable = try await cli.run(["daemon", "--idle-exit", "0"])
        #expect(variable.status == 64)
        #expect(variable.stderr.contains("SINGLECAST_GIVE_UP_AFTER must be a duration"))
        try await show.stop()
    }

    @Test func aDaemonDownloadWaitsWithoutExitingAndResumesByItself() async throws {
        let show = try await LoopbackShow.start()
        let size: Int64 = 4_000_000
        show.server.serve(path: "/media/two.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"two\"", bytesPerSecond: 2_000_000)
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let daemon = try show.cli.start(["daemon", "--idle-exit", "4"], outputName: "daemon")
        let log = show.cli.home.appendingPathComponent("daemon.stderr")
        try await waitUntil { FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent("daemon.sock").path) }
        #expect(try await show.cli.run(["download", "2", "--background"]).status == 0)
        // The download went to this daemon (not to one started on demand).
        try await waitUntil { text(log).contains("queued #1") }
        let part = show.folder.appendingPathComponent("Episode Two.mp3.part")
        try await waitUntil { fileSize(part) > 500_000 }
        try await show.server.stop()

        // `downloads` says why it waits and when it tries again; the JSON says the same.
        // On a loaded machine a listing can come after the next try's time: then it says `retrying now`.
        var table = ""
        try await waitUntil {
            table = try await show.cli.run(["downloads"]).stdout
            return table.contains(": connection refused")
        }
        #expect(table.contains("retrying in ") || table.contains("retrying now: connection refused"), "\(table)")
        let json = try await show.cli.run(["downloads", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["state"] as? String == "retrying")
        #expect(list.first?["retryReason"] as? String == "connection-refused")
        #expect(list.first?["nextTryAt"] is String)
        #expect(list.first?["stalled"] as? Bool == false)
        #expect(list.first?["bytesPerSecond"] == nil)

        // (That a download waiting for the network keeps a daemon past its idle exit is
        // DaemonIdleTests, on a clock the test advances.)
        try await waitUntil { text(log).contains("retrying #1 at ") }
        #expect(daemon.isRunning, "\(text(log))")
        try await show.server.restart()
        let file = show.folder.appendingPathComponent("Episode Two.mp3")
        try await waitUntil { FileManager.default.fileExists(atPath: file.path) }
        #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: Int(size)))
        // With nothing left to do, it exits by itself.
        try await waitUntil { !daemon.isRunning }
        #expect(try await show.downloadStates() == ["completed"])
        try await show.stop()
    }
}
