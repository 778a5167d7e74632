import Foundation

/// What a FEED or PODCAST argument names.
///
/// - `@N`: subscription N as `podcasts` numbers them;
/// - `N`: result N of the last search;
/// - an `http(s)` URL: that feed;
/// - a `file://` URL, the path of an existing file, or text that reads as a path (it holds a
///   `/` or ends in `.xml`, `.rss` or `.atom`): a local feed;
/// - any other text: the one subscription whose title contains it (case-insensitive).
public enum FeedReference: Equatable, Sendable {
    case subscription(number: Int)
    case searchResult(Int)
    case url(URL)
    case file(URL)
    case title(String)

    /// Reads an argument; `fileExists` tells whether a path names a file.
    public init(_ text: String, fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) {
        if text.hasPrefix("@"), let number = Int(text.dropFirst()) {
            self = .subscription(number: number)
        } else if let number = Int(text) {
            self = .searchResult(number)
        } else if let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil,
            scheme == "http" || scheme == "https"
        {
            self = .url(url)
        } else if let url = URL(string: text), url.isFileURL {
            self = .file(url)
        } else if fileExists(text) || text.contains("/")
            || [".xml", ".rss", ".atom"].contains(where: { text.lowercased().hasSuffix($0) })
        {
            self = .file(URL(fileURLWithPath: text))
        } else {
            self = .title(text)
        }
    }
}

/// Turns references into stored podcasts and episode numbers into download requests: what
/// the command line does with its arguments, for any Swift program.
public struct FeedResolver: Sendable {
    public let library: Library
    public let session: HTTPSession

    public init(library: Library, session: HTTPSession) {
        self.library = library
        self.session = session
    }

    /// Fetches or reads the feed a reference names and saves it; a subscription named by
    /// number or title is listed from the library, without network access. The podcast
    /// becomes the current one.
    public func load(_ reference: FeedReference) async throws -> SavedFeed {
        switch reference {
        case .searchResult(let number):
            let result = try await library.searchResult(number: number)
            guard let url = result.feedURL else {
                throw LibraryError.searchResultWithoutFeed(number: number, title: result.title)
            }
            return try await fetch(url)
        case .url(let url):
            return try await fetch(url)
        case .file(let file):
            return try await library.saveFeed(feedKey: file.standardizedFileURL.absoluteString) { save in
                try await FeedLoader.load(file: file, episodes: { try await save.add($0) })
            }
        case .subscription, .title:
            return try await stored(try await library.podcast(matching: reference))
        }
    }

    /// A stored podcast as a saved feed, made the current podcast.
    public func stored(_ podcast: StoredPodcast) async throws -> SavedFeed {
        try await library.setCurrentPodcast(id: podcast.id)
        return SavedFeed(
            podcast: podcast, episodeCount: try await library.episodeCount(podcastID: podcast.id), addedCount: 0,
            warnings: [])
    }

    /// Fetches and saves a feed, remembering the response's validators for the next update.
    private func fetch(_ url: URL) async throws -> SavedFeed {
        guard case .body(let body) = try await FeedLoader(session: session).fetch(url, validators: nil) else {
            throw HTTPError(.status(304), url: url)
        }
        return try await library.saveFeed(feedKey: body.permanentURL.absoluteString) { save in
            let (feed, validators, _) = try await body.parse(episodes: { try await save.add($0) })
            await save.remember(validators)
            return feed
        }
    }

    /// The download requests for episodes numbered as the podcast lists them, all checked
    /// before anything starts.
    public static func requests(numbers: [Int], podcast: StoredPodcast, entries: [EpisodeEntry]) throws -> [DownloadRequest] {
        try numbers.map { number in
            guard entries.indices.contains(number - 1) else {
                throw LibraryError.noSuchEpisode(number: number, podcast: podcast.podcast.title, count: entries.count)
            }
            let episode = entries[number - 1].episode
            guard let enclosure = episode.enclosure else {
                throw LibraryError.episodeWithoutAudio(number: number, title: episode.title)
            }
            return DownloadRequest(podcastTitle: podcast.podcast.title, episode: episode, enclosure: enclosure)
        }
    }
}

extension Library {
    /// The stored podcast a PODCAST reference names: a subscription by number or title, or
    /// any stored podcast by feed URL or file. Never touches the network.
    public func podcast(matching reference: FeedReference) async throws -> StoredPodcast {
        let subscriptions = try await subscriptions()
        let names = subscriptions.map { "@\($0.number) \($0.podcast.podcast.title)" }
        switch reference {
        case .subscription(let number):
            guard let match = subscriptions.first(where: { $0.number == number }) else {
                throw LibraryError.noSuchPodcast(reference: "@\(number)", candidates: names)
            }
            return match.podcast
        case .url(let url):
            guard let stored = try await podcast(feedKey: url.absoluteString) else {
                throw LibraryError.noSuchPodcast(reference: url.absoluteString, candidates: names)
            }
            return stored
        case .file(let file):
            guard let stored = try await podcast(feedKey: file.standardizedFileURL.absoluteString) else {
                throw LibraryError.noSuchPodcast(reference: file.path, candidates: names)
            }
            return stored
        case .searchResult(let number):
            return try await podcast(matching: .title(String(number)))
        case .title(let text):
            let matches = subscriptions.filter { $0.podcast.podcast.title.localizedCaseInsensitiveContains(text) }
            if matches.count == 1 { return matches[0].podcast }
            let exact = matches.filter { $0.podcast.podcast.title.caseInsensitiveCompare(text) == .orderedSame }
            if exact.count == 1 { return exact[0].podcast }
            if matches.isEmpty { throw LibraryError.noSuchPodcast(reference: text, candidates: names) }
            throw LibraryError.ambiguousPodcast(
                reference: text, candidates: matches.map { "@\($0.number) \($0.podcast.podcast.title)" })
        }
    }

}
