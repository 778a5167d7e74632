import Foundation
import GRDB

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

    /// Whether it names a podcast the library holds (by number or title), which is listed
    /// from the library without reading a feed.
    public var isInLibrary: Bool {
        switch self {
        case .subscription, .title: true
        case .searchResult, .url, .file: false
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
    /// number or title is listed from the library, without network access. With
    /// `makeCurrent` (what listing a podcast does) the podcast becomes the current one, which
    /// bare episode numbers then refer to; a command that names a podcast for itself leaves the
    /// current one as it was.
    public func load(_ reference: FeedReference, makeCurrent: Bool = false) async throws -> SavedFeed {
        var options = Library.SaveOptions()
        options.makeCurrent = makeCurrent
        switch reference {
        case .searchResult(let number):
            let result: SearchResult
            do {
                result = try await library.searchResult(number: number)
            } catch LibraryError.noSuchSearchResult(number, let count) {
                guard case .success(let meant) = try await library.podcasts(matching: [.subscription(number: number)])[0] else {
                    throw LibraryError.noSuchSearchResult(number: number, count: count)
                }
                throw LibraryError.noSuchSearchResultButSubscription(number: number, count: count, subscription: meant.podcast.title)
            }
            guard let url = result.feedURL else {
                throw LibraryError.searchResultWithoutFeed(number: number, title: result.title)
            }
            return try await fetch(url, options: options)
        case .url(let url):
            return try await fetch(url, options: options)
        case .file(let file):
            var options = options
            options.inOneTransaction = true
            return try await library.saveFeed(feedKey: file.standardizedFileURL.absoluteString, options: options) { save in
                try await FeedLoader.load(file: file, episodes: { try await save.add($0) })
            }
        case .subscription, .title:
            return try await stored(try await library.podcast(matching: reference), makeCurrent: makeCurrent)
        }
    }

    /// A stored podcast as a saved feed, made the current podcast with `makeCurrent`.
    public func stored(_ podcast: StoredPodcast, makeCurrent: Bool = false) async throws -> SavedFeed {
        if makeCurrent { try await library.setCurrentPodcast(id: podcast.id) }
        return SavedFeed(
            podcast: podcast, episodeCount: try await library.episodeCount(podcastID: podcast.id), addedCount: 0,
            warnings: [])
    }

    /// Fetches and saves a feed, remembering the response's validators for the next update.
    private func fetch(_ url: URL, options: Library.SaveOptions) async throws -> SavedFeed {
        guard case .body(let body) = try await FeedLoader(session: session).fetch(url, validators: nil) else {
            throw HTTPError(.status(304), url: url)
        }
        return try await library.saveFeed(feedKey: body.permanentURL.absoluteString, options: options) { save in
            let (feed, validators, _) = try await body.parse(episodes: { try await save.add($0) })
            await save.remember(validators)
            return feed
        }
    }

    /// The download requests for episodes numbered as the podcast lists them, all checked
    /// before anything starts: the first number that names no episode with audio fails them all.
    public static func requests(numbers: [Int], podcast: StoredPodcast, entries: [EpisodeEntry]) throws -> [DownloadRequest] {
        let choice = choose(numbers: numbers, podcast: podcast, entries: entries)
        if let skipped = choice.skipped.first { throw skipped }
        return choice.requests
    }

    /// The download requests for the episodes numbered that can be downloaded, and for each
    /// number that cannot, why (no such episode, no audio), in the order given.
    public static func choose(numbers: [Int], podcast: StoredPodcast, entries: [EpisodeEntry]) -> EpisodeChoice {
        var choice = EpisodeChoice()
        for number in numbers {
            guard entries.indices.contains(number - 1) else {
                choice.skipped.append(.noSuchEpisode(number: number, podcast: podcast.podcast.title, count: entries.count))
                continue
            }
            let episode = entries[number - 1].episode
            guard let enclosure = episode.enclosure else {
                choice.skipped.append(.episodeWithoutAudio(number: number, title: episode.title))
                continue
            }
            choice.requests.append(DownloadRequest(podcastTitle: podcast.podcast.title, episode: episode, enclosure: enclosure))
        }
        return choice
    }
}

/// The episodes a command asked for by number: those it can act on, and the others with why.
public struct EpisodeChoice: Sendable {
    public var requests: [DownloadRequest] = []
    public var skipped: [LibraryError] = []

    public init() {}
}

extension Library {
    /// The stored podcast a PODCAST reference names: a subscription by number or title, or
    /// any stored podcast by feed URL or file. Never touches the network.
    public func podcast(matching reference: FeedReference) async throws -> StoredPodcast {
        try await podcasts(matching: [reference])[0].get()
    }

    /// The stored podcasts several PODCAST references name, in their order, every one resolved
    /// against one reading of the library before the caller changes anything: `@2` stays the
    /// podcast `podcasts` listed as @2 after @1 is unsubscribed. Each reference gets its podcast
    /// or the failure naming it.
    ///
    /// A title is looked for among the subscriptions first, then among the podcasts only listed
    /// (kept in the library after `episodes FEED` or `unsubscribe`).
    public func podcasts(matching references: [FeedReference]) async throws -> [Result<StoredPodcast, LibraryError>] {
        try await writer.read { db in
            // Names only: a podcast's whole row is read once it is the one named.
            let subscribed = try PodcastName.fetchAll(
                db, sql: "SELECT id, title FROM podcast WHERE subscribedAt IS NOT NULL ORDER BY subscribedAt, id")
            let numbers = Dictionary(uniqueKeysWithValues: subscribed.enumerated().map { ($0.element.id, $0.offset + 1) })
            let label = { (podcast: PodcastName) in numbers[podcast.id].map { "@\($0) \(podcast.title)" } ?? podcast.title }
            let names = { subscribed.map(label) }
            let stored = { (found: Result<PodcastName, LibraryError>) throws -> Result<StoredPodcast, LibraryError> in
                switch found {
                case .failure(let failure): return .failure(failure)
                case .success(let podcast):
                    return try Self.podcast(db, id: podcast.id).map { .success($0) }
                        ?? .failure(.noSuchPodcast(reference: podcast.title, candidates: names()))
                }
            }
            var listedOnly: [PodcastName]?
            return try references.map { reference -> Result<StoredPodcast, LibraryError> in
                switch reference {
                case .subscription(let number):
                    guard subscribed.indices.contains(number - 1) else {
                        return .failure(.noSuchPodcast(reference: "@\(number)", candidates: names()))
                    }
                    return try stored(.success(subscribed[number - 1]))
                case .url(let url):
                    let found = try Self.podcast(db, feedKey: url.absoluteString)
                    return found.map { .success($0) } ?? .failure(.noSuchPodcast(reference: url.absoluteString, candidates: names()))
                case .file(let file):
                    let found = try Self.podcast(db, feedKey: file.standardizedFileURL.absoluteString)
                    return found.map { .success($0) } ?? .failure(.noSuchPodcast(reference: file.path, candidates: names()))
                case .searchResult(let number):
                    return try stored(Self.podcast(titled: String(number), in: subscribed, names: names, label: label))
                case .title(let text):
                    let found = Self.podcast(titled: text, in: subscribed, names: names, label: label)
                    guard case .failure(.noSuchPodcast) = found else { return try stored(found) }
                    if listedOnly == nil {
                        listedOnly = try PodcastName.fetchAll(
                            db, sql: "SELECT id, title FROM podcast WHERE subscribedAt IS NULL ORDER BY id")
                    }
                    let other = Self.podcast(titled: text, in: listedOnly ?? [], names: names, label: label)
                    if case .failure(.noSuchPodcast) = other { return try stored(found) }
                    return try stored(other)
                }
            }
        }
    }

    /// A podcast as a reference is matched against it: its id and title.
    private struct PodcastName: FetchableRecord {
        var id: Int64
        var title: String

        init(row: Row) {
            id = row[0]
            title = row[1]
        }
    }

    /// The one podcast of `podcasts` whose title contains `text` (case-insensitive), or the one
    /// whose title it is when several contain it.
    private static func podcast(
        titled text: String, in podcasts: [PodcastName], names: () -> [String], label: (PodcastName) -> String
    ) -> Result<PodcastName, LibraryError> {
        let matches = podcasts.filter { $0.title.localizedCaseInsensitiveContains(text) }
        if matches.count == 1 { return .success(matches[0]) }
        let exact = matches.filter { $0.title.caseInsensitiveCompare(text) == .orderedSame }
        if exact.count == 1 { return .success(exact[0]) }
        if matches.isEmpty { return .failure(.noSuchPodcast(reference: text, candidates: names())) }
        return .failure(.ambiguousPodcast(reference: text, candidates: matches.map(label)))
    }
}
