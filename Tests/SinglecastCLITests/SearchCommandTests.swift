import Foundation
import Testing
import TestSupport

@Suite struct SearchCommandTests {
    @Test func printsANumberedListAndRemembersIt() async throws {
        let show = try await LoopbackShow.start()
        let result = try await show.cli.run(["search", "accidental", "tech"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("#  Title"))
        #expect(lines[1].contains("1  Accidental Tech Podcast"))
        #expect(lines[1].contains("Marco Arment"))
        #expect(lines[1].contains("590"))
        #expect(lines[1].contains("https://atp.fm/rss"))
        #expect(lines[2].contains("(no feed: cannot be opened)"))
        let request = try #require(show.server.requests(for: "/search").first)
        #expect(request.uri == "/search?term=accidental%20tech&media=podcast&entity=podcast&limit=20")
        #expect(request.header("User-Agent")?.hasPrefix("Singlecast/") == true)

        let episodes = try await show.cli.run(["episodes", "3"])
        #expect(episodes.status == 0, "\(episodes.stderr)")
        #expect(episodes.stdout.hasPrefix("Loopback Radio\n"))
        let unopenable = try await show.cli.run(["episodes", "2"])
        #expect(unopenable.status == 1)
        #expect(unopenable.stderr == "Error: search result 2 (Accidental Tech Talk (Archive)) has no feed URL and cannot be opened\n")
        try await show.stop()
    }

    @Test func printsJSON() async throws {
        let show = try await LoopbackShow.start()
        let result = try await show.cli.run(["search", "atp", "--json", "--limit", "3", "--country", "DE"])
        #expect(result.status == 0, "\(result.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 3)
        #expect(Set(array[0].keys) == ["number", "collectionId", "title", "artist", "feedURL", "episodeCount", "genre", "artworkURL", "releaseDate"])
        #expect(array[0]["number"] as? Int == 1)
        #expect(array[0]["collectionId"] as? Int == 617416468)
        #expect(array[0]["releaseDate"] as? String == "2024-05-30T21:08:00Z")
        #expect(array[1]["feedURL"] is NSNull)
        #expect(show.server.requests(for: "/search").first?.uri.hasSuffix("&limit=3&country=de") == true)
        try await show.stop()
    }

    @Test func noResultsIsAFriendlyLine() async throws {
        let show = try await LoopbackShow.start()
        show.server.serve(path: "/search", data: try Fixtures.data("itunes/search-no-results.json"), contentType: "text/javascript")
        let result = try await show.cli.run(["search", "zzzzqqq"])
        #expect(result.status == 0)
        #expect(result.stdout == "No podcasts found for \"zzzzqqq\".\n")
        #expect(result.stderr.isEmpty)
        try await show.stop()
    }

    @Test func failuresNameTheURLAndExitOne() async throws {
        // The default read timeout: a loaded machine (the tests run in parallel on two cores)
        // still gets its answers in.
        let show = try await LoopbackShow.start()
        let searchURL = "\(show.server.baseURL.absoluteString)/search?term=x&media=podcast&entity=podcast&limit=20"

        show.server.addFaults([.status(500)], for: "/search")
        let serverError = try await show.cli.run(["search", "x"])
        #expect(serverError.status == 1)
        #expect(serverError.stderr == "Error: search failed: \(searchURL) answered HTTP 500 Internal Server Error\n")

        show.server.serve(path: "/search", data: try Fixtures.data("itunes/search-not-json.html"), contentType: "text/html")
        let notJSON = try await show.cli.run(["search", "x"])
        #expect(notJSON.status == 1)
        #expect(notJSON.stderr.hasPrefix("Error: search failed: \(searchURL) did not answer with iTunes Search JSON"))

        // A server that never sends its body (it stalls until the client goes): a short read
        // timeout ends the wait, however loaded the machine.
        show.server.serve(path: "/search", data: Data("{}".utf8), faults: [.stall(afterBytes: 0, seconds: 600)])
        var impatient = show.cli
        impatient.environment["SINGLECAST_TIMEOUT"] = "3"
        let timeout = try await impatient.run(["search", "x"])
        #expect(timeout.status == 1)
        #expect(timeout.stderr.contains(searchURL))
        #expect(timeout.stderr.contains("timed out"))

        try await show.server.stop()
        let unreachable = try await show.cli.run(["search", "x"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.hasPrefix("Error: search failed: \(searchURL) is unreachable"))
        show.cli.removeHome()
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        let cli = try CLI()
        let badLimit = try await cli.run(["search", "x", "--limit", "0"])
        #expect(badLimit.status == 64)
        #expect(badLimit.stderr.contains("--limit must be between 1 and 200, not 0."))
        let badCountry = try await cli.run(["search", "x", "--country", "germany"])
        #expect(badCountry.status == 64)
        cli.removeHome()
    }
}
