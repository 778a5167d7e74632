import Foundation
import Testing
import TestSupport

@Suite struct UpdateLockCommandTests {
    @Test func aSecondUpdateSaysAnotherIsRunningAndExits75() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        let feed = try Data(contentsOf: Fixtures.url("cli/show.xml"))
        show.server.serve(path: "/feeds/show.xml", data: feed + Data(repeating: 0x20, count: 2_000_000), contentType: "application/rss+xml", bytesPerSecond: 20_000)
        show.server.clearRequests()
        let first = try show.cli.start(["update"], outputName: "first")
        try await waitUntil { show.server.requests.contains { $0.path == "/feeds/show.xml" } }
        let second = try await show.cli.run(["update"])
        #expect(second.status == 75)
        #expect(second.stderr == "Error: another update is running (process \(first.processIdentifier)): try again when it has finished\n")
        kill(first.processIdentifier, SIGTERM)
        try await waitUntil { !first.isRunning }
        try await show.stop()
    }
}
