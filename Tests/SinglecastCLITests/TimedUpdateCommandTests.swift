import Foundation
import Testing
import TestSupport

/// What the systemd timer runs, `update --if-due --changes-only`, against a local server.
@Suite struct TimedUpdateCommandTests {
    /// The show's feed with one episode more, published after the others.
    static func feedWithAFourthEpisode(_ show: LoopbackShow) throws -> Data {
        let feed = try String(contentsOf: Fixtures.url("cli/show.xml"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: "127.0.0.1:\(show.server.port)")
        let item = """
            <item><title>Episode Four</title><guid isPermaLink="false">loopback-4</guid>
            <pubDate>Thu, 04 Jul 2024 08:00:00 GMT</pubDate></item>

            """
        return Data(feed.replacingOccurrences(of: "    <item>", with: item + "    <item>", options: [], range: feed.range(of: "    <item>")).utf8)
    }

    @Test func changesOnlyNamesWhatChangedOrFailedAndNothingElse() async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        let plain = try await show.cli.run(["update"])
        #expect(plain.stdout.hasSuffix("Updated 1 podcast: 0 new episodes\n"), "without it, every podcast and a summary")
        var result = try await show.cli.run(["update", "--changes-only"])
        #expect(result.status == 0 && result.stdout == "" && result.stderr == "", "\(result.stdout)\(result.stderr)")
        show.server.serve(path: "/feeds/show.xml", data: try Self.feedWithAFourthEpisode(show), contentType: "application/rss+xml")
        result = try await show.cli.run(["update", "--changes-only"])
        #expect(result.status == 0 && result.stdout == "Loopback Radio: 1 new\n", "\(result.stderr)")
        show.server.remove(path: "/feeds/show.xml")
        result = try await show.cli.run(["update", "--changes-only"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("Loopback Radio: error: ") && result.stdout.split(separator: "\n").count == 1, "\(result.stdout)")
        #expect(try await show.cli.run(["update", "--changes-only", "--json"]).status == 64)
    }

    @Test func ifDueWaitsForEveryAndAChangeOfEveryTakesEffectAtOnce() async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        show.server.clearRequests()
        // The first timed update runs, and the next waits an hour (the default every).
        #expect(try await show.cli.run(["update", "--if-due"]).status == 0)
        #expect(show.server.requests(for: "/feeds/show.xml").count == 1)
        let skipped = try await show.cli.run(["update", "--if-due"])
        #expect(skipped.status == 0 && skipped.stdout == "" && skipped.stderr == "")
        #expect(show.server.requests(for: "/feeds/show.xml").count == 1, "not due: no request")
        // A typed update is not timed: it neither waits nor counts.
        #expect(try await show.cli.run(["update"]).status == 0)
        #expect(show.server.requests(for: "/feeds/show.xml").count == 2)
        #expect(try await show.cli.run(["update", "--if-due"]).stdout == "")
        #expect(show.server.requests(for: "/feeds/show.xml").count == 2)
        // The config file's every, read by each run: no reinstall.
        try show.cli.writeConfig("[update]\nevery = \"1s\"\n")
        #expect(try await show.cli.run(["update", "--if-due"]).status == 0)
        #expect(show.server.requests(for: "/feeds/show.xml").count == 3)
        try show.cli.writeConfig("[update]\nevery = \"*:0/30\"\n")
        let bad = try await show.cli.run(["update", "--if-due"])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("every"), "\(bad.stderr)")
        try show.cli.writeConfig("")
        #expect(try await show.cli.run(["update", "--if-due", "@1"]).status == 64)
    }
}
