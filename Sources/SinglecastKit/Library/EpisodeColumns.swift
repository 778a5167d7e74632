import Foundation
import GRDB
import GRDBSQLite

/// How an `Episode` maps to a row of the `episode` table: one declaration, ``fields``, from
/// which the SQL, the arguments, the decoding and the fingerprint are all derived. Adding a
/// field to `Episode` means adding one line here and a migration.
///
/// Rows are read with GRDB's `Row.fetchCursor`, columns by index; they are written with
/// ``StatementBinder``, which says why it is not GRDB's.
enum EpisodeColumns {
    /// One stored property of an episode: its column, its value for an episode, and how to put
    /// it back from a row (the column's index in the row given); `isListed` when listings
    /// load it.
    ///
    /// The value is read through a pointer to the episode: an element of an array handed to a
    /// function is copied whole first (each of its strings retained, then released), a copy
    /// per episode that a cold import showed in its profile (figures in `Benchmarks/README.md`).
    struct Field: Sendable {
        let name: String
        let value: @Sendable (UnsafePointer<Episode>) -> DatabaseValue
        let read: @Sendable (inout Episode, Row, Int) -> Void
        var isListed = true
    }

    /// Every column that holds what a feed says of an episode, in binding order.
    static let fields: [Field] = [
        Field(name: "title", value: { $0.pointee.title.databaseValue }, read: { $0.title = $1[$2] }),
        Field(name: "guid", value: { column($0.pointee.guid) }, read: { $0.guid = $1[$2] }),
        Field(name: "link", value: { column($0.pointee.link) }, read: { $0.link = $1[$2] }),
        Field(
            name: "published", value: { $0.pointee.published?.timeIntervalSince1970.databaseValue ?? .null },
            read: { episode, row, index in
                episode.published = (row[index] as Double?).map(Date.init(timeIntervalSince1970:))
            }),
        Field(name: "duration", value: { column($0.pointee.duration) }, read: { $0.duration = $1[$2] }),
        // Most of a row, and no listing shows it.
        Field(
            name: "description", value: { column($0.pointee.description) }, read: { $0.description = $1[$2] },
            isListed: false),
        Field(
            name: "enclosureURL", value: { $0.pointee.enclosure?.url.databaseValue ?? .null },
            read: { episode, row, index in episode.enclosure = (row[index] as String?).map { Enclosure(url: $0) } }),
        Field(
            name: "enclosureLength", value: { column($0.pointee.enclosure?.length) },
            read: { episode, row, index in episode.enclosure?.length = row[index] }),
        Field(
            name: "enclosureType", value: { column($0.pointee.enclosure?.type) },
            read: { episode, row, index in episode.enclosure?.type = row[index] }),
        Field(name: "season", value: { column($0.pointee.season) }, read: { $0.season = $1[$2] }),
        Field(name: "episodeNumber", value: { column($0.pointee.episodeNumber) }, read: { $0.episodeNumber = $1[$2] }),
        Field(name: "explicit", value: { column($0.pointee.explicit) }, read: { $0.explicit = $1[$2] }),
        // The first transcript's URL, the one column rows saved before `v4-extras` have.
        Field(
            name: "transcriptURL", value: { $0.pointee.transcripts.first?.url.databaseValue ?? .null },
            read: { episode, row, index in
                episode.transcripts = (row[index] as String?).map { [Transcript(url: $0)] } ?? []
            }),
        Field(name: "chaptersURL", value: { column($0.pointee.chaptersURL) }, read: { $0.chaptersURL = $1[$2] }),
        // Every transcript as JSON; NULL when there is none (or the row predates the column).
        Field(
            name: "transcripts", value: { column(TranscriptsColumn.text($0.pointee.transcripts)) },
            read: { episode, row, index in
                if let transcripts = TranscriptsColumn.transcripts(row[index]) { episode.transcripts = transcripts }
            }),
    ]

    // A field's value when it may be absent. GRDB's `Optional.databaseValue` is generic and,
    // called from this module, runs unspecialized, copying through value witnesses, which
    // slows a cold import (figures in `Benchmarks/README.md`).
    private static func column(_ value: String?) -> DatabaseValue { value.map(\.databaseValue) ?? .null }
    private static func column(_ value: Int?) -> DatabaseValue { value.map(\.databaseValue) ?? .null }
    private static func column(_ value: Int64?) -> DatabaseValue { value.map(\.databaseValue) ?? .null }
    private static func column(_ value: Bool?) -> DatabaseValue { value.map(\.databaseValue) ?? .null }

    /// The columns that are the library's own bookkeeping rather than the feed's content.
    static let bookkeeping = ["id", "podcastId", "identity", "position", "fingerprint", "isNew", "isDeleted"]

    /// The columns every saved episode row gets, in binding order.
    private static let rowColumns = ["identity", "position"] + fields.map(\.name) + ["fingerprint", "isNew"]

    /// Inserts `rows` episodes into a podcast. One of the same identity already there is
    /// updated when `upserting` (its new mark stays as it is), else left as it is.
    static func directSQL(rows: Int, upserting: Bool) -> String {
        let columns = ["podcastId"] + rowColumns
        let row = "(\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        return """
            INSERT \(upserting ? "" : "OR IGNORE ")INTO episode (\(columns.joined(separator: ", ")))
            VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))
            \(upserting ? "ON CONFLICT(podcastId, identity) DO UPDATE SET \(updateAssignments)" : "")
            """
    }

    /// How many episodes one statement writes directly. An upsert makes SQLite keep a
    /// statement journal of the pages it changes; one statement for many rows journals each
    /// page once rather than once a row.
    private static let rowsPerStatement = 64
    /// The statements of a whole statement's rows, made once: only a batch's last statement
    /// has fewer.
    private static let fullDirectSQL = (
        inserting: directSQL(rows: rowsPerStatement, upserting: false),
        upserting: directSQL(rows: rowsPerStatement, upserting: true))

    private static let updateAssignments = (["fingerprint", "position"] + fields.map(\.name))
        .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// A temporary table of changed episodes: whole rows, and rows of which only the position
    /// changed (`positionOnly`, with the other columns null).
    static func createStagingSQL(_ table: String) -> String {
        "CREATE TEMP TABLE \(table) (\((rowColumns + ["positionOnly"]).joined(separator: ", ")))"
    }

    static func stageSQL(_ table: String) -> String {
        let columns = rowColumns + ["positionOnly"]
        return """
            INSERT INTO temp.\(table) (\(columns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """
    }

    /// Moves a staging table's whole rows into a podcast's episodes (the podcast's id bound).
    static func mergeSQL(_ table: String) -> String {
        let columns = rowColumns.joined(separator: ", ")
        return """
            INSERT INTO episode (podcastId, \(columns))
            SELECT ?, \(columns) FROM temp.\(table) WHERE NOT positionOnly ORDER BY rowid
            ON CONFLICT(podcastId, identity) DO UPDATE SET \(updateAssignments)
            """
    }

    /// Gives a podcast's episodes the positions a staging table's position-only rows hold.
    static func mergePositionsSQL(_ table: String) -> String {
        """
        UPDATE episode SET position = staged.position FROM temp.\(table) AS staged
        WHERE staged.positionOnly AND episode.podcastId = ? AND episode.identity = staged.identity
        """
    }

    /// Saves a feed's episodes in feed order (position 1 is the first item), batch by batch.
    /// Episodes are matched by identity; an episode whose content and position are unchanged is
    /// not rewritten; episodes gone from the feed keep their rows without a position.
    ///
    /// A podcast with no episodes yet gets its rows written directly, each batch in a short
    /// transaction; for any other podcast, the changes are staged in a temporary table (which
    /// takes no lock on the library) and merged by ``merge(db:)``.
    struct Saver: Sendable {
        /// What the table holds of an episode before the save (until the feed lists it).
        private struct Stored {
            var fingerprint: Int64
            var position: Int?
        }

        /// The podcast's row, from ``readStored(podcastID:db:)``.
        private var podcastID: Int64 = 0
        private let stagingTable: String
        /// Whether the episodes the save adds are marked new.
        private let marksAddedNew: Bool
        /// Whether the podcast has no episodes yet (see ``readStored(podcastID:db:)``).
        private var writesDirectly = false
        /// Whether the save holds one transaction, on a connection that checks no foreign key,
        /// from its start to its commit (``Library/SaveOptions/inOneTransaction``).
        var holdsTransaction = false
        private var stored = IdentityTable<Stored>()
        private var hasStagingTable = false
        /// How many episodes the feed lists so far.
        private(set) var episodeCount = 0
        /// How many of them the library did not have.
        private(set) var addedCount = 0

        init(stagingTable: String, marksAddedNew: Bool) {
            self.stagingTable = stagingTable
            self.marksAddedNew = marksAddedNew
        }

        /// Reads what the library holds of the podcast's episodes; before the first ``add(_:keys:db:)``.
        mutating func readStored(podcastID: Int64, db: Database) throws {
            self.podcastID = podcastID
            let rows = try Row.fetchCursor(
                db, sql: "SELECT identity, fingerprint, position FROM episode WHERE podcastId = ?", arguments: [podcastID])
            while let row = try rows.next() {
                stored.insert(row[0], Stored(fingerprint: row[1] ?? 0, position: row[2]))
            }
            writesDirectly = stored.isEmpty
        }

        /// Saves the next episodes of the feed, with their keys, in a transaction of their own
        /// (in the save's one transaction when it holds one).
        mutating func add(_ episodes: [Episode], keys: [Key], db: Database) throws {
            if holdsTransaction {
                return try write(episodes, keys: keys, db: db)
            }
            guard writesDirectly else {
                // Only the temporary table is written when staging: the library's own lock is never taken.
                try db.inTransaction(.deferred) {
                    try write(episodes, keys: keys, db: db)
                    return .commit
                }
                return
            }
            // SQLite keeps a statement journal of every page a many-row insert changes while it
            // checks a foreign key, and writes most of it to a temporary file (figures in
            // `Benchmarks/README.md`). The batch's only foreign key is the podcast's row: it is
            // checked once, in the batch's transaction, with SQLite's checks off meanwhile.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            let written = Result {
                try db.inTransaction(.immediate) {
                    guard try Bool.fetchOne(db, sql: "SELECT 1 FROM podcast WHERE id = ?", arguments: [podcastID]) != nil else {
                        throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: "FOREIGN KEY constraint failed")
                    }
                    try writeDirectly(episodes, keys: keys, db: db, insertsFirst: true)
                    return .commit
                }
            }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            try written.get()
        }

        /// Saves the next episodes of the feed, with their keys, in the transaction under way
        /// (the last ones are written in the commit's, so a feed costs one transaction less).
        mutating func write(_ episodes: [Episode], keys: [Key], db: Database) throws {
            if writesDirectly {
                // The save's own connection checks no foreign key, and its transaction began
                // with the podcast's row: its rows are inserted first.
                try writeDirectly(episodes, keys: keys, db: db, insertsFirst: holdsTransaction)
                return
            }
            if !hasStagingTable {
                try db.execute(sql: createStagingSQL(stagingTable))
                hasStagingTable = true
            }
            let statement = try db.cachedStatement(sql: stageSQL(stagingTable))
            try episodes.withUnsafeBufferPointer { episodes in
                for index in episodes.indices {
                    var binder = StatementBinder(statement: statement)
                    if bind(episodes.baseAddress! + index, key: keys[index], to: &binder) { try binder.execute() }
                }
            }
        }

        /// Writes episodes into a podcast that had none, ``rowsPerStatement`` a statement.
        /// With `insertsFirst`, a statement's rows are inserted, which needs no statement
        /// journal while foreign keys are not checked, and upserted only when one of them was
        /// there already (another process saving the same feed); else they are upserted.
        private mutating func writeDirectly(_ episodes: [Episode], keys: [Key], db: Database, insertsFirst: Bool) throws {
            try episodes.withUnsafeBufferPointer { episodes in
                var start = 0
                while start < episodes.count {
                    let rows = start..<min(start + rowsPerStatement, episodes.count)
                    let counts = (episodeCount, addedCount)
                    if insertsFirst {
                        try writeDirectly(episodes, keys: keys, rows: rows, upserting: false, db: db)
                        if db.changesCount == rows.count {
                            start = rows.upperBound
                            continue
                        }
                        (episodeCount, addedCount) = counts
                    }
                    try writeDirectly(episodes, keys: keys, rows: rows, upserting: true, db: db)
                    start = rows.upperBound
                }
            }
        }

        /// Writes one statement's rows.
        private mutating func writeDirectly(
            _ episodes: UnsafeBufferPointer<Episode>, keys: [Key], rows: Range<Int>, upserting: Bool, db: Database
        ) throws {
            let sql = rows.count == rowsPerStatement
                ? (upserting ? fullDirectSQL.upserting : fullDirectSQL.inserting)
                : directSQL(rows: rows.count, upserting: upserting)
            var binder = StatementBinder(statement: try db.cachedStatement(sql: sql))
            for index in rows {
                binder.bind(podcastID.databaseValue)
                // The library held none of the podcast's episodes: every one is bound.
                _ = bind(episodes.baseAddress! + index, key: keys[index], to: &binder)
            }
            try binder.execute()
        }

        /// Binds an episode's row (for the insert or upsert when writing directly, else for the
        /// staging insert), or nothing when the library has it unchanged in the same place; returns
        /// whether it bound the row.
        private mutating func bind(_ episode: UnsafePointer<Episode>, key: Key, to binder: inout StatementBinder) -> Bool {
            episodeCount += 1
            let position = episodeCount
            let (identity, fingerprint) = (key.identity, key.fingerprint)
            // What is left in `stored` at the end is what the feed no longer lists.
            let existing = stored.take(identity)
            if existing == nil { addedCount += 1 }
            if let existing, existing.fingerprint == fingerprint {
                guard existing.position != position else { return false }
                binder.bind(identity.databaseValue)
                binder.bind(position.databaseValue)
                // A position-only row: no fields, fingerprint or new mark.
                for _ in 0..<(fields.count + 2) { binder.bind(.null) }
                binder.bind(true.databaseValue)
            } else {
                binder.bind(identity.databaseValue)
                binder.bind(position.databaseValue)
                for field in fields { binder.bind(field.value(episode)) }
                binder.bind(fingerprint.databaseValue)
                binder.bind((existing == nil && marksAddedNew).databaseValue)
                if !writesDirectly { binder.bind(false.databaseValue) }
            }
            return true
        }

        /// Makes the staged changes the podcast's episodes, and takes the positions away from
        /// the episodes no longer in the feed. Runs inside the commit's transaction.
        func merge(db: Database) throws -> Int {
            if hasStagingTable {
                try db.execute(sql: mergeSQL(stagingTable), arguments: [podcastID])
                try db.execute(sql: mergePositionsSQL(stagingTable), arguments: [podcastID])
                try db.execute(sql: "DROP TABLE temp.\(stagingTable)")
            }
            let clearPosition = try db.cachedStatement(
                sql: "UPDATE episode SET position = NULL WHERE podcastId = ? AND identity = ?")
            for (identity, existing) in stored.remaining where existing.position != nil {
                try clearPosition.execute(arguments: [podcastID, identity])
            }
            return addedCount
        }

        /// Undoes what the save wrote: the staged changes, or the episodes written directly.
        func discard(db: Database) throws {
            if writesDirectly && episodeCount > 0 {
                try db.execute(sql: "DELETE FROM episode WHERE podcastId = ?", arguments: [podcastID])
            }
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\(stagingTable)")
        }
    }

    /// What the saver needs of an episode besides its fields.
    struct Key: Sendable {
        /// The episode's identity, made unique within the feed.
        let identity: String
        let fingerprint: Int64
    }

    /// Works out the keys of a feed's episodes, in feed order, for its ``Saver``: on the task
    /// that parses the feed, so that the library's writer, which every feed of an update
    /// shares, only writes.
    struct KeyMaker {
        private var seen = IdentityTable<Void>()

        mutating func keys(of episodes: [Episode]) -> [Key] {
            var keys: [Key] = []
            keys.reserveCapacity(episodes.count)
            seen.reserveCapacity(seen.count + episodes.count)
            episodes.withUnsafeBufferPointer { episodes in
                for index in episodes.indices {
                    let episode = episodes.baseAddress! + index
                    keys.append(Key(identity: uniqueIdentity(of: episode), fingerprint: fingerprint(at: episode)))
                }
            }
            return keys
        }

        /// An episode's identity, made unique within one feed: a feed that repeats a guid
        /// still lists every item under its own number.
        private mutating func uniqueIdentity(of episode: UnsafePointer<Episode>) -> String {
            let base = episode.pointee.identity ?? "title:\(episode.pointee.title)"
            var identity = base
            var copy = 1
            while !seen.insert(identity, ()) {
                copy += 1
                identity = "\(base)#\(copy)"
            }
            return identity
        }
    }

    /// A stable 64-bit hash of every field (Swift's `Hasher` is seeded per process, so it
    /// cannot be stored).
    static func fingerprint(of episode: Episode) -> Int64 {
        withUnsafePointer(to: episode) { fingerprint(at: $0) }
    }

    static func fingerprint(at episode: UnsafePointer<Episode>) -> Int64 {
        var hash = StableHash()
        for field in fields {
            switch field.value(episode).storage {
            case .null: hash.mix(nil as UInt64?)
            case .int64(let number): hash.mix(UInt64(bitPattern: number))
            case .double(let number): hash.mix(number.bitPattern)
            case .string(let text): hash.mix(text)
            // No field is a blob.
            case .blob(let bytes): bytes.withUnsafeBytes { hash.mixBytes($0) }
            }
        }
        return Int64(bitPattern: hash.value)
    }

    /// The columns an ``EpisodeEntry`` is read from, in the order ``entry(from:downloads:)``
    /// reads them (by index: a listing of 20,000 episodes looks up no column by name).
    static func entrySelection() -> String {
        (entryBookkeeping + listedFields.map { "episode.\($0.name)" }).joined(separator: ", ")
    }

    /// The episodes with their playback, the FROM of a query selecting ``entrySelection()``.
    static let withPlayback = "episode LEFT JOIN episodePlayback ON episodePlayback.episodeId = episode.id"

    /// The fields an entry holds.
    private static let listedFields = fields.filter(\.isListed)

    /// The columns an entry has besides the feed's, first in ``entrySelection()``.
    private static let entryBookkeeping = [
        "episode.id", "episode.position", "episode.isNew", "episode.isDeleted", "episodePlayback.playPosition",
        "episodePlayback.playedAt",
    ]

    /// The episode entry a row selected with ``entrySelection()`` holds, with its download
    /// (its episode without the fields that are not listed). Columns are read by index: a
    /// listing of 20,000 episodes looks up no column by name.
    static func entry(from row: Row, downloads: [String: Download]) -> EpisodeEntry {
        var episode = Episode(title: "")
        for (offset, field) in listedFields.enumerated() { field.read(&episode, row, entryBookkeeping.count + offset) }
        let download = episode.enclosure.flatMap { downloads[$0.url] }
        return EpisodeEntry(
            id: row[0], number: row[1] ?? 0, episode: consume episode, download: download, isNew: row[2], isDeleted: row[3],
            playback: Playback(position: row[4], playedAt: (row[5] as Double?).map(Date.init(timeIntervalSince1970:))))
    }

    /// The index of the enclosure URL in a row selected with ``entrySelection()``.
    static var enclosureURLIndex: Int {
        entryBookkeeping.count + listedFields.firstIndex { $0.name == "enclosureURL" }!
    }

    /// How many columns ``entrySelection()`` selects: a query's own columns come after them.
    static var entryColumnCount: Int { entryBookkeeping.count + listedFields.count }

    /// The entries of the rows `sql` selects, which begin with ``entrySelection()``;
    /// `expectedCount` is room made for them at once; `extra` reads the query's own columns into each.
    static func entries(
        _ db: Database, sql: String, arguments: StatementArguments = [], downloads: [String: Download],
        expectedCount: Int = 0, extra: ((inout EpisodeEntry, Row) -> Void)? = nil
    ) throws -> [EpisodeEntry] {
        var entries: [EpisodeEntry] = []
        entries.reserveCapacity(expectedCount)
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try rows.next() {
            var entry = entry(from: row, downloads: downloads)
            extra?(&entry, row)
            entries.append(consume entry)
        }
        return entries
    }
}

/// The `transcripts` column: an episode's transcripts as a JSON array, keys sorted so that the
/// text (and so the fingerprint) of a value never varies.
enum TranscriptsColumn {
    static func text(_ transcripts: [Transcript]) -> String? {
        guard !transcripts.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(transcripts)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The transcripts a column's text holds; nil for NULL or text that is not such an array.
    static func transcripts(_ text: String?) -> [Transcript]? {
        guard let text else { return nil }
        return try? JSONDecoder().decode([Transcript].self, from: Data(text.utf8))
    }
}

/// FNV-1a over 8-byte words, for hashes that are stored and compared across runs.
struct StableHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func mix(_ word: UInt64?) {
        let word = word ?? .max
        value = (value ^ word) &* 0x100_0000_01b3
        value ^= value >> 29
    }

    mutating func mix(_ text: String?) {
        guard var text else { return mix(nil as UInt64?) }
        text.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
    }

    /// Mixes a run of bytes so that the result does not depend on how a stream of them is cut
    /// into runs (for a body that arrives in chunks of any size): byte by byte.
    mutating func mixBytes(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    private mutating func mix(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        var tail: UInt64 = 0
        for byte in bytes[offset...] { tail = tail << 8 | UInt64(byte) }
        mix(tail)
        mix(UInt64(bytes.count))
    }
}
