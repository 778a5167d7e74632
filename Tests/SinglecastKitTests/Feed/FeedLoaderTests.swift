import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct FeedLoaderTests {
    @Test func readsAFileAsTheParserDoesItsBytes() async throws {
        let loaded = try await FeedLoader.load(file: Fixtures.url("feeds/truncated.xml"))
        let whole = try FeedParser.parse(try Fixtures.data("feeds/truncated.xml"), baseURL: nil, source: "truncated.xml")
        #expect(loaded.episodes == whole.episodes)
        #expect(whole.episodes.count == 2)
        #expect(loaded.warnings == [FeedWarning(kind: .cutOff(inside: "title"), source: Fixtures.url("feeds/truncated.xml").path, line: 14)])
    }

    @Test func inflatesAGzipEncodedFeed() async throws {
        let server = try await TestServer.start()
        server.serve(
            path: "/feed.xml", data: try Fixtures.data("feeds/rss-itunes.xml.gz"),
            contentType: "application/rss+xml", contentEncoding: "gzip")
        var configuration = HTTPSession.Configuration()
        configuration.acceptsCompression = true
        let session = HTTPSession(configuration: configuration)
        let url = server.url("/feed.xml")
        let loaded: Result<Feed, any Error>
        do {
            loaded = .success(try await FeedLoader(session: session).load(url))
        } catch {
            loaded = .failure(error)
        }
        try await session.shutdown()
        try await server.stop()
        let feed = try loaded.get()
        let plain = try FeedParser.parse(try Fixtures.data("feeds/rss-itunes.xml"), baseURL: url, source: "rss-itunes.xml")
        #expect(feed.podcast.title == "Swift on Linux")
        #expect(feed.podcast.title == plain.podcast.title)
        #expect(feed.episodes.map(\.title) == ["Episode 2: Concurrency", "Episode 1: Hello"])
        #expect(feed.episodes == plain.episodes)
        let request = try #require(server.requests(for: "/feed.xml").first)
        #expect(request.header("Accept-Encoding")?.contains("gzip") == true)
    }

    @Test func aMissingFileNamesThePath() async {
        await #expect(throws: FeedError.unreadableFile(path: "/nonexistent/feed.xml", detail: "No such file or directory")) {
            try await FeedLoader.load(file: URL(fileURLWithPath: "/nonexistent/feed.xml"))
        }
    }
}
