import Foundation
import Testing
import TestSupport

/// `download --with-extras`, a subscription's `--extras`, and what lists and deletes them.
@Suite struct ExtrasCommandTests {
    /// A local server with `Fixtures/cli/show-with-extras.xml`, its media and its extras.
    private struct ExtrasShow {
        let server: TestServer
        let cli: CLI

        static func start() async throws -> ExtrasShow {
            let server = try await TestServer.start()
            let feed = try String(contentsOf: Fixtures.url("cli/show-with-extras.xml"), encoding: .utf8)
                .replacingOccurrences(of: "SERVER", with: "127.0.0.1:\(server.port)")
            server.serve(path: "/feeds/extras.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
            server.serve(path: "/media/two.mp3", generatedSize: 200_000, contentType: "audio/mpeg")
            server.serve(path: "/media/one.mp3", generatedSize: 100_000, contentType: "audio/mpeg")
            server.serve(path: "/extras/two-chapters.json", data: try Fixtures.data("extras/chapters.json"), contentType: "application/json")
            server.serve(path: "/extras/two.en.txt", data: try Fixtures.data("extras/transcript.en.txt"), contentType: "text/plain")
            server.serve(path: "/extras/two.en.vtt", data: try Fixtures.data("extras/transcript.en.vtt"), contentType: "text/vtt")
            server.serve(path: "/extras/two.de.srt", data: try Fixtures.data("extras/transcript.de.srt"), contentType: "application/x-subrip")
            return ExtrasShow(server: server, cli: try CLI())
        }

        var feedURL: String { server.url("/feeds/extras.xml").absoluteString }
        var folder: URL { cli.episodesDirectory.appendingPathComponent("Loopback Extras", isDirectory: true) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        func folderContents() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        }

        func json(_ arguments: [String]) async throws -> Any {
            let result = try await cli.run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        }

        func stop() async throws {
            try await server.stop()
            cli.removeHome()
        }
    }

    @Test func downloadWithExtrasSavesThemWarnsOfAFailingOneAndFetchesItNextTime() async throws {
        let show = try await ExtrasShow.start()
        show.server.addFaults([.notFound], for: "/extras/two.de.srt")
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)

        let first = try await show.cli.run(["download", "1", "--with-extras"])
        #expect(first.status == 0, "a failing extra does not fail the episode")
        #expect(first.stdout.hasPrefix("queued: Loopback Extras: Episode Two\ndownloading: Loopback Extras: Episode Two\n"))
        #expect(
            first.stdout.hasSuffix(
                "done: \(show.path("Episode Two.mp3"))\n"
                    + "saved chapters: \(show.path("Episode Two.chapters.json"))\n"
                    + "saved transcript (en, text/vtt): \(show.path("Episode Two.en.vtt"))\n"))
        #expect(
            first.stderr
                == "warning: Episode Two: transcript (de, application/x-subrip) not saved: "
                + "\(show.server.url("/extras/two.de.srt")) answered HTTP 404 Not Found (tried again on the next download)\n")
        #expect(show.folderContents() == ["Episode Two.chapters.json", "Episode Two.en.vtt", "Episode Two.mp3"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: show.path("Episode Two.chapters.json"))) == Fixtures.data("extras/chapters.json"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: show.path("Episode Two.en.vtt"))) == Fixtures.data("extras/transcript.en.vtt"))

        let downloads = try #require(try await show.json(["downloads", "--json"]) as? [[String: Any]])
        let extras = try #require(downloads.first?["extras"] as? [[String: Any]])
        #expect(extras.map { $0["kind"] as? String } == ["chapters", "transcript", "transcript"])
        #expect(extras.map { $0["saved"] as? Bool } == [true, true, false])
        #expect(extras.map { $0["file"] as? String } == ["chapters.json", "en.vtt", "de.srt"].map { show.path("Episode Two.\($0)") })
        #expect((extras[2]["message"] as? String)?.contains("404") == true)
        let table = try await show.cli.run(["downloads"])
        #expect(table.stdout.contains("2 saved, 1 failed"))
        let details = try await show.cli.run(["show", "1"])
        #expect(
            details.stdout.hasSuffix(
                "Chapters:\n  0:00  Welcome\n  1:35  Café & Résumé\n\nTranscripts:\n  \(show.path("Episode Two.en.vtt"))\n"),
            "\(details.stdout)")

        show.server.clearRequests()
        let again = try await show.cli.run(["download", "1", "--with-extras"])
        #expect(again.status == 0)
        #expect(
            again.stdout
                == "already downloaded: \(show.path("Episode Two.mp3"))\n"
                + "saved transcript (de, application/x-subrip): \(show.path("Episode Two.de.srt"))\n")
        #expect(again.stderr.isEmpty)
        #expect(show.server.requests.map(\.path) == ["/extras/two.de.srt"], "only the missing extra")
        #expect(try Data(contentsOf: URL(fileURLWithPath: show.path("Episode Two.de.srt"))) == Fixtures.data("extras/transcript.de.srt"))

        let listing = try #require(try await show.json(["episodes", "--json"]) as? [String: Any])
        let episode = try #require((listing["episodes"] as? [[String: Any]])?.first)
        #expect((episode["transcripts"] as? [[String: Any]])?.map { $0["language"] as? String } == ["en", "en", "de"])
        #expect(episode["chapters"] as? String == show.server.url("/extras/two-chapters.json").absoluteString)
        #expect((episode["extras"] as? [[String: Any]])?.map { $0["saved"] as? Bool } == [true, true, true])
        #expect(episode["state"] as? String == "completed", "the existing fields stay")

        let deleted = try await show.cli.run(["delete", "1"])
        #expect(deleted.status == 0)
        #expect(show.folderContents().isEmpty, "the extras go with the episode's file")
        try await show.stop()
    }

    @Test func theDaemonSavesTheExtrasOfABackgroundDownload() async throws {
        let show = try await ExtrasShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let queued = try await show.cli.run(["download", "1", "--with-extras", "--background"])
        #expect(queued.status == 0, "\(queued.stderr)")
        let expected = ["Episode Two.chapters.json", "Episode Two.de.srt", "Episode Two.en.vtt", "Episode Two.mp3"]
        try await waitUntil { show.folderContents() == expected }
        #expect(try Data(contentsOf: URL(fileURLWithPath: show.path("Episode Two.de.srt"))) == Fixtures.data("extras/transcript.de.srt"))
        let log = show.cli.home.appendingPathComponent("daemon.log")
        try await waitUntil { (try? String(contentsOf: log, encoding: .utf8))?.contains("extra saved #1") == true }

        let lock = try String(contentsOf: show.cli.home.appendingPathComponent("daemon.lock"), encoding: .utf8)
        let pid = try #require(Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGTERM)
        try await waitUntil { kill(pid, 0) != 0 }
        try await show.stop()
    }

    @Test func aSubscriptionWithExtrasGetsThemOnUpdateDownloadAndUnsubscribeDeletesThem() async throws {
        let show = try await ExtrasShow.start()
        let subscribed = try #require(
            try await show.json(["subscribe", show.feedURL, "--auto", "new", "--extras", "--json"]) as? [[String: Any]])
        #expect(subscribed.first?["extras"] as? Bool == true)
        let podcasts = try #require(try await show.json(["podcasts", "--json"]) as? [[String: Any]])
        #expect(podcasts.first?["extras"] as? Bool == true)

        let update = try await show.cli.run(["update", "--download"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(
            show.folderContents() == ["Episode Two.chapters.json", "Episode Two.de.srt", "Episode Two.en.vtt", "Episode Two.mp3"])

        // Changing another setting leaves it; --no-extras turns it off.
        #expect(try await show.cli.run(["subscribe", show.feedURL, "--keep", "3"]).status == 0)
        #expect((try await show.json(["podcasts", "--json"]) as? [[String: Any]])?.first?["extras"] as? Bool == true)
        #expect(try await show.cli.run(["subscribe", show.feedURL, "--no-extras"]).status == 0)
        #expect((try await show.json(["podcasts", "--json"]) as? [[String: Any]])?.first?["extras"] as? Bool == false)

        let unsubscribed = try await show.cli.run(["unsubscribe", "@1", "--delete-files"])
        #expect(unsubscribed.status == 0, "\(unsubscribed.stderr)")
        #expect(show.folderContents().isEmpty)
        try await show.stop()
    }
}
