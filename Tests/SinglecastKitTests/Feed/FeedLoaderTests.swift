import Foundation
import Synchronization
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

    @Test func aSmallBodyArrivesWholeBeforeItsParseAndALargeOneWhileItIsParsed() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/small.xml", data: Self.feed(items: 600, notesBytes: 0), contentType: "application/rss+xml")
        // 1,200 items of 1 kB are more than is read ahead.
        server.serve(path: "/large.xml", data: Self.feed(items: 1200, notesBytes: 1000), contentType: "application/rss+xml")
        let session = HTTPSession(configuration: HTTPSession.Configuration())
        func events(_ path: String) async throws -> [String] {
            let log = Mutex<[String]>([])
            guard case .body(let body) = try await FeedLoader(session: session).fetch(server.url(path), validators: nil) else {
                return ["not modified"]
            }
            let (feed, _, _) = try await body.parse(
                episodes: { _ in log.withLock { $0.append("episodes") } },
                received: { log.withLock { $0.append("received") } })
            return log.withLock { $0 } + (feed.episodes.isEmpty ? [] : ["episodes"])
        }
        let small = await Result(catching: { try await events("/small.xml") })
        let large = await Result(catching: { try await events("/large.xml") })
        try await session.shutdown()
        try await server.stop()
        // The whole small body has arrived before any of its episodes are parsed.
        #expect(try small.get() == ["received", "episodes"])
        // The large body is still arriving while its first episodes are handed over.
        let largeEvents = try large.get()
        #expect(largeEvents.first == "episodes")
        #expect(largeEvents.filter { $0 == "received" }.count == 1)
        #expect(largeEvents.count >= 3)
    }

    /// An RSS feed of `items` items, each with show notes of `notesBytes` bytes.
    private static func feed(items: Int, notesBytes: Int) -> Data {
        let notes = String(repeating: "n", count: notesBytes)
        let body = (1...items).map { item in
            "<item><title>Episode \(item)</title><guid>episode-\(item)</guid><description>\(notes)</description>"
                + "<enclosure url=\"https://example.com/\(item).mp3\" length=\"1\" type=\"audio/mpeg\"/></item>"
        }
        return Data("<rss version=\"2.0\"><channel><title>Sizes</title>\(body.joined())</channel></rss>".utf8)
    }

    @Test func aFileOfManyReadsIsParsedInOrderAsAWhole() async throws {
        // 3,000 items of 1 kB: three reads of a megabyte and a last short one.
        let data = Self.feed(items: 3000, notesBytes: 1000)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-large-\(UUID().uuidString).xml")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let batches = Mutex<[[Episode]]>([])
        let loaded = try await FeedLoader.load(file: file, episodes: { batch in batches.withLock { $0.append(batch) } })
        let whole = try FeedParser.parse(data, baseURL: nil, source: file.path)
        let handedOver = batches.withLock { $0 }
        #expect(handedOver.count > 1)
        #expect(handedOver.flatMap { $0 } + loaded.episodes == whole.episodes)
        #expect(whole.episodes.count == 3000)
    }

    @Test func aFileThatCannotBeReadNamesThePath() async {
        let folder = FileManager.default.temporaryDirectory.path
        await #expect(throws: FeedError.unreadableFile(path: folder, detail: "Is a directory")) {
            try await FeedLoader.load(file: URL(fileURLWithPath: folder))
        }
    }

    @Test func aMissingFileNamesThePath() async {
        await #expect(throws: FeedError.unreadableFile(path: "/nonexistent/feed.xml", detail: "No such file or directory")) {
            try await FeedLoader.load(file: URL(fileURLWithPath: "/nonexistent/feed.xml"))
        }
    }
}
