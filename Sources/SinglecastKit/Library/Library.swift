import Foundation
import GRDB

/// The library database: search results, podcasts, episodes and the progress buffer.
///
/// A `Sendable` value over a GRDB writer; the schema is migrated when it opens.
public struct Library: Sendable {
    let writer: any DatabaseWriter

    /// Opens (creating if needed) `library.sqlite` in `directory`.
    public init(directory: URL) throws {
        let path = directory.appendingPathComponent("library.sqlite").path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.journalMode = .wal
            // Several singlecast processes may share one library.
            configuration.busyMode = .timeout(15)
            // In WAL mode, NORMAL never corrupts the database and survives a crashed or killed
            // process; only a power cut may lose the last commits, which the progress buffer
            // rebuilds from the files on disk anyway.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // 8 MiB of page cache instead of 2: a large feed's episode index then fits, and
                // its pages are not written to the log again and again as they are evicted.
                try db.execute(sql: "PRAGMA cache_size = -8192")
            }
            try self.init(writer: DatabaseQueue(path: path, configuration: configuration))
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError.unusableDatabase(path: path, detail: "\(error)")
        }
    }

    /// A library that lives in memory only, for tests.
    public static func inMemory() throws -> Library {
        try Library(writer: DatabaseQueue())
    }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    // MARK: - Search results

    /// Replaces the remembered search results with `results`.
    public func replaceSearchResults(_ results: [SearchResult]) throws {
        try writer.write { db in
            try SearchResult.deleteAll(db)
            for result in results { try result.insert(db) }
        }
    }

    /// The result numbered `number` of the last search.
    public func searchResult(number: Int) throws -> SearchResult {
        try writer.read { db in
            if let result = try SearchResult.fetchOne(db, key: number) { return result }
            throw LibraryError.noSuchSearchResult(number: number, count: try SearchResult.fetchCount(db))
        }
    }

    // MARK: - Podcasts and episodes

    /// Saves a parsed feed under `feedKey`; see ``saveFeed(feedKey:from:)``.
    @discardableResult
    public func saveFeed(_ feed: Feed, feedKey: String) throws -> SavedFeed {
        let stream = EpisodeStream()
        stream.finish(feed)
        return try saveFeed(feedKey: feedKey, from: stream)
    }

    /// Saves a feed under `feedKey` as its episodes arrive from `stream`, in one transaction:
    /// episodes are updated by identity (never duplicated, unchanged ones left untouched), and
    /// the podcast becomes the current one. Nothing is stored when the stream fails.
    /// Blocks until the stream ends; returns the stored podcast and its episodes in feed order.
    ///
    /// The new pages stay in SQLite's write-ahead log when the transaction commits: copying
    /// them into the database file (tens of megabytes for a large feed) is left to
    /// ``checkpoint()``, which a caller can run while it does other work, or else to closing
    /// the library.
    public func saveFeed(feedKey: String, from stream: EpisodeStream) throws -> SavedFeed {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            defer { try? db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.autocheckpointPages)") }
            var saved: SavedFeed?
            try db.inTransaction {
                saved = try Self.saveFeed(feedKey: feedKey, from: stream, db: db)
                return .commit
            }
            return saved!
        }
    }

    /// SQLite's default: a commit that leaves the log this many pages long copies them back.
    private static let autocheckpointPages = 1000

    /// Copies the pages that saves left in SQLite's write-ahead log into the database file and
    /// empties the log, on a thread of its own (after a large feed, a few tens of milliseconds
    /// the caller can spend printing). It cannot fail a command: a checkpoint that another
    /// process's writing keeps from running is done by a later one, or when the library closes.
    public func checkpoint() async {
        let writer = self.writer
        try? await Self.onOwnThread {
            try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
    }

    private static func saveFeed(feedKey: String, from stream: EpisodeStream, db: Database) throws -> SavedFeed {
        try db.execute(
            sql: "INSERT INTO podcast (feedKey, title) VALUES (?, '') ON CONFLICT(feedKey) DO NOTHING",
            arguments: [feedKey])
        let podcastID = try Int64.fetchOne(db, sql: "SELECT id FROM podcast WHERE feedKey = ?", arguments: [feedKey])!
        var saver = try EpisodeColumns.Saver(podcastID: podcastID, db: db)
        // The listing is built batch by batch too, so that it is ready when the last one is stored.
        let downloads = try Self.downloadsByEnclosureURL(db)
        var entries: [EpisodeEntry] = []
        var finished: Feed?
        while finished == nil {
            let batch: [Episode]
            switch try stream.next() {
            case .episodes(let episodes):
                batch = episodes
            case .finished(let feed):
                batch = feed.episodes
                finished = feed
            }
            try saver.save(batch)
            for episode in batch {
                entries.append(Self.entry(number: entries.count + 1, episode: episode, downloads: downloads))
            }
        }
        try saver.finish()
        let podcast = finished!.podcast
        try db.execute(
            sql: """
                UPDATE podcast SET title = ?, link = ?, description = ?, author = ?, imageURL = ?,
                  newFeedURL = ?, refreshedAt = ? WHERE id = ?
                """,
            arguments: [
                podcast.title, podcast.link?.absoluteString, podcast.description, podcast.author,
                podcast.imageURL?.absoluteString, podcast.newFeedURL?.absoluteString, Date(), podcastID,
            ])
        try db.execute(
            sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('currentPodcast', ?)",
            arguments: [podcastID])
        return SavedFeed(
            podcast: try Self.podcast(db, where: "id = ?", podcastID)!, episodes: entries,
            warnings: finished!.warnings)
    }

    /// Parses and saves a feed at the same time: `parse` runs here and hands batches of episodes
    /// to its argument, while they are stored on a thread of their own. Nothing is stored when
    /// `parse` throws.
    public func saveFeed(
        feedKey: String, parsing parse: (_ handOn: @escaping @Sendable ([Episode]) -> Void) async throws -> Feed
    ) async throws -> SavedFeed {
        let stream = EpisodeStream()
        let library = self
        async let saved = Self.onOwnThread { try library.saveFeed(feedKey: feedKey, from: stream) }
        do {
            stream.finish(try await parse { stream.send($0) })
        } catch {
            stream.fail(error)
            _ = try? await saved
            throw error
        }
        return try await saved
    }

    /// Runs `body` on a new thread (it blocks on the episode stream, which must not tie up
    /// one of the few threads that run tasks).
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// The podcast listed last, which episode numbers refer to.
    public func currentPodcast() throws -> StoredPodcast? {
        try writer.read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'currentPodcast'") else {
                return nil
            }
            return try Self.podcast(db, where: "id = ?", id)
        }
    }

    /// The podcast stored under `feedKey`, if any.
    public func podcast(feedKey: String) throws -> StoredPodcast? {
        try writer.read { db in try Self.podcast(db, where: "feedKey = ?", feedKey) }
    }

    /// The episodes of a podcast in feed order, each with its progress-buffer entry.
    public func episodes(podcastID: Int64) throws -> [EpisodeEntry] {
        try writer.read { db in
            let downloads = try Self.downloadsByEnclosureURL(db)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT * FROM episode WHERE podcastId = ? AND position IS NOT NULL ORDER BY position",
                arguments: [podcastID])
            var entries: [EpisodeEntry] = []
            while let row = try rows.next() {
                entries.append(
                    Self.entry(number: row["position"], episode: EpisodeColumns.episode(from: row), downloads: downloads))
            }
            return entries
        }
    }

    // MARK: - Helpers

    private static func podcast(_ db: Database, where condition: String, _ value: any DatabaseValueConvertible) throws -> StoredPodcast? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM podcast WHERE \(condition)", arguments: [value]) else {
            return nil
        }
        let feedKey: String = row["feedKey"]
        let podcast = Podcast(
            title: row["title"], link: url(row["link"]), description: row["description"],
            author: row["author"], imageURL: url(row["imageURL"]),
            feedURL: feedKey.hasPrefix("file:") ? nil : URL(string: feedKey),
            newFeedURL: url(row["newFeedURL"]))
        return StoredPodcast(id: row["id"], feedKey: feedKey, podcast: podcast)
    }

    private static func entry(number: Int, episode: Episode, downloads: [String: DownloadRecord]) -> EpisodeEntry {
        EpisodeEntry(number: number, episode: episode, download: episode.enclosure.flatMap { downloads[$0.url] })
    }

    private static func downloadsByEnclosureURL(_ db: Database) throws -> [String: DownloadRecord] {
        Dictionary(try DownloadRecord.fetchAll(db).map { ($0.enclosureURL, $0) }) { first, _ in first }
    }

    static func url(_ text: String?) -> URL? {
        text.flatMap(URL.init(string:))
    }
}
