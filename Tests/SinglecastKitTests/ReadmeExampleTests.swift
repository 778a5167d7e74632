import Foundation
import Testing
import TestSupport

import SinglecastKit

/// The README's "Using SinglecastKit" example, compiled and run against a local server.
@Suite(.timeLimit(.minutes(1))) struct ReadmeExampleTests {
    /// The example, word for word as the README shows it (between the markers).
    static func example(directory: URL, searchBaseURL: URL) async throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // README example begins
        let library = try await Library.open(directory: directory)
        let session = HTTPSession()
        let results = try await PodcastSearch(session: session, baseURL: searchBaseURL).search(term: "loopback")
        let saved = try await FeedResolver(library: library, session: session).load(.url(results[0].feedURL!))
        let entries = try await library.episodes(podcastID: saved.podcast.id)
        for entry in entries {
            print(entry.number, entry.episode.title)
        }
        let requests = try FeedResolver.requests(numbers: [1], podcast: saved.podcast, entries: entries)
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: directory))
        let engine = DownloadEngine(buffer: buffer, transfer: FileTransfer(session: session))
        try await engine.enqueue(requests)
        Task {
            await engine.waitUntilIdle()
            engine.finishEvents()
        }
        for await event in engine.events {
            switch event {
            case .progress(_, let received, let total): print("received", received, "of", total ?? 0)
            case .completed(let download): print("done", download.file)
            default: break
            }
        }
        try await session.shutdown()
        // README example ends
        return printed
    }

    @Test func theExampleRunsAsTheReadmeShowsIt() async throws {
        let server = try await TestServer.start()
        let feedURL = server.url("/show.xml").absoluteString
        let search = #"{"resultCount":1,"results":[{"collectionId":1,"collectionName":"Loopback","feedUrl":"\#(feedURL)"}]}"#
        server.serve(path: "/search", data: Data(search.utf8), contentType: "application/json")
        let feed = """
            <rss version="2.0"><channel><title>Loopback</title>
            <item><title>First</title><guid>1</guid><enclosure url="/first.mp3" length="300000" type="audio/mpeg"/></item>
            </channel></rss>
            """
        server.serve(path: "/show.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        server.serve(path: "/first.mp3", generatedSize: 300_000, contentType: "audio/mpeg")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-readme-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }

        let printed = try await Self.example(directory: folder, searchBaseURL: server.url("/"))
        try await server.stop()

        #expect(printed.first == "1 First")
        #expect(printed.contains { $0.hasPrefix("received") && $0.hasSuffix("of 300000") })
        let file = folder.appendingPathComponent("Episodes/Loopback/First.mp3").path
        #expect(printed.last == "done \(file)")
        #expect(FileManager.default.contents(atPath: file)?.count == 300_000)
    }

    /// The README block's first lines, which the test gives `example` as its parameters.
    static let readmePrelude = """
        import Foundation
        import SinglecastKit

        let directory = URL(fileURLWithPath: "/tmp/podcasts")
        let searchBaseURL = PodcastSearch.defaultBaseURL
        """

    /// The Swift block of the README's "Using SinglecastKit" section is the prelude and the
    /// example between the markers, line for line (indentation included).
    @Test func theReadmeShowsThisExample() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8).components(separatedBy: "\n")
        let begin = try #require(source.firstIndex { $0.hasSuffix("// README example begins") })
        let end = try #require(source.firstIndex { $0.hasSuffix("// README example ends") })
        let indentation = String(repeating: " ", count: 8)
        let example = source[(begin + 1)..<end].map { $0.hasPrefix(indentation) ? String($0.dropFirst(indentation.count)) : $0 }

        let readme = try String(contentsOf: Fixtures.directory.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
            .components(separatedBy: "\n")
        let section = try #require(readme.firstIndex(of: "## Using SinglecastKit"))
        let open = try #require(readme[section...].firstIndex(of: "```swift"))
        let close = try #require(readme[(open + 1)...].firstIndex(of: "```"))
        let block = readme[(open + 1)..<close].joined(separator: "\n")

        #expect(block == Self.readmePrelude + "\n" + example.joined(separator: "\n"))
    }
}
