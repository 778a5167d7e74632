import ArgumentParser
import Foundation
import SinglecastKit

/// What a FEED argument names: a result of the last search, a URL, or a local file.
enum FeedArgument {
    case searchResult(Int)
    case url(URL)
    case file(URL)

    init(_ text: String) throws {
        if let number = Int(text) {
            guard number > 0 else { throw ValidationError("'\(text)' is not a search result number.") }
            self = .searchResult(number)
        } else if let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil,
            scheme == "http" || scheme == "https"
        {
            self = .url(url)
        } else if let url = URL(string: text), url.isFileURL {
            self = .file(url)
        } else {
            self = .file(URL(fileURLWithPath: text))
        }
    }

    /// Fetches or reads the feed and saves it in the library as the current podcast, storing
    /// episodes while the rest is parsed. Returns it as saved.
    func load(library: Library, global: GlobalOptions) async throws -> SavedFeed {
        let saved: SavedFeed
        switch self {
        case .searchResult(let number):
            let result = try library.searchResult(number: number)
            guard let url = result.feedURL else {
                throw LibraryError.searchResultWithoutFeed(number: number, title: result.title)
            }
            saved = try await Self.fetch(url, into: library, global: global)
        case .url(let url):
            saved = try await Self.fetch(url, into: library, global: global)
        case .file(let file):
            saved = try await library.saveFeed(feedKey: file.standardizedFileURL.absoluteString) { handOn in
                try FeedLoader.load(file: file, episodes: handOn)
            }
        }
        for warning in saved.warnings {
            printError("warning: \(warning)")
        }
        return saved
    }

    private static func fetch(_ url: URL, into library: Library, global: GlobalOptions) async throws -> SavedFeed {
        try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
            // Parsed whole before saving: storing while the body streams in would hold the
            // library's write lock for as long as the network takes.
            let feed = try await FeedLoader(session: session).load(url)
            return try library.saveFeed(feed, feedKey: (feed.podcast.feedURL ?? url).absoluteString)
        }
    }
}
