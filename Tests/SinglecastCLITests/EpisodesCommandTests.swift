import Foundation
import Testing
import TestSupport

@Suite struct EpisodesCommandTests {
    @Test func listsAFeedURLInFeedOrder() async throws {
        let show = try await LoopbackShow.start()
        let result = try await show.cli.run(["episodes", show.feedURL])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0] == "Loopback Radio")
        #expect(lines[1].hasPrefix("#  Date"))
        #expect(lines[2].hasPrefix("1  2024-07-03  1:02:03  300 kB  -      Episode Three: Café & Résumé"))
        #expect(lines[3].hasPrefix("2  2024-07-02    42:07  200 kB  -      Episode Two"))
        #expect(lines[4].hasPrefix("3  2024-07-01     1:35  100 kB  -      Episode One"))
        #expect(lines[5].hasSuffix("Announcement without audio (no audio)"))
        let request = try #require(show.server.requests(for: "/feeds/show.xml").first)
        #expect(request.header("User-Agent")?.hasPrefix("Singlecast/") == true)
        #expect(request.header("Accept-Encoding")?.contains("gzip") == true)
        try await show.stop()
    }

    /// `show N` prints one episode's details and its notes as text, links listed at the end;
    /// `episodes --json` has the same text as `description`.
    @Test func showPrintsAnEpisodesDetailsAndNotes() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let result = try await show.cli.run(["show", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let notes = "We talk about SQLite\u{2019}s WAL [1] & cafés.\n\n• First topic\n\n• Second topic\n\n[1] https://sqlite.org/wal.html"
        #expect(
            result.stdout == """
                Podcast: Loopback Radio
                Title:   Episode Three: Café & Résumé
                Date:    2024-07-03
                Length:  1:02:03
                URL:     \(show.server.url("/media/three.mp3").absoluteString)?utm_source=feed
                State:   -

                \(notes)

                """)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await show.cli.run(["show", "1", "--json"]).stdout.utf8)) as? [String: Any])
        #expect(json["description"] as? String == notes)
        #expect(json["links"] as? [String] == ["https://sqlite.org/wal.html"])
        #expect(json["podcast"] as? String == "Loopback Radio")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(try await show.cli.run(["episodes", "--json"]).stdout.utf8)) as? [String: Any])
        let episodes = try #require(listing["episodes"] as? [[String: Any]])
        #expect(episodes[0]["description"] as? String == notes)
        #expect(episodes[1]["description"] is NSNull)
        let missing = try await show.cli.run(["show", "9"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("there is no episode 9 in Loopback Radio"))
        try await show.stop()
    }

    /// Listing from the library (`podcasts`, `episodes @N` of the current podcast, `new`,
    /// `queue`) opens it with one connection and writes nothing: the database file is left
    /// byte for byte as it was, with no log beside it.
    @Test func listingsFromTheLibraryLeaveItsFileAsItWas() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        #expect(try await show.cli.run(["episodes", "@1"]).status == 0)
        let database = show.cli.home.appendingPathComponent("library.sqlite")
        let before = try Data(contentsOf: database)
        for arguments in [["podcasts"], ["episodes", "@1"], ["episodes", "Loopback"], ["episodes"], ["new"], ["queue"]] {
            let result = try await show.cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(try Data(contentsOf: database) == before, "\(arguments) wrote to the library")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: show.cli.home.path)
        #expect(files.filter { $0.hasPrefix("library.sqlite") } == ["library.sqlite"])
        try await show.stop()
    }

    @Test func printsJSONInDocumentOrder() async throws {
        let show = try await LoopbackShow.start()
        let result = try await show.cli.run(["episodes", show.feedURL, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Loopback Radio")
        #expect(object["feedURL"] as? String == show.feedURL)
        let episodes = try #require(object["episodes"] as? [[String: Any]])
        #expect(episodes.count == 4)
        let first = episodes[0]
        #expect(
            Set(first.keys) == [
                "number", "title", "guid", "published", "duration", "description", "enclosure", "state", "progress", "file", "message",
                "error", "position", "played", "playedAt", "transcripts", "chapters", "extras",
            ])
        #expect(first["error"] is NSNull && first["message"] is NSNull)
        #expect(first["position"] is NSNull)
        #expect(first["played"] as? Bool == false)
        #expect(first["playedAt"] is NSNull)
        #expect((first["transcripts"] as? [Any])?.isEmpty == true)
        #expect(first["chapters"] is NSNull)
        #expect(first["number"] as? Int == 1)
        #expect(first["guid"] as? String == "loopback-3")
        #expect(first["published"] as? String == "2024-07-03T08:00:00Z")
        #expect(first["duration"] as? Int == 3723)
        #expect(first["state"] as? String == "not-started")
        let enclosure = try #require(first["enclosure"] as? [String: Any])
        #expect(enclosure["length"] as? Int == 300_000)
        #expect(enclosure["type"] as? String == "audio/mpeg")
        #expect(episodes[3]["enclosure"] is NSNull)
        #expect(episodes[3]["duration"] is NSNull)
        try await show.stop()
    }

    @Test func followsRedirectsAndStoresThePermanentURL() async throws {
        let show = try await LoopbackShow.start()
        show.server.redirect(path: "/old.xml", to: "/moved.xml", status: 301)
        show.server.redirect(path: "/moved.xml", to: "feeds/show.xml", status: 308)
        let result = try await show.cli.run(["episodes", show.server.url("/old.xml").absoluteString, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["feedURL"] as? String == show.feedURL)
        try await show.stop()
    }

    @Test func listingAgainDoesNotDuplicate() async throws {
        let show = try await LoopbackShow.start()
        let first = try await show.cli.run(["episodes", show.feedURL])
        let second = try await show.cli.run(["episodes", show.feedURL])
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == second.stdout)
        try await show.stop()
    }

    /// A large podcast whose feed gains episodes at the top: every episode moves down, one
    /// statement changes megabytes of pages, and its statement journal outgrows memory. SQLite
    /// 3.40 failed that statement with "database or disk is full" when the journal was kept in
    /// memory up to a megabyte before it spilled to a file.
    @Test func aLargeFeedThatGainsEpisodesAtTheTopIsSavedAgain() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        func feed(newest: Int) -> String {
            let items = (1...newest).reversed().map { number in
                "<item><title>Episode \(number)</title><guid>e\(number)</guid><description>"
                    + String(repeating: "Notes of episode \(number). ", count: 60)
                    + "</description><enclosure url=\"https://example.com/\(number).mp3\" type=\"audio/mpeg\"/></item>"
            }
            return "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Big</title>" + items.joined() + "</channel></rss>"
        }
        let file = cli.home.appendingPathComponent("big.xml")
        try feed(newest: 2000).write(to: file, atomically: true, encoding: .utf8)
        let first = try await cli.run(["episodes", file.path])
        #expect(first.status == 0, "\(first.stderr)")
        try feed(newest: 2005).write(to: file, atomically: true, encoding: .utf8)
        let second = try await cli.run(["episodes", file.path, "--json"])
        #expect(second.status == 0 && second.stderr == "", "\(second.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        let episodes = try #require(object["episodes"] as? [[String: Any]])
        #expect(episodes.count == 2005)
        #expect(episodes.first?["title"] as? String == "Episode 2005" && episodes.last?["title"] as? String == "Episode 1")
    }

    @Test func readsALocalFile() async throws {
        let cli = try CLI()
        let result = try await cli.run(["episodes", Fixtures.url("cli/show.xml").path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["feedURL"] is NSNull)
        #expect((object["episodes"] as? [Any])?.count == 4)
        cli.removeHome()
    }

    @Test func jsonEscapesQuotesBackslashesAndControlCharacters() async throws {
        let cli = try CLI()
        let result = try await cli.run(["episodes", Fixtures.url("cli/json-escapes.xml").path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""title": "Tab\tand\nnewline, \"quotes\", back\\slash, café — 🎙""#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["title"] as? String == #"Quotes "and" \backslashes\"#)
        let episode = try #require((object["episodes"] as? [[String: Any]])?.first)
        #expect(episode["title"] as? String == "Tab\tand\nnewline, \"quotes\", back\\slash, café — 🎙")
        #expect(episode["guid"] as? String == #"a "guid" with \ in it"#)
        cli.removeHome()
    }

    @Test func badInputGetsOneClearError() async throws {
        let show = try await LoopbackShow.start()
        show.server.serve(path: "/page.html", data: try Fixtures.data("cli/not-a-feed.html"), contentType: "text/html")
        let pageURL = show.server.url("/page.html").absoluteString
        let html = try await show.cli.run(["episodes", pageURL])
        #expect(html.status == 1)
        #expect(html.stderr.hasPrefix("Error: \(pageURL) is not a podcast feed"))
        #expect(html.stdout.isEmpty)

        let missingURL = show.server.url("/missing.xml").absoluteString
        let missing = try await show.cli.run(["episodes", missingURL])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: \(missingURL) answered HTTP 404 Not Found\n")

        let noFile = try await show.cli.run(["episodes", "/nonexistent/feed.xml"])
        #expect(noFile.status == 1)
        #expect(noFile.stderr.hasPrefix("Error: cannot read /nonexistent/feed.xml"))

        let noSearch = try await show.cli.run(["episodes", "4"])
        #expect(noSearch.status == 1)
        #expect(noSearch.stderr == "Error: there is no search result 4: no search has been made yet\n")
        try await show.stop()
    }
}
