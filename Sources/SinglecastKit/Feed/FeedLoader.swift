import Foundation
import NIOCore

/// Fetches a feed over HTTP or reads it from a file, and parses it in the same pass:
/// bytes go to the streaming parser as they arrive; no more than ``readAhead`` bytes of a
/// feed are ever held.
public struct FeedLoader: Sendable {
    /// The largest feed accepted, to bound time and memory on hostile servers.
    public static let maximumFeedSize = 512 * 1_048_576

    private let session: HTTPSession

    public init(session: HTTPSession) {
        self.session = session
    }

    /// Receives a feed's episodes, in document order, a batch at a time as they are parsed.
    public typealias EpisodeBatches = @Sendable ([Episode]) async throws -> Void

    /// How many episodes a batch holds.
    static let batchSize = 512

    /// How much of a body is read before its parse begins (see ``FeedBody/parse(episodes:received:)``).
    static let readAhead = 512 * 1024

    /// What a conditional fetch found.
    public enum Fetch: Sendable {
        /// The server answered 304 Not Modified; `permanentURL` is the URL to remember for the
        /// feed, as for a body: a 301 or 308 chain is a move whatever its final answer.
        case notModified(permanentURL: URL)
        /// The feed's response, whose body is still to be read.
        case body(FeedBody)
    }

    /// A successful response to a feed's request, whose body is read by ``parse(episodes:received:)``.
    public struct FeedBody: Sendable {
        fileprivate let response: HTTPSession.Response
        fileprivate let source: String
        fileprivate let previousBodyHash: Int64?

        /// The URL to remember for the feed: the final one after permanent redirects.
        public var permanentURL: URL { response.permanentURL }

        /// Parses the body as it arrives (hashing it when the server sends no validators of
        /// its own), handing its episodes to `episodes` in batches when given (the returned
        /// feed then holds only those not handed over). `received` runs once the whole body
        /// has arrived: a body of up to ``FeedLoader/readAhead`` bytes is read whole before it
        /// is parsed, so that its connection can serve another request meanwhile.
        /// Returns the feed, the response's validators, and whether the body is the same as
        /// the one the previous validators' ``FeedValidators/bodyHash`` describes.
        public func parse(episodes: EpisodeBatches? = nil, received: @Sendable () async -> Void = {}) async throws
            -> (Feed, FeedValidators, sameBody: Bool)
        {
            let etag = response.headers.first(name: "ETag")
            let lastModified = response.headers.first(name: "Last-Modified")
            var hash: StableHash? = etag == nil && lastModified == nil ? StableHash() : nil
            var reader = BatchingParser(FeedParser(baseURL: response.finalURL, source: source), episodes: episodes)
            var size = 0
            func consume(_ buffer: ByteBuffer) async throws {
                try buffer.withUnsafeReadableBytes { bytes in
                    hash?.mixBytes(bytes)
                    try reader.parser.parse(bytes)
                }
                try await reader.handOver()
            }
            do {
                var body = response.body.makeAsyncIterator()
                func next() async throws -> ByteBuffer? {
                    guard let buffer = try await body.next() else { return nil }
                    size += buffer.readableBytes
                    guard size <= FeedLoader.maximumFeedSize else {
                        throw HTTPError(.bodyTooLarge(FeedLoader.maximumFeedSize), url: response.finalURL)
                    }
                    return buffer
                }
                var ahead: [ByteBuffer] = []
                var isWhole = false
                while size < FeedLoader.readAhead {
                    guard let buffer = try await next() else {
                        isWhole = true
                        break
                    }
                    ahead.append(buffer)
                }
                if isWhole { await received() }
                for buffer in ahead { try await consume(buffer) }
                ahead = []
                while let buffer = try await next() { try await consume(buffer) }
                if !isWhole { await received() }
            } catch let error as FeedError {
                throw error
            } catch {
                throw HTTPError.wrapping(error, url: response.finalURL)
            }
            var feed = try reader.finish()
            feed.podcast.feedURL = response.permanentURL
            let bodyHash = hash.map { Int64(bitPattern: $0.value) }
            let validators = FeedValidators(etag: etag, lastModified: lastModified, bodyHash: bodyHash)
            return (feed, validators, bodyHash != nil && previousBodyHash == bodyHash)
        }
    }

    /// Fetches the feed at `url` and parses it whole. The returned feed's `podcast.feedURL` is
    /// the URL to remember: the final one after permanent redirects.
    public func load(_ url: URL) async throws -> Feed {
        guard case .body(let body) = try await fetch(url, validators: nil) else {
            throw HTTPError(.status(304), url: url)
        }
        return try await body.parse().0
    }

    /// Requests `url` with `If-None-Match`/`If-Modified-Since` from `validators`; the body is
    /// left to ``FeedBody/parse(episodes:)``.
    public func fetch(_ url: URL, validators: FeedValidators?) async throws -> Fetch {
        var headers = [("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")]
        if let etag = validators?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = validators?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let response = try await session.get(url, headers: headers)
        if response.status == 304 { return .notModified(permanentURL: response.permanentURL) }
        guard (200..<300).contains(response.status) else {
            throw HTTPError(.status(response.status), url: response.finalURL)
        }
        return .body(FeedBody(response: response, source: url.redacted, previousBodyHash: validators?.bodyHash))
    }

    /// Reads and parses the feed in the file at `file`, a megabyte at a time read on the
    /// blocking-IO threads (the next while one is parsed), handing its episodes to `episodes`
    /// in batches when given.
    public static func load(file: URL, episodes: EpisodeBatches? = nil) async throws -> Feed {
        let path = file.path
        let descriptor = try await OffPool.run {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FeedError.unreadableFile(path: path, detail: String(cString: strerror(errno))) }
            return descriptor
        }
        defer { Glibc.close(descriptor) }
        @Sendable func nextChunk() async throws -> [UInt8]? {
            try await OffPool.run { try readChunk(descriptor, path: path) }
        }
        var reader = BatchingParser(FeedParser(baseURL: nil, source: file.path), episodes: episodes)
        var chunk = try await nextChunk()
        while let current = chunk {
            // The next megabyte is read while this one is parsed.
            async let following = nextChunk()
            try current.withUnsafeBytes { try reader.parser.parse($0) }
            try await reader.handOver()
            chunk = try await following
        }
        var feed = try reader.finish()
        feed.podcast.feedURL = nil
        return feed
    }

    /// The next megabyte of the file open as `descriptor` (less at its end), nil at its end.
    /// It reads with `read(2)` into a buffer it does not clear first: Foundation's `FileHandle`
    /// reads 4 KiB a call, and appends each to the `Data` it returns.
    private static func readChunk(_ descriptor: Int32, path: String) throws -> [UInt8]? {
        let chunk = try [UInt8](unsafeUninitializedCapacity: 1 << 20) { buffer, count in
            count = 0
            while count < buffer.count {
                let read = Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                if read == 0 { break }
                if read < 0 {
                    if errno == EINTR { continue }
                    throw FeedError.unreadableFile(path: path, detail: String(cString: strerror(errno)))
                }
                count += read
            }
        }
        return chunk.isEmpty ? nil : chunk
    }
}

/// A parser whose completed episodes go to a receiver in batches, when there is one.
private struct BatchingParser {
    let parser: FeedParser
    let episodes: FeedLoader.EpisodeBatches?
    private var batch: [Episode] = []

    init(_ parser: FeedParser, episodes: FeedLoader.EpisodeBatches?) {
        self.parser = parser
        self.episodes = episodes
    }

    /// Hands over the episodes completed so far once they make a batch.
    mutating func handOver() async throws {
        guard let episodes else { return }
        if batch.isEmpty {
            batch = parser.takeEpisodes()  // moved, not copied episode by episode
        } else {
            batch.append(contentsOf: parser.takeEpisodes())
        }
        guard batch.count >= FeedLoader.batchSize else { return }
        let full = batch
        batch = []
        try await episodes(full)
    }

    /// The feed, with the episodes not handed over yet.
    func finish() throws -> Feed {
        var feed = try parser.finish()
        feed.episodes = batch + feed.episodes
        return feed
    }
}
