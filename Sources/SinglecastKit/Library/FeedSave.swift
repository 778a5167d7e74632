import Foundation
import GRDB
import Synchronization

/// A feed being saved while it is parsed: episodes are handed over in batches as the parser
/// completes them, stored on the library's writer thread while the parser goes on, and
/// become the podcast's listing at ``commit(_:)`` in one short transaction, or leave no trace
/// at ``discard()``.
///
/// No transaction stays open while the feed is fetched or parsed, so a slow server never
/// holds the library's write lock: each batch is stored in a transaction of its own. A feed
/// read from a local file, which no server can stall, is stored in one transaction instead
/// (``Library/SaveOptions/inOneTransaction``), on a connection of the save's own. A podcast
/// that has episodes already gets its changed and new episodes staged in a temporary table
/// (an unchanged episode in the same position costs no write at all) and merged at the
/// commit; a podcast with none yet gets its episodes written as they come, and removed again
/// (or rolled back with the one transaction) if the save is discarded.
public actor FeedSave {
    /// The library's writer, which the saves under way share.
    private let writer: any DatabaseWriter
    /// The save's own connection, holding its one transaction, once it is open (see
    /// ``Library/SaveOptions/inOneTransaction``).
    private let ownConnection = Mutex<DatabaseQueue?>(nil)
    private let deferral: CheckpointDeferral
    private let feedKey: String
    private let options: Library.SaveOptions
    /// What the first job on the writer did.
    private let begun = Mutex(Begun())
    private let state: Mutex<EpisodeColumns.Saver>
    /// Works out the episodes' keys, batch after batch in feed order (see ``add(_:)``).
    private let keyMaker = Mutex(EpisodeColumns.KeyMaker())
    /// The jobs handed to the writer and not yet done, oldest first: the podcast's row and
    /// what the library holds of its episodes, then the batches, each waiting for the one
    /// before, so batches are stored in feed order while the parser goes on.
    private var pending: [Task<Void, any Error>] = []
    /// How many batches may wait to be stored before the parser waits for the oldest: a few,
    /// so that several feeds parsed at once share the writer without stalling one another.
    private static let batchesInFlight = 4
    private var isOver = false
    /// The validators of the response the feed came in, remembered at the commit.
    private var validators: FeedValidators?

    /// Begins the save without waiting for the library's writer: the caller can parse at once.
    init(library: Library, feedKey: String, options: Library.SaveOptions, stagingTable: String) async {
        let writer = library.writer
        let deferral = library.checkpointDeferral
        self.writer = writer
        self.deferral = deferral
        self.options = options
        self.feedKey = feedKey
        self.state = Mutex(EpisodeColumns.Saver(stagingTable: stagingTable, marksAddedNew: options.newEpisodes == .added))
        self.validators = options.validators
        // The podcast's row, and what the library holds of its episodes (tens of thousands of
        // rows for a large feed), are read while the caller begins to parse: the first batch
        // waits for them.
        guard options.inOneTransaction else {
            pending = [Task { [writer] in try await writer.writeWithoutTransaction(self.begin) }]
            return
        }
        pending = [
            Task {
                // A library in memory has no file to open another connection to.
                guard let connection = try await OffPool.run({ try library.openSaveConnection() }) else {
                    try await writer.writeWithoutTransaction(self.begin)
                    return
                }
                self.ownConnection.withLock { $0 = connection }
                try await connection.writeWithoutTransaction { db in
                    try db.beginTransaction(.immediate)
                    self.state.withLock { $0.holdsTransaction = true }
                    try self.readPodcast(db)
                }
            }
        ]
    }

    /// The first job on the library's writer: no checkpoint until the save ends, the podcast's
    /// row, and what the library holds of its episodes.
    private nonisolated func begin(_ db: Database) throws {
        begun.withLock { $0.holdsCheckpoints = true }
        try deferral.begin(db)
        try readPodcast(db)
    }

    /// Finds or creates the podcast's row, and reads what the library holds of its episodes.
    /// In the save's one transaction, a new podcast's row is inserted at the commit instead
    /// (``Begun/insertsPodcastAtCommit``).
    private nonisolated func readPodcast(_ db: Database) throws {
        let insertsAtCommit = state.withLock { $0.holdsTransaction }
        let podcast = try Self.podcastRow(feedKey: feedKey, options: options, insertsAtCommit: insertsAtCommit, db: db)
        begun.withLock {
            $0.podcast = podcast
            $0.insertsPodcastAtCommit = insertsAtCommit && podcast.created
        }
        try state.withLock { try $0.readStored(podcastID: podcast.id, db: db) }
    }

    /// Where the save's jobs run: its own connection, or the library's writer.
    private nonisolated var connection: any DatabaseWriter {
        ownConnection.withLock { $0 } ?? writer
    }

    /// What the first job of a save on the writer did.
    private struct Begun {
        /// Whether it called ``CheckpointDeferral/begin(_:)``, which the end of the save matches.
        var holdsCheckpoints = false
        /// The podcast's row, and whether the save created it (removed again by ``discard()``).
        var podcast: (id: Int64, created: Bool)?
        /// Whether the new podcast's row is inserted at the commit, under the id the save
        /// holds for it. The pages a row changes at the start of a transaction and again at
        /// its end would be written to the log twice once the cache had spilled them, and
        /// SQLite would then read the whole log back at the commit to checksum it again.
        var insertsPodcastAtCommit = false
    }

    /// The podcast's row: the one given, the one of the feed's key, or a new one; with
    /// `insertsAtCommit`, a new one's id only, which the transaction under way holds until the
    /// row is inserted (no other connection can write meanwhile).
    private static func podcastRow(feedKey: String, options: Library.SaveOptions, insertsAtCommit: Bool, db: Database) throws
        -> (id: Int64, created: Bool)
    {
        if let id = options.podcastID { return (id, false) }
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM podcast WHERE feedKey = ?", arguments: [feedKey]) {
            return (id, false)
        }
        guard !insertsAtCommit else {
            // The id AUTOINCREMENT would give.
            let id = try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(IFNULL((SELECT seq FROM sqlite_sequence WHERE name = 'podcast'), 0),
                               IFNULL((SELECT MAX(id) FROM podcast), 0)) + 1
                    """)!
            return (id, true)
        }
        try db.execute(sql: "INSERT INTO podcast (feedKey, title) VALUES (?, '')", arguments: [feedKey])
        return (db.lastInsertedRowID, true)
    }

    /// Remembers the validators of the response the feed came in, for the next conditional
    /// fetch (stored at the commit).
    public func remember(_ validators: FeedValidators) {
        self.validators = validators
    }

    /// Stores the next episodes of the feed, in feed order, while the caller parses on.
    /// Waits only when several batches are still to be stored.
    public func add(_ episodes: [Episode]) async throws {
        if pending.count >= Self.batchesInFlight {
            try await pending.removeFirst().value
        }
        guard !episodes.isEmpty else { return }
        let previous = pending.last
        pending.append(
            Task {
                try await previous?.value
                // Worked out here rather than before the parser goes on: the parser's task is
                // what a large feed's save waits for, and the keys come in feed order all the same.
                let keys = self.keyMaker.withLock { $0.keys(of: episodes) }
                try await self.connection.writeWithoutTransaction { db in
                    try self.state.withLock { saver in try saver.add(episodes, keys: keys, db: db) }
                }
            })
    }

    /// Returns once every batch handed over is stored.
    public func flush() async throws {
        let batches = pending
        pending = []
        for batch in batches { try await batch.value }
    }

    /// Stores the feed's last episodes and makes the podcast what the feed says, in one
    /// transaction: its episodes in feed order (those gone from the feed keep their rows and
    /// files, without a number), its details, the validators of the response and the update
    /// of the subscription that the save is.
    public func commit(_ feed: Feed) async throws -> SavedFeed {
        try await flush()
        let lastEpisodes = feed.episodes
        let lastKeys = keyMaker.withLock { $0.keys(of: lastEpisodes) }
        let (podcastID, insertsPodcast) = begun.withLock { ($0.podcast!.id, $0.insertsPodcastAtCommit) }
        let feedKey = self.feedKey
        let options = self.options
        let validators = self.validators
        let deferral = self.deferral
        let holdsTransaction = state.withLock { $0.holdsTransaction }
        let (podcast, markedNew) = try await connection.writeWithoutTransaction { db in
            func finish() throws -> (StoredPodcast, Int) {
                if insertsPodcast {
                    try db.execute(
                        sql: "INSERT INTO podcast (id, feedKey, title) VALUES (?, ?, '')", arguments: [podcastID, feedKey])
                }
                let added = try self.state.withLock { saver in
                    try saver.write(lastEpisodes, keys: lastKeys, db: db)
                    return try saver.merge(db: db)
                }
                var markedNew = 0
                if options.newEpisodes == .mostRecent && added > 0 {
                    markedNew = try Library.markMostRecentNew(podcastID: podcastID, db: db)
                }
                try Library.storeDetails(feed.podcast, podcastID: podcastID, feedKey: feedKey, db: db)
                // Positions another device synced for episodes that were not here yet.
                try Library.applyWaitingSyncActions(podcastID: podcastID, db: db)
                try validators?.store(podcastID: podcastID, db: db)
                if let update = options.update {
                    try Library.record(update, podcastID: podcastID, db: db)
                }
                if options.makeCurrent {
                    try Library.setCurrentPodcast(podcastID, db: db)
                }
                try PodcastCounts.recount(podcastID: podcastID, db: db)
                return (try Library.podcast(db, id: podcastID)!, markedNew)
            }
            guard !holdsTransaction else {
                // The transaction the save began with: ended here whatever happens.
                do {
                    let finished = try finish()
                    try db.commit()
                    return finished
                } catch {
                    try? db.rollback()
                    throw error
                }
            }
            var finished: (StoredPodcast, Int)?
            try db.inTransaction {
                finished = try finish()
                return .commit
            }
            deferral.end(db)
            return finished!
        }
        await closeOwnConnection()
        isOver = true
        let (added, count) = self.state.withLock { ($0.addedCount, $0.episodeCount) }
        // Every episode an update adds is marked new as it is written; a first fetch marks one at the end.
        let newCount = options.newEpisodes == .added ? added : markedNew
        return SavedFeed(podcast: podcast, episodeCount: count, addedCount: added, newCount: newCount, warnings: feed.warnings)
    }

    /// Leaves the library as it was before the save (for a podcast that had no episodes, its
    /// episodes written so far are removed). Does nothing after a commit.
    public func discard() async {
        for batch in pending { _ = try? await batch.value }
        pending = []
        guard !isOver else { return }
        isOver = true
        if let connection = ownConnection.withLock({ $0 }) {
            // Rolling the one transaction back undoes all the save wrote, the podcast's row too.
            _ = try? await connection.writeWithoutTransaction { db in
                if db.isInsideTransaction { try db.rollback() }
            }
            await closeOwnConnection()
            return
        }
        let begun = self.begun.withLock { $0 }
        guard begun.holdsCheckpoints else { return }
        let deferral = self.deferral
        _ = try? await writer.writeWithoutTransaction { db in
            defer { deferral.end(db) }
            guard let podcast = begun.podcast else { return }
            try db.inTransaction {
                try self.state.withLock { saver in try saver.discard(db: db) }
                if podcast.created {
                    try db.execute(sql: "DELETE FROM podcast WHERE id = ?", arguments: [podcast.id])
                }
                return .commit
            }
        }
    }

    /// Closes the save's own connection, once its transaction has ended.
    private func closeOwnConnection() async {
        let connection = ownConnection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        guard let connection else { return }
        _ = try? await OffPool.run { try connection.close() }
    }
}

/// Counts the feed saves under way on the library's writer connection; while any is, SQLite
/// does not checkpoint on commit (see ``Library/open(directory:)``).
final class CheckpointDeferral: Sendable {
    private let saves = Mutex(0)

    /// SQLite's default: a commit that leaves the log this many pages long copies them back.
    private static let autocheckpointPages = 1000

    /// Called on the writer's connection when a save begins; each call, even one that
    /// throws, is matched by a call to ``end(_:)``.
    func begin(_ db: Database) throws {
        if saves.withLock({ saves in
            saves += 1
            return saves == 1
        }) {
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
    }

    /// Called on the writer's connection when a save is committed or discarded.
    func end(_ db: Database) {
        if saves.withLock({ saves in
            saves -= 1
            return saves == 0
        }) {
            try? db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.autocheckpointPages)")
        }
    }
}
