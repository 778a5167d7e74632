import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search the iTunes podcast directory.",
            discussion: "The results are remembered: `singlecast episodes 2` opens result 2."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The words to search for.")
        var term: [String]

        @Option(help: "How many results to ask for (1-200).")
        var limit = 20

        @Option(help: "The two-letter store country, such as us or de.")
        var country: String?

        @Flag(help: "Print the results as JSON.")
        var json = false

        func validate() throws {
            guard !term.joined().trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("Give something to search for.")
            }
            guard (1...200).contains(limit) else {
                throw ValidationError("--limit must be between 1 and 200, not \(limit).")
            }
            if let country, country.count != 2 || !country.allSatisfy(\.isLetter) {
                throw ValidationError("--country takes a two-letter code such as us, not '\(country)'.")
            }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let baseURL = global.environment["SINGLECAST_ITUNES_URL"].flatMap(URL.init(string:))
                ?? PodcastSearch.defaultBaseURL
            let results = try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                try await PodcastSearch(session: session, baseURL: baseURL)
                    .search(term: term.joined(separator: " "), limit: limit, country: country?.lowercased())
            }
            try await library.replaceSearchResults(results)
            if json {
                try printJSON(results.map(SearchResultJSON.init))
            } else if results.isEmpty {
                print("No podcasts found for \"\(term.joined(separator: " "))\".")
            } else {
                print(SearchTable.render(results, width: TTY.outputWidth))
            }
        }
    }
}

/// The `--json` shape of a search result.
struct SearchResultJSON: Encodable {
    var number: Int
    var collectionId: Int?
    var title: String
    var artist: String?
    var feedURL: String?
    var episodeCount: Int?
    var genre: String?
    var artworkURL: String?
    var releaseDate: Date?

    init(_ result: SearchResult) {
        number = result.number
        collectionId = result.collectionId
        title = result.title
        artist = result.artist
        feedURL = result.feedURL?.redacted
        episodeCount = result.episodeCount
        genre = result.genre
        artworkURL = result.artworkURL?.redacted
        releaseDate = result.releaseDate
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(collectionId, forKey: .collectionId)
        try container.encode(title, forKey: .title)
        try container.encode(artist, forKey: .artist)
        try container.encode(feedURL, forKey: .feedURL)
        try container.encode(episodeCount, forKey: .episodeCount)
        try container.encode(genre, forKey: .genre)
        try container.encode(artworkURL, forKey: .artworkURL)
        try container.encode(releaseDate, forKey: .releaseDate)
    }

    private enum CodingKeys: String, CodingKey {
        case number, collectionId, title, artist, feedURL, episodeCount, genre, artworkURL, releaseDate
    }
}
