import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct ITunesResponseTests {
    private func decode(_ fixture: String) throws -> [SearchResult] {
        try JSONDecoder().decode(ITunesResponse.self, from: Fixtures.data(fixture)).searchResults()
    }

    @Test func decodesTheRealShapeWithLeadingBlankLines() throws {
        let results = try decode("itunes/search-accidental-tech.json")
        #expect(results.count == 3)
        let first = results[0]
        #expect(first.number == 1)
        #expect(first.collectionId == 617416468)
        #expect(first.title == "Accidental Tech Podcast")
        #expect(first.artist == "Marco Arment, Casey Liss, John Siracusa")
        #expect(first.feedURL == URL(string: "https://atp.fm/rss"))
        #expect(first.episodeCount == 590)
        #expect(first.genre == "Technology")
        #expect(first.artworkURL == URL(string: "https://is1-ssl.mzstatic.com/image/thumb/Podcasts/600x600bb.jpg"))
        #expect(first.releaseDate == Date(timeIntervalSince1970: 1_717_103_280))
    }

    @Test func decodesAResultWithMissingFields() throws {
        let sparse = try decode("itunes/search-accidental-tech.json")[1]
        #expect(sparse.number == 2)
        #expect(sparse.title == "Accidental Tech Talk (Archive)")
        #expect(sparse.artist == nil)
        #expect(sparse.feedURL == nil)
        #expect(sparse.episodeCount == nil)
        #expect(sparse.genre == nil)
        #expect(sparse.artworkURL == nil)
        #expect(sparse.releaseDate == nil)
    }

    @Test func decodesAnEmptyAnswer() throws {
        #expect(try decode("itunes/search-no-results.json").isEmpty)
    }

    @Test func searchURLEncodesTheTerm() async throws {
        let session = HTTPSession()
        let search = PodcastSearch(session: session, baseURL: URL(string: "http://127.0.0.1:9")!)
        let url = search.url(term: "c++ & swift/ü", limit: 5, country: "de")
        #expect(url.absoluteString == "http://127.0.0.1:9/search?term=c%2B%2B%20%26%20swift/%C3%BC&media=podcast&entity=podcast&limit=5&country=de")
        try await session.shutdown()
    }
}
