import Foundation

/// Fetches a feed over HTTP or reads it from a file, and parses it in the same pass:
/// bytes go to the streaming parser as they arrive, never held whole.
///
/// A file's episodes can be handed on in batches while the rest is parsed (`episodes:`), so
/// that the caller can store them at the same time; the returned `Feed` then holds only the
/// episodes parsed after the last batch.
public struct FeedLoader: Sendable {
    /// The largest feed accepted, to bound time and memory on hostile servers.
    public static let maximumFeedSize = 512 * 1_048_576

    private let session: HTTPSession

    public init(session: HTTPSession) {
        self.session = session
    }

    /// Fetches and parses the feed at `url`. The returned feed's `podcast.feedURL` is the
    /// URL to remember: the final one after permanent redirects.
    public func load(_ url: URL) async throws -> Feed {
        let response = try await session.get(
            url, headers: [("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")])
        guard (200..<300).contains(response.status) else {
            throw HTTPError(.status(response.status), url: response.finalURL)
        }
        let parser = FeedParser(baseURL: response.finalURL, source: url.absoluteString)
        var received = 0
        do {
            for try await buffer in response.body {
                received += buffer.readableBytes
                guard received <= Self.maximumFeedSize else {
                    throw HTTPError(.bodyTooLarge(Self.maximumFeedSize), url: response.finalURL)
                }
                try buffer.withUnsafeReadableBytes { try parser.parse($0) }
            }
        } catch let error as FeedError {
            throw error
        } catch {
            throw HTTPError.wrapping(error, url: response.finalURL)
        }
        var feed = try parser.finish()
        feed.podcast.feedURL = response.permanentURL
        return feed
    }

    /// Reads and parses the feed in the file at `file`, 64 KiB at a time.
    public static func load(file: URL, episodes: ([Episode]) -> Void = { _ in }) throws -> Feed {
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
            handOn(parser, to: episodes)
        }
        var feed = try parser.finish()
        feed.podcast.feedURL = nil
        return feed
    }

    private static func handOn(_ parser: FeedParser, to episodes: ([Episode]) -> Void) {
        let batch = parser.takeEpisodes()
        if !batch.isEmpty { episodes(batch) }
    }

    private static func describe(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(posix.code)))
        }
        return (error as NSError).localizedDescription
    }
}
