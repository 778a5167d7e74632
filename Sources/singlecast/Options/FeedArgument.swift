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

    /// Fetches or reads the feed, saves it in the library as the current podcast, and
    /// returns it as stored, with its episodes.
    func load(library: Library, global: GlobalOptions) async throws -> (podcast: StoredPodcast, episodes: [EpisodeEntry]) {
        let feed: Feed
        let feedKey: String
        switch self {
        case .searchResult(let number):
            let result = try library.searchResult(number: number)
            guard let url = result.feedURL else {
                throw LibraryError.searchResultWithoutFeed(number: number, title: result.title)
            }
            feed = try await Self.fetch(url, global: global)
            feedKey = feed.podcast.feedURL?.absoluteString ?? url.absoluteString
        case .url(let url):
            feed = try await Self.fetch(url, global: global)
            feedKey = feed.podcast.feedURL?.absoluteString ?? url.absoluteString
        case .file(let file):
            feed = try FeedLoader.load(file: file)
            feedKey = file.standardizedFileURL.absoluteString
        }
        for warning in feed.warnings {
            printError("warning: \(warning)")
        }
        return try library.saveFeed(feed, feedKey: feedKey)
    }

    private static func fetch(_ url: URL, global: GlobalOptions) async throws -> Feed {
        try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
            try await FeedLoader(session: session).load(url)
        }
    }
}
