import CSQLiteSettings
import Foundation
import GRDB
import Synchronization

/// The library database: search results, podcasts, episodes, subscriptions and the durable
/// side of the progress buffer.
///
/// A `Sendable` value over a GRDB writer; the schema is migrated when it opens. Every call is
/// `async` and runs on GRDB's own threads, never on the threads that run Swift tasks. The
/// library stores and loads; the rules of downloads and updates live with their owners.
public struct Library: Sendable {
    let writer: any DatabaseWriter
    /// The folder of the database file; nil for a library in memory.
    public let directory: URL?
    let checkpointDeferral = CheckpointDeferral()
    /// The folder and database files that opening found readable by others and made private
    /// to the user (see ``LibraryPrivacy``); empty when all were private already.
    public private(set) var tightenedPaths: [String] = []

    /// Opens (creating if needed) `library.sqlite` in `directory`.
    ///
    /// ## The write-ahead log
    ///
    /// How the library uses SQLite's write-ahead log is written down here, once; the code that
    /// carries out a part of it refers to this place.
    ///
    /// - **WAL mode** (a `DatabasePool` sets it, and the database file keeps it): reads run on
    ///   connections of their own and never wait for the writer, nor it for them (a command
    ///   that opens the library with ``Access/serial`` reads on its one connection). Several
    ///   singlecast processes may share one library: a writer waits up to 15 seconds for
    ///   another's lock.
    /// - **`synchronous = NORMAL`**: a commit appends to the log without waiting for the disk.
    ///   In WAL mode this never corrupts the database and survives a crashed or killed
    ///   process; only a power cut may lose the last commits, and the progress buffer rebuilds
    ///   what they recorded of downloads from the files on disk.
    /// - **Pages of 16 KiB** instead of 4 (for a library being created; one that exists keeps
    ///   its size): rows with a kilobyte of show notes fill them better, and saving a large
    ///   feed writes, and checkpoints, a quarter as many pages. And 8 MiB of page cache instead
    ///   of 2: a large feed's episode index fits, so its pages are not written to the log
    ///   again each time they are evicted.
    /// - **No checkpoint while feeds are saved** (``CheckpointDeferral``): from the start of a
    ///   save to its commit or discard, and across every save of an update
    ///   (``savingFeeds(_:)``), the writer's connection does not checkpoint on commit
    ///   (`wal_autocheckpoint = 0`, then SQLite's 1000 pages again). Otherwise each commit
    ///   that left the log past 1000 pages would copy all that the saves before it wrote into
    ///   the database file, and wait for the disk, on the writer's thread while the other
    ///   feeds wait for it; a large feed's pages would be copied again and again.
    /// - **A local file's feed in one transaction** (``SaveOptions/inOneTransaction``), on a
    ///   connection of the save's own that does not checkpoint on commit: no server can stall
    ///   it while it holds the lock, and the log holds each of its pages once.
    /// - **A log copier during an update** (``savingFeeds(_:)``): at ``logCopyInterval``, a
    ///   connection of its own runs a passive checkpoint, which neither waits for the writer nor makes it
    ///   wait, and then `fdatasync`s the database file, so the kernel writes the copied pages
    ///   to disk as the update goes rather than all in the final checkpoint.
    /// - **A final truncating checkpoint** (``checkpoint(emptyingLog:)``) where a command's
    ///   saves end: after an update, and after `episodes` saves a feed (which first copies
    ///   passively while it prints, so that the copy overlaps the printing). It copies what
    ///   the log still holds into the database file and truncates the log, so that no log of
    ///   tens of megabytes outlives the command that wrote it, and its copy is paid for where
    ///   that command chooses rather than by whichever commit next checkpoints. It never fails
    ///   a command: a checkpoint that another process's writing keeps from running is done by
    ///   a later one, or when the library closes.
    public static func open(directory: URL) async throws -> Library {
        try await OffPool.run { try Library(directory: directory, access: .concurrent) }
    }

    /// How the connections of a library share its work.
    public enum Access: Sendable {
        /// A writing connection, and reading ones beside it that neither wait for it nor make
        /// it wait (a `DatabasePool`): for a program that reads while it writes, as an update,
        /// a download or the terminal UI do.
        case concurrent
        /// One connection that reads and writes in turn (a `DatabaseQueue`), for a command that
        /// reads, or writes a little, and ends. It opens faster: its schema is read once, and
        /// it has no pool's set-up write, which puts a transaction in the log on every open and
        /// makes the last close copy it into the database file. WAL mode stays on, as the
        /// database file records it: only a library that exists opens this way.
        case serial
    }

    /// Opens the library in `directory` as ``open(directory:)`` does when its database exists,
    /// with the connections `access` says; nil, creating nothing, when it does not. It blocks
    /// the calling thread while the database opens: call it from a thread of its own. It also
    /// readies a connection for reading, which reads the schema on its own (a millisecond), so
    /// that a command's first read does not wait, and the threads the library's file work
    /// runs on.
    public static func openExistingBlocking(directory: URL, access: Access = .concurrent) throws -> Library? {
        guard FileManager.default.fileExists(atPath: databasePath(in: directory)) else { return nil }
        let library = try Library(directory: directory, access: access)
        try library.writer.read { db in _ = try db.tableExists("podcast") }
        OffPool.start()
        return library
    }

    /// Closes the library now rather than when the last copy of it goes (the last connection
    /// to close copies the log into the database file and removes it). Using it afterwards
    /// throws.
    public func close() async throws {
        let writer = self.writer
        try await OffPool.run {
            // GRDB's close ends a pool's writing connection before its reading ones, and a
            // reading connection, the last to close, may not remove the log: they go first.
            (writer as? DatabasePool)?.releaseMemory()
            try writer.close()
        }
    }

    /// Opens the library as ``open(directory:)`` says, with the connections `access` says.
    private init(directory: URL, access: Access) throws {
        let path = Self.databasePath(in: directory)
        do {
            let tightened = try LibraryPrivacy.secure(directory: directory, databasePath: path)
            let configuration = Self.configuration
            let writer: any DatabaseWriter = switch access {
            case .concurrent: try DatabasePool(path: path, configuration: configuration)
            case .serial: try DatabaseQueue(path: path, configuration: configuration)
            }
            try self.init(writer: writer, directory: directory)
            tightenedPaths = tightened
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError.unusableDatabase(path: path, detail: "\(error)")
        }
    }

    /// Sets SQLite up for the whole process. Call it first thing, before any library opens or
    /// any other thread uses SQLite, as the command line does; later it changes nothing.
    ///
    /// It turns SQLite's memory statistics off: they take a process-wide lock on every
    /// allocation SQLite makes, from every connection (`Benchmarks/subscriptions.py`; figures
    /// in `Benchmarks/README.md`). Statement journals keep SQLite's own spill threshold: with a
    /// larger one, SQLite 3.40 failed a statement whose journal outgrew it ("database or disk
    /// is full") instead of spilling it to a file.
    public static func prepareProcess() {
        _ = csqlite_disable_memory_statistics()
    }

    /// A library that lives in memory only, for tests.
    static func inMemory() throws -> Library {
        try Library(writer: DatabaseQueue(), directory: nil)
    }

    private init(writer: any DatabaseWriter, directory: URL?) throws {
        self.writer = writer
        self.directory = directory
        try writer.writeWithoutTransaction(LibrarySchema.createIfEmpty)
        try Self.migrator.migrate(writer)
    }

    // MARK: - Search results

    /// Replaces the remembered search results with `results`.
    public func replaceSearchResults(_ results: [SearchResult]) async throws {
        try await writer.write { db in
            try SearchResult.deleteAll(db)
            for result in results { try result.insert(db) }
        }
    }

    /// The result numbered `number` of the last search.
    public func searchResult(number: Int) async throws -> SearchResult {
        try await writer.read { db in
            if let result = try SearchResult.fetchOne(db, key: number) { return result }
            throw LibraryError.noSuchSearchResult(number: number, count: try SearchResult.fetchCount(db))
        }
    }

    // MARK: - Saving feeds

    /// What a save does besides storing the feed's episodes.
    public struct SaveOptions: Sendable {
        /// Which of the episodes the save adds are marked new.
        public enum NewEpisodes: Sendable {
            case none
            /// Every episode the save adds.
            case added
            /// Only the most recent of the podcast's episodes, when the save adds any (a
            /// subscription's first fetch).
            case mostRecent
        }

        /// Make the podcast the current one (which episode numbers refer to).
        public var makeCurrent = true
        public var newEpisodes = NewEpisodes.none
        /// The podcast to save into, when it is known already (an update whose feed moved).
        public var podcastID: Int64?
        /// The response's validators and body hash, remembered for the next conditional fetch
        /// (see also ``FeedSave/remember(_:)``).
        public var validators: FeedValidators?
        /// How the update of a subscription that this save is went, recorded with the feed
        /// (see ``recordUpdate(podcastID:_:validators:)``).
        public var update: UpdateResult?
        /// Store the whole feed in one transaction, holding the library's write lock from the
        /// start of the save to its commit, rather than a transaction per batch: for a feed
        /// read from a local file, which no slow server can stall. The log then holds each
        /// page the feed fills once, where a transaction per batch writes the episode index
        /// into it again with every batch (figures in `Benchmarks/README.md`).
        public var inOneTransaction = false

        public init() {}
    }

    /// Saves a whole parsed feed under `feedKey` (see ``saveFeed(feedKey:options:parse:)``).
    @discardableResult
    public func saveFeed(_ feed: Feed, feedKey: String, options: SaveOptions = SaveOptions()) async throws -> SavedFeed {
        try await saveFeed(feedKey: feedKey, options: options) { _ in feed }
    }

    /// Saves the feed that `parse` reads under `feedKey`: `parse` hands the episodes to the
    /// ``FeedSave`` as the parser completes them and returns the rest of the feed. Episodes
    /// are updated by identity (never duplicated, unchanged ones left untouched); episodes gone
    /// from the feed keep their rows (and their files). Nothing of the feed is kept when
    /// `parse` throws. Returns the stored podcast and how many episodes it lists.
    ///
    /// The new pages stay in the write-ahead log when the save commits, to be copied by
    /// ``checkpoint(emptyingLog:)`` or when the library closes (see ``open(directory:)``).
    public func saveFeed(
        feedKey: String, options: SaveOptions = SaveOptions(), parse: (FeedSave) async throws -> Feed
    ) async throws -> SavedFeed {
        let save = await beginSave(feedKey: feedKey, options: options)
        do {
            return try await save.commit(try await parse(save))
        } catch {
            await save.discard()
            throw error
        }
    }

    /// Begins saving a feed under `feedKey`; the caller hands over its episodes, then commits
    /// or discards the save.
    public func beginSave(feedKey: String, options: SaveOptions = SaveOptions()) async -> FeedSave {
        let table = "staged_episode_\(Self.stagingTables.add(1, ordering: .relaxed).newValue)"
        return await FeedSave(library: self, feedKey: feedKey, options: options, stagingTable: table)
    }

    /// Numbers the temporary tables of saves under way, which share the writer's connection.
    private static let stagingTables = Atomic<Int>(0)

    /// Copies the pages that saves left in the write-ahead log into the database file and
    /// empties the log (see ``open(directory:)``); it never fails.
    ///
    /// With `emptyingLog` false, it copies the pages without waiting for readers (such as a
    /// listing being printed) to finish, and leaves the log to a later checkpoint.
    public func checkpoint(emptyingLog: Bool = true) async {
        _ = try? await writer.writeWithoutTransaction { db in try db.checkpoint(emptyingLog ? .truncate : .passive) }
    }

    /// Runs `body`, which saves many feeds (an update of every subscription), with the
    /// writer's checkpoints held off throughout and the log copied meanwhile by ``copyLog(every:)``,
    /// then empties the log (see ``open(directory:)``).
    public func savingFeeds<T: Sendable>(_ body: () async -> T) async -> T {
        let deferral = checkpointDeferral
        _ = try? await writer.writeWithoutTransaction { db in try deferral.begin(db) }
        let copier = Task { await copyLog(every: Self.logCopyInterval) }
        let result = await body()
        copier.cancel()
        await copier.value
        _ = try? await writer.writeWithoutTransaction { db in deferral.end(db) }
        await checkpoint()
        return result
    }

    /// How every connection to a library's database file is set up (see ``open(directory:)``).
    private static var configuration: GRDB.Configuration {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(15)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA page_size = 16384")
            try db.execute(sql: "PRAGMA cache_size = -8192")
        }
        return configuration
    }

    /// A connection of its own for a save that holds one transaction from its first batch to
    /// its commit (see ``SaveOptions/inOneTransaction``): it does not check foreign keys (the
    /// save finds or creates the podcast's row in that transaction, under its lock) nor
    /// checkpoint on commit, and may leave its transaction open between jobs. Nil for a library
    /// in memory. It blocks while the database opens.
    ///
    /// Its cache is 4 MiB: the commit writes what the cache holds changed, so a smaller cache
    /// makes it shorter, the rest having gone to the log while the feed was parsed; below about
    /// 2 MiB a large feed's episode index no longer fits, and its pages, written to the log
    /// and changed again, make SQLite read the log back to checksum it at the commit.
    func openSaveConnection() throws -> DatabaseQueue? {
        guard let directory else { return nil }
        var configuration = Self.configuration
        configuration.foreignKeysEnabled = false
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "PRAGMA cache_size = -4096")
        }
        return try DatabaseQueue(path: Self.databasePath(in: directory), configuration: configuration)
    }

    /// Until cancelled, copies the write-ahead log into the database file every `interval`
    /// from a connection of its own, on the blocking-IO threads, and has the kernel write the
    /// copied pages to disk (see ``open(directory:)``).
    private func copyLog(every interval: Duration) async {
        guard let directory else { return }
        let path = Self.databasePath(in: directory)
        guard let connection = try? await OffPool.run({ try DatabaseQueue(path: path) }) else { return }
        let file = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        defer { if file >= 0 { Glibc.close(file) } }
        while (try? await Task.sleep(for: interval)) != nil {
            _ = try? await OffPool.run {
                _ = try connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
                if file >= 0 { fdatasync(file) }
            }
        }
    }

    /// The database file in a library's folder.
    static func databasePath(in directory: URL) -> String {
        directory.appendingPathComponent("library.sqlite").path
    }

    /// Stores what a feed says of its podcast (and, for a podcast that moved, its new key).
    static func storeDetails(_ podcast: Podcast, podcastID: Int64, feedKey: String, db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE podcast SET feedKey = ?, title = ?, link = ?, description = ?, author = ?, imageURL = ?,
                  newFeedURL = ?, refreshedAt = ? WHERE id = ?
                """
        ).execute(
            arguments: [
                feedKey, podcast.title, podcast.link?.absoluteString, podcast.description, podcast.author,
                podcast.imageURL?.absoluteString, podcast.newFeedURL?.absoluteString, StoredDate.databaseValue(Date()),
                podcastID,
            ])
    }

    // MARK: - Podcasts and episodes

    /// The podcast listed last, which episode numbers refer to.
    public func currentPodcast() async throws -> StoredPodcast? {
        try await writer.read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'currentPodcast'") else {
                return nil
            }
            return try Self.podcast(db, id: id)
        }
    }

    /// Makes a stored podcast the current one.
    public func setCurrentPodcast(id: Int64) async throws {
        try await writer.write { db in try Self.setCurrentPodcast(id, db: db) }
    }

    /// The podcast stored under `feedKey`, if any.
    public func podcast(feedKey: String) async throws -> StoredPodcast? {
        try await writer.read { db in try Self.podcast(db, feedKey: feedKey) }
    }

    /// The podcast with the row id `id`, if any.
    public func podcast(id: Int64) async throws -> StoredPodcast? {
        try await writer.read { db in try Self.podcast(db, id: id) }
    }

    /// The episodes of a podcast in feed order, each with its progress-buffer entry.
    public func episodes(podcastID: Int64) async throws -> [EpisodeEntry] {
        try await writer.read { db in
            try Self.episodes(db, podcastID: podcastID, downloads: Self.downloadsByEnclosureURL(db))
        }
    }

    /// How many episodes a podcast's feed lists.
    public func episodeCount(podcastID: Int64) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM episode WHERE podcastId = ? AND position IS NOT NULL", arguments: [podcastID]
            ) ?? 0
        }
    }

    /// Calls `body` with the episodes of a podcast in feed order, a page at a time, while the
    /// next page is read: a listing of any length is never held whole, and reading it overlaps
    /// what `body` does with it. Every page comes from one snapshot of the library. With
    /// `showNotes`, each episode's `description` holds its show notes as text (``ShowNotes``),
    /// reduced from the HTML on every core: a page is reduced while the one after it is read
    /// and `body` has the one before.
    public func forEachEpisodePage(
        podcastID: Int64, showNotes: Bool = false, _ body: ([EpisodeEntry]) async throws -> Void
    ) async throws {
        // A snapshot of its own when other connections may write meanwhile; a queue is serial.
        let reader: any DatabaseReader
        if let pool = writer as? DatabasePool {
            reader = try await OffPool.run { try pool.makeSnapshot() }
        } else {
            reader = writer
        }
        let downloads = try await reader.read { db in try Self.downloadsByEnclosureURL(db) }
        /// The page after the episode numbered `number`, with its show notes' HTML when asked
        /// for; none after nil.
        func page(after number: Int?) async throws -> (entries: [EpisodeEntry], notes: ShowNotes.Page?) {
            guard let number else { return ([], nil) }
            return try await reader.read { db in
                try Self.episodePage(
                    db, podcastID: podcastID, after: number, limit: Self.pageSize, downloads: downloads,
                    withNotes: showNotes)
            }
        }
        /// Puts the notes in place of the HTML. The loop below shares no page it passes here,
        /// so the episodes are changed where they are, not copied.
        func put(_ notes: [String?], in entries: inout [EpisodeEntry]) {
            for index in notes.indices { entries[index].episode.description = notes[index] }
        }
        let (first, firstNotes) = try await page(after: 0)
        var current = first
        let firstAfter = current.last?.number
        async let second = page(after: firstAfter)
        put(await Self.text(of: firstNotes), in: &current)
        var (read, readNotes) = try await second
        while !current.isEmpty {
            let after = read.last?.number
            async let next = page(after: after)
            let notes = readNotes
            async let upcoming = Self.text(of: notes)
            try await body(current)
            current = read
            (read, readNotes) = try await next
            put(await upcoming, in: &current)
        }
    }

    /// The show notes of a page as text; none without notes.
    private static func text(of notes: ShowNotes.Page?) async -> [String?] {
        guard let notes else { return [] }
        return await ShowNotes.reduce(notes) { $0.text }
    }

    /// How often the log copier of an update copies the log into the database file (its
    /// effect is measured in `Benchmarks/README.md`).
    static let logCopyInterval = Duration.milliseconds(250)

    /// How many episodes a page of a listing holds.
    static let pageSize = 1024

    // MARK: - Helpers

    static func setCurrentPodcast(_ id: Int64, db: Database) throws {
        // Listing the current podcast again writes nothing, so the log stays empty.
        try db.execute(
            sql: """
                INSERT INTO setting (key, value) VALUES ('currentPodcast', ?)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE value IS NOT excluded.value
                """,
            arguments: [id])
    }

    static func podcast(_ db: Database, id: Int64) throws -> StoredPodcast? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(PodcastColumns.selection) FROM podcast WHERE id = ?"), arguments: [id])
            .map(PodcastColumns.storedPodcast(from:))
    }

    static func podcast(_ db: Database, feedKey: String) throws -> StoredPodcast? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(PodcastColumns.selection) FROM podcast WHERE feedKey = ?"), arguments: [feedKey]
        ).map(PodcastColumns.storedPodcast(from:))
    }

    /// A podcast's episodes in feed order after number `after`, at most `limit` of them.
    private static func episodes(
        _ db: Database, podcastID: Int64, after: Int = 0, limit: Int = -1, downloads: [String: Download]
    ) throws -> [EpisodeEntry] {
        try episodePage(db, podcastID: podcastID, after: after, limit: limit, downloads: downloads, withNotes: false).entries
    }

    /// A podcast's episodes in feed order after number `after`, at most `limit` of them, with
    /// the HTML of their show notes when asked (read as bytes, never as strings).
    private static func episodePage(
        _ db: Database, podcastID: Int64, after: Int, limit: Int, downloads: [String: Download], withNotes: Bool
    ) throws -> (entries: [EpisodeEntry], notes: ShowNotes.Page?) {
        var notes = withNotes ? ShowNotes.Page() : nil
        let entries = try EpisodeColumns.entries(
            db,
            sql: """
                SELECT \(EpisodeColumns.entrySelection())\(withNotes ? ", episode.description" : "")
                FROM \(EpisodeColumns.withPlayback)
                WHERE episode.podcastId = ? AND episode.position > ? ORDER BY episode.position LIMIT ?
                """,
            arguments: [podcastID, after, limit], downloads: downloads, expectedCount: max(limit, 0),
            extra: withNotes
                ? { _, row in
                    do {
                        try row.withUnsafeData(atIndex: EpisodeColumns.entryColumnCount) { notes!.append($0) }
                    } catch {
                        notes!.append(nil)  // text is always readable as bytes; no episode is skipped all the same
                    }
                } : nil)
        return (entries, notes)
    }


    static func downloadsByEnclosureURL(_ db: Database) throws -> [String: Download] {
        Dictionary(try DownloadRow.fetchAll(db).map { ($0.enclosureURL, $0.download) }) { first, _ in first }
    }
}
