import Foundation

/// Fetches a feed over HTTP or reads it from a file, and parses it in the same pass:
/// bytes go to the streaming parser as they arrive, never held whole.
public struct FeedLoader: Sendable {
    /// The largest feed accepted, to bound time and memory on hostile servers.
    public static let maximumFeedSize = 512 * 1_048_576

    private let session: HTTPSession

    public init(session: HTTPSession) {
        self.session = session
    }

    /// What a conditional fetch found.
    public enum Fetch: Sendable {
        /// The server answered 304 Not Modified.
        case notModified
        /// The feed, its response's validators (with a hash of the body when the server sent
        /// none), and whether the body is the same as the one ``FeedValidators/bodyHash`` describes.
        case fetched(Feed, FeedValidators, sameBody: Bool)
    }

    /// Fetches and parses the feed at `url`. The returned feed's `podcast.feedURL` is the
    /// URL to remember: the final one after permanent redirects.
    public func load(_ url: URL) async throws -> Feed {
        guard case .fetched(let feed, _, _) = try await fetch(url, validators: nil) else {
            throw HTTPError(.status(304), url: url)
        }
        return feed
    }

    /// Fetches `url` with `If-None-Match`/`If-Modified-Since` from `validators`, and parses the
    /// body as it arrives (hashing it when the server sends no validators of its own). The feed's `podcast.feedURL` is the URL to
    /// remember: the final one after permanent redirects.
    public func fetch(_ url: URL, validators: FeedValidators?) async throws -> Fetch {
        var headers = [("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")]
        if let etag = validators?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = validators?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let response = try await session.get(url, headers: headers)
        if response.status == 304 { return .notModified }
        guard (200..<300).contains(response.status) else {
            throw HTTPError(.status(response.status), url: response.finalURL)
        }
        let parser = FeedParser(baseURL: response.finalURL, source: url.redacted)
        let etag = response.headers.first(name: "ETag")
        let lastModified = response.headers.first(name: "Last-Modified")
        var hash: StableHash? = etag == nil && lastModified == nil ? StableHash() : nil
        var received = 0
        do {
            for try await buffer in response.body {
                received += buffer.readableBytes
                guard received <= Self.maximumFeedSize else {
                    throw HTTPError(.bodyTooLarge(Self.maximumFeedSize), url: response.finalURL)
                }
                try buffer.withUnsafeReadableBytes { bytes in
                    hash?.mixBytes(bytes)
                    try parser.parse(bytes)
                }
            }
        } catch let error as FeedError {
            throw error
        } catch {
            throw HTTPError.wrapping(error, url: response.finalURL)
        }
        var feed = try parser.finish()
        feed.podcast.feedURL = response.permanentURL
        let bodyHash = hash.map { Int64(bitPattern: $0.value) }
        let fetched = FeedValidators(etag: etag, lastModified: lastModified, bodyHash: bodyHash)
        return .fetched(feed, fetched, sameBody: bodyHash != nil && validators?.bodyHash == bodyHash)
    }

    /// Reads and parses the feed in the file at `file`, 64 KiB at a time, on the blocking-IO
    /// threads.
    public static func load(file: URL) async throws -> Feed {
        try await OffPool.run { try loadBlocking(file: file) }
    }

    private static func loadBlocking(file: URL) throws -> Feed {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw FeedError.unreadableFile(path: file.path, detail: Self.describe(error))
        }
        defer { try? handle.close() }
        let parser = FeedParser(baseURL: nil, source: file.path)
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 65_536)
            } catch {
                throw FeedError.unreadableFile(path: file.path, detail: Self.describe(error))
            }
            guard let chunk, !chunk.isEmpty else { break }
            try chunk.withUnsafeBytes { try parser.parse($0) }
        }
        var feed = try parser.finish()
        feed.podcast.feedURL = nil
        return feed
    }

    private static func describe(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(posix.code)))
        }
        return (error as NSError).localizedDescription
    }
}
