import Foundation
import GRDB

/// What a feed's last response said about its version, for the next conditional fetch.
public struct FeedValidators: Equatable, Sendable {
    public var etag: String?
    public var lastModified: String?
    /// A hash of the body, for servers that send no validators.
    public var bodyHash: Int64?

    public init(etag: String? = nil, lastModified: String? = nil, bodyHash: Int64? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.bodyHash = bodyHash
    }

    func store(podcastID: Int64, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE podcast SET etag = ?, lastModified = ?, bodyHash = ? WHERE id = ?")
            .execute(arguments: [etag, lastModified, bodyHash, podcastID])
    }
}

/// A subscription as `podcasts` lists it: numbered, with its counts.
public struct PodcastSummary: Equatable, Sendable {
    /// The number `podcasts` shows (`@N` on the command line), from 1, in order of subscription.
    public var number: Int
    public var podcast: StoredPodcast
    /// The episodes the feed lists now.
    public var episodeCount: Int
    public var newCount: Int
    /// The episodes the feed lists that are not played.
    public var unplayedCount: Int
    /// The episodes whose files are complete.
    public var downloadedCount: Int
    /// The validators of the last fetch.
    public var validators: FeedValidators
}

/// A new episode, with its podcast.
public struct NewEpisode: Equatable, Sendable {
    public var podcast: StoredPodcast
    public var entry: EpisodeEntry
}

extension Library {
    // MARK: - Subscriptions

    /// Subscribes to a stored podcast, or changes the settings of a subscription: a setting
    /// given as nil stays as it is (a new subscription keeps every file, downloads nothing
    /// by itself and queues nothing). A new subscription marks only the podcast's most recent
    /// episode new, so that a first `update --download` does not fetch the back catalogue.
    /// With `queueNew`, each episode an update adds goes to the end of the queue.
    /// Returns whether the podcast was not subscribed before.
    @discardableResult
    public func subscribe(
        podcastID: Int64, keep: Retention? = nil, autoDownload: AutoDownload? = nil, queueNew: Bool? = nil
    ) async throws -> Bool {
        try await writer.write { db in
            let wasSubscribed = !(try Self.subscribe(podcastID: podcastID, db: db))
            if let keep {
                try db.execute(sql: "UPDATE podcast SET keepEpisodes = ? WHERE id = ?", arguments: [keep.count, podcastID])
            }
            if let autoDownload {
                try db.execute(
                    sql: "UPDATE podcast SET autoDownload = ? WHERE id = ?", arguments: [autoDownload.rawValue, podcastID])
            }
            if let queueNew {
                try db.execute(sql: "UPDATE podcast SET queueNew = ? WHERE id = ?", arguments: [queueNew, podcastID])
            }
            return !wasSubscribed
        }
    }

    /// Subscribes to a stored podcast with the default settings; returns whether it was not
    /// subscribed before (then only its most recent episode is new).
    static func subscribe(podcastID: Int64, db: Database) throws -> Bool {
        let wasSubscribed = try Bool.fetchOne(
            db, sql: "SELECT subscribedAt IS NOT NULL FROM podcast WHERE id = ?", arguments: [podcastID]) ?? false
        try db.execute(
            sql: "UPDATE podcast SET subscribedAt = COALESCE(subscribedAt, ?) WHERE id = ?",
            arguments: [StoredDate.databaseValue(Date()), podcastID])
        if !wasSubscribed {
            try db.execute(sql: "UPDATE episode SET isNew = 0 WHERE podcastId = ? AND isNew", arguments: [podcastID])
            try Self.markMostRecentNew(podcastID: podcastID, db: db)
        }
        return !wasSubscribed
    }

    /// Subscribes, in one transaction, to feeds that have not been fetched yet (an OPML import):
    /// the first update fetches each and marks its most recent episode new. Returns the
    /// podcasts' ids.
    public func addSubscriptions(_ feeds: [(feedURL: URL, title: String)]) async throws -> [Int64] {
        try await writer.write { db in
            let now = StoredDate.databaseValue(Date())
            return try feeds.map { feed in
                let key = feed.feedURL.absoluteString
                try db.cachedStatement(sql: "INSERT INTO podcast (feedKey, title) VALUES (?, ?) ON CONFLICT(feedKey) DO NOTHING")
                    .execute(arguments: [key, feed.title])
                try db.cachedStatement(sql: "UPDATE podcast SET subscribedAt = COALESCE(subscribedAt, ?) WHERE feedKey = ?")
                    .execute(arguments: [now, key])
                return try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM podcast WHERE feedKey = ?"), arguments: [key])!
            }
        }
    }

    /// Marks the podcast's most recently published episode new; returns how many it marked (0 or 1).
    @discardableResult
    static func markMostRecentNew(podcastID: Int64, db: Database) throws -> Int {
        try db.cachedStatement(
            sql: """
                UPDATE episode SET isNew = 1 WHERE id = (
                  SELECT id FROM episode WHERE podcastId = ? AND position IS NOT NULL
                  ORDER BY published IS NULL, published DESC, position LIMIT 1)
                """
        ).execute(arguments: [podcastID])
        return db.changesCount
    }

    /// Takes back a subscription just added whose feed turned out unusable: a podcast that
    /// lists no episodes leaves the library, one known before is only unsubscribed.
    public func withdrawSubscription(podcastID: Int64) async throws {
        try await writer.write { db in
            try Self.unsubscribe(podcastID: podcastID, db: db)
            try db.execute(
                sql: "DELETE FROM podcast WHERE id = ? AND NOT EXISTS (SELECT 1 FROM episode WHERE podcastId = ?)",
                arguments: [podcastID, podcastID])
        }
    }

    /// Ends a subscription. The podcast, its episodes and their files stay in the library.
    public func unsubscribe(podcastID: Int64) async throws {
        try await writer.write { db in try Self.unsubscribe(podcastID: podcastID, db: db) }
    }

    static func unsubscribe(podcastID: Int64, db: Database) throws {
        try db.execute(
            sql: """
                UPDATE podcast SET subscribedAt = NULL, etag = NULL, lastModified = NULL, bodyHash = NULL,
                  updateStatus = NULL, updateDetail = NULL WHERE id = ?
                """,
            arguments: [podcastID])
        try db.execute(sql: "UPDATE episode SET isNew = 0 WHERE podcastId = ? AND isNew", arguments: [podcastID])
    }

    /// Every subscription, numbered in order of subscription, with its counts.
    public func subscriptions() async throws -> [PodcastSummary] {
        try await writer.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(PodcastColumns.selection), \(PodcastCounts.selection)
                    FROM podcast JOIN podcastCounts ON podcastCounts.podcastId = podcast.id
                    WHERE subscribedAt IS NOT NULL ORDER BY subscribedAt, id
                    """)
            var summaries: [PodcastSummary] = []
            while let row = try rows.next() {
                let counts = PodcastCounts.read(row, from: PodcastColumns.count)
                summaries.append(
                    PodcastSummary(
                        number: summaries.count + 1, podcast: PodcastColumns.storedPodcast(from: row),
                        episodeCount: counts.episodes, newCount: counts.new, unplayedCount: counts.unplayed,
                        downloadedCount: counts.downloaded, validators: PodcastColumns.validators(from: row)))
            }
            return summaries
        }
    }

    /// Records how an update of a subscription went; returns the podcast as it is now.
    @discardableResult
    public func recordUpdate(podcastID: Int64, _ result: UpdateResult, validators: FeedValidators? = nil) async throws
        -> StoredPodcast?
    {
        try await writer.write { db in
            try Self.record(result, podcastID: podcastID, db: db)
            try validators?.store(podcastID: podcastID, db: db)
            return try Self.podcast(db, id: podcastID)
        }
    }

    /// Stores a subscription's new feed URL, for a feed that moved for good while its content
    /// stayed the same (its new URL answered 304 Not Modified); the validators stay valid.
    /// Throws when another podcast is stored under that URL.
    public func recordMove(podcastID: Int64, to feedKey: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE podcast SET feedKey = ? WHERE id = ?", arguments: [feedKey, podcastID])
        }
    }

    /// Records how an update of a subscription went (its status, and when it last succeeded).
    static func record(_ result: UpdateResult, podcastID: Int64, db: Database) throws {
        let detail: String?
        switch result.status {
        // A failure is kept as a value (JSON of UpdateFailure); rows from before hold a sentence.
        case .failed(let failure): detail = failure.storedText
        case .moved(let from, _): detail = from
        case .ok, .notModified, .gone: detail = nil
        }
        let succeeded: Bool
        switch result.status {
        case .ok, .notModified, .moved: succeeded = true
        case .gone, .failed: succeeded = false
        }
        let at = StoredDate.databaseValue(result.at)
        try db.cachedStatement(
            sql: """
                UPDATE podcast SET updateStatus = ?, updateDetail = ?, updatedAt = ?,
                  lastSuccessAt = CASE WHEN ? THEN ? ELSE lastSuccessAt END WHERE id = ?
                """
        ).execute(arguments: [result.status.name, detail, at, succeeded, at, podcastID])
    }

    // MARK: - New and deleted episodes

    /// The new episodes of every subscription, newest first.
    public func newEpisodes() async throws -> [NewEpisode] {
        try await writer.read { db in
            let downloads = try Self.downloadsByEnclosureURL(db)
            var podcasts: [Int64: StoredPodcast] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(EpisodeColumns.entrySelection()), episode.podcastId
                    FROM \(EpisodeColumns.withPlayback) JOIN podcast ON podcast.id = episode.podcastId
                    WHERE episode.isNew AND podcast.subscribedAt IS NOT NULL
                    ORDER BY episode.published IS NULL, episode.published DESC, podcast.id, episode.position
                    """)
            let found = try Array(
                rows.map { row in
                    (podcastID: row[EpisodeColumns.entryColumnCount] as Int64, entry: EpisodeColumns.entry(from: row, downloads: downloads))
                })
            return try found.map { podcastID, entry in
                if podcasts[podcastID] == nil { podcasts[podcastID] = try Self.podcast(db, id: podcastID) }
                return NewEpisode(podcast: podcasts[podcastID]!, entry: entry)
            }
        }
    }

    /// Clears the new mark of the given episodes.
    public func markOld(episodeIDs: [Int64]) async throws {
        try await writer.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE episode SET isNew = 0 WHERE id = ?")
            for id in episodeIDs { try statement.execute(arguments: [id]) }
        }
    }

    /// Records that the user deleted the files of these episodes, so that updates never
    /// download them again.
    public func markDeleted(episodeIDs: [Int64]) async throws {
        try await writer.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE episode SET isDeleted = 1 WHERE id = ?")
            for id in episodeIDs { try statement.execute(arguments: [id]) }
        }
    }

    /// Records the episodes with these enclosure URLs as deleted by retention.
    static func markDeleted(enclosureURLs: [String], db: Database) throws {
        let statement = try db.cachedStatement(sql: "UPDATE episode SET isDeleted = 1 WHERE enclosureURL = ?")
        for url in enclosureURLs { try statement.execute(arguments: [url]) }
    }
}

// MARK: - Timed updates

extension Library {
    /// When the last timed update (`update --if-due`) that ran began; nil before the first.
    public func lastTimedUpdate() async throws -> Date? {
        try await writer.read { db in
            try Double.fetchOne(db, sql: "SELECT CAST(value AS REAL) FROM setting WHERE key = 'lastTimedUpdate'")
                .map { Date(timeIntervalSince1970: $0) }
        }
    }

    /// Records that a timed update began at `date`.
    public func recordTimedUpdate(at date: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('lastTimedUpdate', ?)",
                arguments: [String(date.timeIntervalSince1970)])
        }
    }
}
