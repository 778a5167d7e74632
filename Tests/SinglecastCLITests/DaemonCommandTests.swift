import Foundation
import Testing
import TestSupport

@Suite struct DaemonCommandTests {

    private let socketName = "daemon.sock"

    @Test func backgroundDownloadsCompleteAfterTheCommandExits() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let queued = try await show.cli.run(["download", "1-3", "--background"])
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(
            queued.stdout
                == "queued #1: Loopback Radio: Episode Three: Café & Résumé\nqueued #2: Loopback Radio: Episode Two\n"
                + "queued #3: Loopback Radio: Episode One\n")
        let files = [
            ("Episode Three: Café & Résumé.mp3", "three.mp3"), ("Episode Two.mp3", "two.mp3"), ("Episode One.mp3", "one.mp3"),
        ]
        try await waitUntil {
            files.allSatisfy { FileManager.default.fileExists(atPath: show.folder.appendingPathComponent($0.0).path) }
        }
        for (file, served) in files {
            let expected = TestServer.generatedBytes(offset: 0, count: Int(LoopbackShow.mediaSizes[served]!))
            #expect(try Data(contentsOf: show.folder.appendingPathComponent(file)) == expected)
        }
        try await waitUntil { (try? String(contentsOf: show.cli.home.appendingPathComponent("daemon.log"), encoding: .utf8))?.contains("completed #2") == true }
        #expect(try await show.downloadStates() == ["completed", "completed", "completed"])
        try await show.cli.stopDaemon()
        try await show.stop()
    }

    @Test func aKilledDaemonResumesOnItsNextStart() async throws {
        let show = try await LoopbackShow.start()
        let total: Int64 = 4_000_000
        show.server.serve(path: "/media/two.mp3", generatedSize: total, contentType: "audio/mpeg", etag: "\"v1\"", bytesPerSecond: 2_000_000)
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let daemon = try show.cli.start(["daemon"], outputName: "daemon-1")
        try await waitUntil { FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent(socketName).path) }
        #expect(try await show.cli.run(["download", "2", "--background"]).status == 0)
        let part = show.folder.appendingPathComponent("Episode Two.mp3.part")
        try await waitUntil { fileSize(part) > 500_000 }
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        let kept = fileSize(part)

        show.server.serve(path: "/media/two.mp3", generatedSize: total, contentType: "audio/mpeg", etag: "\"v1\"")
        show.server.clearRequests()
        let restarted = try show.cli.start(["daemon"], outputName: "daemon-2")
        let file = show.folder.appendingPathComponent("Episode Two.mp3")
        try await waitUntil { FileManager.default.fileExists(atPath: file.path) }
        let range = try #require(show.server.requests(for: "/media/two.mp3").first?.range)
        let resumedFrom = try #require(Int64(range.dropFirst("bytes=".count).dropLast()))
        #expect(resumedFrom >= kept)
        #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: Int(total)))
        kill(restarted.processIdentifier, SIGTERM)
        try await waitUntil { !restarted.isRunning }
        try await show.stop()
    }

    @Test func pauseResumeAndCancelFromTheCommandLine() async throws {
        let show = try await LoopbackShow.start()
        for name in ["one.mp3", "two.mp3"] {
            show.server.serve(path: "/media/\(name)", generatedSize: 3_000_000, contentType: "audio/mpeg", etag: "\"\(name)\"", bytesPerSecond: 1_000_000)
        }
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        #expect(try await show.cli.run(["download", "2", "3", "--background"]).status == 0)
        let twoPart = show.folder.appendingPathComponent("Episode Two.mp3.part")
        let onePart = show.folder.appendingPathComponent("Episode One.mp3.part")
        try await waitUntil { fileSize(twoPart) > 100_000 && fileSize(onePart) > 100_000 }

        let paused = try await show.cli.run(["pause", "1"])
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(paused.stdout == "paused #1 Episode Two\n")
        let cancelled = try await show.cli.run(["cancel", "--episodes", "3"])
        #expect(cancelled.stdout == "cancelled #2 Episode One\n")
        try await waitUntil { try await show.downloadStates() == ["paused", "cancelled"] }
        #expect(fileSize(twoPart) > 0)
        #expect(!FileManager.default.fileExists(atPath: onePart.path))

        let kept = fileSize(twoPart)
        show.server.serve(path: "/media/two.mp3", generatedSize: 3_000_000, contentType: "audio/mpeg", etag: "\"two.mp3\"")
        show.server.clearRequests()
        let resumed = try await show.cli.run(["resume", "1"])
        #expect(resumed.stdout == "queued #1: Loopback Radio: Episode Two\n")
        let file = show.folder.appendingPathComponent("Episode Two.mp3")
        try await waitUntil { FileManager.default.fileExists(atPath: file.path) }
        #expect(show.server.requests(for: "/media/two.mp3").first?.range == "bytes=\(kept)-")
        #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: 3_000_000))
        try await show.cli.stopDaemon()
        try await show.stop()
    }

    @Test func pausingAForegroundDownloadStopsItAndKeepsItsPart() async throws {
        let show = try await LoopbackShow.start()
        let (foreground, part) = try await show.startSlowDownloadOfEpisodeOne(size: 4_000_000, outputName: "foreground")

        // The daemon does not own it: it marks it paused, and the owner stops on its next save.
        let paused = try await show.cli.run(["pause", "1"])
        #expect(paused.stdout == "paused #1 Episode One\n")
        try await waitUntil { !foreground.isRunning }
        #expect(foreground.terminationStatus == 0)
        #expect(try await show.downloadStates() == ["paused"])
        #expect(fileSize(part) > 0)
        #expect(show.server.requests(for: "/media/one.mp3").count == 1)
        try await show.cli.stopDaemon()
        try await show.stop()
    }

    @Test func malformedMessagesLeaveTheDaemonServing() async throws {
        let show = try await LoopbackShow.start()
        let daemon = try show.cli.start(["daemon"], outputName: "daemon")
        let socket = show.cli.home.appendingPathComponent(socketName).path
        try await waitUntil { FileManager.default.fileExists(atPath: socket) }

        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let silent = try #require(UnixSocket.connect(socket))
        let garbage = UnixSocket.exchange(socket, Data("not json at all\n".utf8))
        #expect(garbage?.contains(#""ok":false"#) == true)
        // The failure as a value, without words (the client words it).
        #expect(garbage?.contains(#""failure":{"kind":"malformed-message"}"#) == true)
        #expect(garbage?.contains(#""error""#) == false)
        let future = UnixSocket.exchange(socket, Data(#"{"version":99,"command":"status"}"#.utf8 + [0x0A]))
        #expect(future?.contains(#""failure":{"kind":"unsupported-version","number":99}"#) == true)
        let unknown = UnixSocket.exchange(socket, Data(#"{"version":1,"command":"explode"}"#.utf8 + [0x0A]))
        #expect(unknown?.contains(#""failure":{"detail":"#) == true && unknown?.contains(#""kind":"malformed-request"}"#) == true)
        let huge = UnixSocket.exchange(socket, Data(repeating: 0x61, count: 2_000_000))
        #expect(huge?.contains(#""kind":"message-too-long""#) == true)

        let status = try await show.cli.run(["downloads"])
        #expect(status.status == 0)
        let stillServing = UnixSocket.exchange(socket, Data(#"{"version":1,"command":"status"}"#.utf8 + [0x0A]))
        #expect(stillServing?.contains(#""ok":true"#) == true)
        #expect(daemon.isRunning)
        close(silent)

        let second = try await show.cli.run(["daemon"])
        #expect(second.status == 1)
        #expect(second.stderr == "Error: a download daemon is already running for \(show.cli.home.path) (process \(daemon.processIdentifier))\n")
        #expect(daemon.isRunning)

        kill(daemon.processIdentifier, SIGTERM)
        try await waitUntil { !daemon.isRunning }
        #expect(daemon.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))
        try await show.stop()
    }

    @Test func onCompleteHookGetsTheFile() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let record = show.cli.home.appendingPathComponent("hook.txt")
        let daemon = try show.cli.start(["daemon", "--on-complete", "printf '%s\\n' \"$1\" >> '\(record.path)'"], outputName: "daemon")
        try await waitUntil { FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent(socketName).path) }
        #expect(try await show.cli.run(["download", "3", "--background"]).status == 0)
        // The hook has written its whole line.
        try await waitUntil { (try? String(contentsOf: record, encoding: .utf8))?.hasSuffix("\n") == true }
        #expect(try String(contentsOf: record, encoding: .utf8) == show.folder.appendingPathComponent("Episode One.mp3").path + "\n")
        kill(daemon.processIdentifier, SIGTERM)
        try await waitUntil { !daemon.isRunning }
        try await show.stop()
    }

    @Test func anIdleDaemonStartedOnDemandExits() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let daemon = try show.cli.start(["daemon", "--idle-exit", "4"], outputName: "daemon")
        try await waitUntil { FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent(socketName).path) }
        #expect(try await show.cli.run(["download", "3", "--background"]).status == 0)
        try await waitUntil { !daemon.isRunning }
        #expect(daemon.terminationStatus == 0)
        #expect(try await show.downloadStates() == ["completed"])
        try await show.stop()
    }
}
