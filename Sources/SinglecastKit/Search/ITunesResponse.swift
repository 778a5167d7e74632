import Foundation

/// The JSON the iTunes Search API answers with. Every field but the name can be
/// missing; `genreIds` are strings; dates are ISO 8601.
struct ITunesResponse: Decodable {
    struct Item: Decodable {
        var collectionId: Int?
        var trackId: Int?
        var collectionName: String?
        var trackName: String?
        var artistName: String?
        var feedUrl: String?
        var trackCount: Int?
        var primaryGenreName: String?
        var genreIds: [String]?
        var releaseDate: String?
        var artworkUrl600: String?
        var artworkUrl100: String?
        var artworkUrl60: String?
        var artworkUrl30: String?
    }

    var resultCount: Int?
    var results: [Item]

    /// The results as Singlecast shows them, numbered from 1.
    func searchResults() -> [SearchResult] {
        results.enumerated().map { index, item in
            SearchResult(
                number: index + 1,
                collectionId: item.collectionId ?? item.trackId,
                title: item.collectionName ?? item.trackName ?? "Untitled",
                artist: item.artistName,
                feedURL: item.feedUrl.flatMap(URL.init(string:)),
                episodeCount: item.trackCount,
                genre: item.primaryGenreName,
                artworkURL: [item.artworkUrl600, item.artworkUrl100, item.artworkUrl60, item.artworkUrl30]
                    .lazy.compactMap { $0.flatMap(URL.init(string:)) }.first,
                releaseDate: item.releaseDate.flatMap(Self.parseDate)
            )
        }
    }

    private static func parseDate(_ text: String) -> Date? {
        try? Date(text, strategy: .iso8601)
    }
}
