import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

/// The daemon's idle exit, timed by a clock the test advances.
@Suite(.timeLimit(.minutes(2))) struct DaemonIdleTests {
    /// A download waiting for the network keeps the daemon up past its idle time; once it
    /// completes, with nothing left to do, the daemon exits by itself.
    @Test func aDownloadWaitingForTheNetworkOutlastsTheIdleTime() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/one.mp3", generatedSize: 50_000, contentType: "audio/mpeg")
        try await server.stop()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-idle-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = DownloadDaemon.Configuration(libraryDirectory: folder)
        configuration.idleExit = .seconds(4)
        let clock = TestClock()
        let retrying = Mutex(0)
        let daemon = DownloadDaemon(configuration: configuration, clock: clock) { event in
            if case .download(.retrying(let download)) = event, download.id == 1 { retrying.withLock { $0 += 1 } }
        }
        let retries = { retrying.withLock { $0 } }
        let ended = DoneFlag()
        let running = Task {
            defer { ended.set() }
            try await daemon.run()
        }
        let client = DaemonClient(libraryDirectory: folder)
        try await waitUntil { await client.isRunning() }

        let request = DownloadRequest(
            podcastTitle: "Show", episode: Episode(title: "one"),
            enclosure: Enclosure(url: server.url("/one.mp3").absoluteString, type: "audio/mpeg"))
        _ = try await client.send(ControlRequest(command: .enqueue, downloads: [request]))
        try await waitUntil { retries() == 1 }
        let first = try #require(try await client.send(ControlRequest(command: .status)).statusDownloads.first)
        #expect(first.state == .retrying && first.retryReason == .connectionRefused)

        // Past the idle time: the download tries again, is refused and waits again; the daemon stays.
        await clock.advance(by: .seconds(5))
        try await waitUntil { retries() == 2 }
        #expect(!ended.isSet)
        #expect(await client.isRunning())

        // The server is back: the next try completes the download, and the idle daemon exits.
        try await server.restart()
        await clock.advance(by: .seconds(10))
        try await waitUntil { ended.isSet }
        try await running.value
        let file = folder.appendingPathComponent("Episodes/Show/one.mp3")
        #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: 50_000))
        try await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
