import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct FeedLoaderTests {
    /// Batches handed on while parsing, collected in order.
    private final class Batches: Sendable {
        let episodes = Mutex<[[Episode]]>([])
    }

    @Test func handsOnEpisodesWhileParsingAndKeepsCountingForWarnings() throws {
        let batches = Batches()
        let rest = try FeedLoader.load(file: Fixtures.url("feeds/truncated.xml")) { batch in
            batches.episodes.withLock { $0.append(batch) }
        }
        let handedOn = batches.episodes.withLock { $0.flatMap { $0 } }
        let whole = try FeedParser.parse(try Fixtures.data("feeds/truncated.xml"), baseURL: nil, source: "truncated.xml")
        #expect(handedOn + rest.episodes == whole.episodes)
        #expect(whole.episodes.count == 2)
        #expect(rest.warnings.count == 1)
        #expect(rest.warnings.first?.contains("kept the 2 complete episodes") == true)
    }

    @Test func aMissingFileNamesThePath() {
        #expect(throws: FeedError.unreadableFile(path: "/nonexistent/feed.xml", detail: "No such file or directory")) {
            try FeedLoader.load(file: URL(fileURLWithPath: "/nonexistent/feed.xml"))
        }
    }
}
