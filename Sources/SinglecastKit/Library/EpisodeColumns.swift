import Foundation
import GRDB
import GRDBSQLite

/// How an `Episode` maps to a row of the `episode` table: one declaration, ``fields``, from
/// which the SQL, the binding, the decoding and the fingerprint are all derived. Adding a
/// field to `Episode` means adding one line here and a migration.
///
/// Rows are bound with SQLite's C API: a 20,000-item feed is saved in one pass, and GRDB's
/// general-purpose argument conversion would cost more than the parse.
enum EpisodeColumns {
    /// A column's value for one episode.
    enum Value {
        case text(String?)
        case integer(Int64?)
        case real(Double?)
    }

    /// One stored property of an episode: its column, how to read it from an episode, and how
    /// to put it back from a row (the column's index in the row given); `isListed` when
    /// listings load it.
    struct Field: Sendable {
        let name: String
        let value: @Sendable (Episode) -> Value
        let read: @Sendable (inout Episode, Columns, Int) -> Void
        var isListed = true
    }

    /// Every column that holds what a feed says of an episode, in binding order.
    static let fields: [Field] = [
        Field(name: "title", value: { .text($0.title) }, read: { $0.title = $1[$2] }),
        Field(name: "guid", value: { .text($0.guid) }, read: { $0.guid = $1[$2] }),
        Field(name: "link", value: { .text($0.link) }, read: { $0.link = $1[$2] }),
        Field(
            name: "published", value: { .real($0.published?.timeIntervalSince1970) },
            read: { episode, row, index in
                episode.published = (row[index] as Double?).map(Date.init(timeIntervalSince1970:))
            }),
        Field(name: "duration", value: { .integer($0.duration.map(Int64.init)) }, read: { $0.duration = $1[$2] }),
        // Most of a row, and no listing shows it.
        Field(
            name: "description", value: { .text($0.description) }, read: { $0.description = $1[$2] },
            isListed: false),
        Field(
            name: "enclosureURL", value: { .text($0.enclosure?.url) },
            read: { episode, row, index in episode.enclosure = (row[index] as String?).map { Enclosure(url: $0) } }),
        Field(
            name: "enclosureLength", value: { .integer($0.enclosure?.length) },
            read: { episode, row, index in episode.enclosure?.length = row[index] }),
        Field(
            name: "enclosureType", value: { .text($0.enclosure?.type) },
            read: { episode, row, index in episode.enclosure?.type = row[index] }),
        Field(name: "season", value: { .integer($0.season.map(Int64.init)) }, read: { $0.season = $1[$2] }),
        Field(
            name: "episodeNumber", value: { .integer($0.episodeNumber.map(Int64.init)) },
            read: { $0.episodeNumber = $1[$2] }),
        Field(
            name: "explicit", value: { .integer($0.explicit.map { $0 ? 1 : 0 }) },
            read: { $0.explicit = $1[$2] }),
        // The first transcript's URL, the one column rows saved before `v4-extras` have.
        Field(
            name: "transcriptURL", value: { .text($0.transcripts.first?.url) },
            read: { episode, row, index in
                episode.transcripts = (row[index] as String?).map { [Transcript(url: $0)] } ?? []
            }),
        Field(name: "chaptersURL", value: { .text($0.chaptersURL) }, read: { $0.chaptersURL = $1[$2] }),
        // Every transcript as JSON; NULL when there is none (or the row predates the column).
        Field(
            name: "transcripts", value: { .text(TranscriptsColumn.text($0.transcripts)) },
            read: { episode, row, index in
                if let transcripts = TranscriptsColumn.transcripts(row[index]) { episode.transcripts = transcripts }
            }),
    ]

    /// The columns that are the library's own bookkeeping rather than the feed's content.
    static let bookkeeping = [
        "id", "podcastId", "identity", "position", "fingerprint", "isNew", "isDeleted", "playPosition", "playedAt", "heardAt",
    ]

    /// The columns every saved episode row gets, in binding order.
    private static let rowColumns = ["identity", "position"] + fields.map(\.name) + ["fingerprint", "isNew"]

    /// Inserts an episode into a podcast, or updates the episode of the same identity (its
    /// new mark stays as it is).
    static let upsertSQL: String = {
        let columns = ["podcastId"] + rowColumns
        return """
            INSERT INTO episode (\(columns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            ON CONFLICT(podcastId, identity) DO UPDATE SET \(updateAssignments)
            """
    }()

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
        private var stored: [String: Stored] = [:]
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
                stored[row[0]] = Stored(fingerprint: row[1] ?? 0, position: row[2])
            }
            writesDirectly = stored.isEmpty
        }

        /// Saves the next episodes of the feed, with their keys.
        mutating func add(_ episodes: [Episode], keys: [Key], db: Database) throws {
            if writesDirectly {
                let upsert = try db.cachedStatement(sql: upsertSQL)
                try db.inTransaction(.immediate) {
                    for index in episodes.indices {
                        try write(episodes[index], key: keys[index], with: upsert, podcastID: podcastID)
                    }
                    return .commit
                }
                return
            }
            if !hasStagingTable {
                try db.execute(sql: createStagingSQL(stagingTable))
                hasStagingTable = true
            }
            let stage = try db.cachedStatement(sql: stageSQL(stagingTable))
            // Only the temporary table is written: the library's own lock is never taken.
            try db.inTransaction(.deferred) {
                for index in episodes.indices {
                    try write(episodes[index], key: keys[index], with: stage, podcastID: nil)
                }
                return .commit
            }
        }

        /// Writes one episode with `statement` (the upsert when `podcastID` is given, else the
        /// staging insert), or nothing when the library has it unchanged in the same place.
        private mutating func write(_ episode: Episode, key: Key, with statement: Statement, podcastID: Int64?) throws {
            episodeCount += 1
            let position = episodeCount
            let (identity, fingerprint) = (key.identity, key.fingerprint)
            // What is left in `stored` at the end is what the feed no longer lists.
            let existing = stored.removeValue(forKey: identity)
            if existing == nil { addedCount += 1 }
            var binder = Binder(statement: statement)
            if let podcastID { binder.bind(.integer(podcastID)) }
            binder.bind(.text(identity))
            binder.bind(.integer(Int64(position)))
            if let existing, existing.fingerprint == fingerprint {
                guard existing.position != position else { return }
                for _ in fields { binder.bind(.text(nil)) }
                binder.bind(.integer(nil))
                binder.bind(.integer(nil))
                binder.bind(.integer(1))
            } else {
                for field in fields { binder.bind(field.value(episode)) }
                binder.bind(.integer(fingerprint))
                binder.bind(.integer(existing == nil && marksAddedNew ? 1 : 0))
                if podcastID == nil { binder.bind(.integer(0)) }
            }
            try binder.execute()
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
            for (identity, existing) in stored where existing.position != nil {
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
        private var seen = Set<String>()

        mutating func keys(of episodes: [Episode]) -> [Key] {
            episodes.indices.map { index in
                Key(identity: uniqueIdentity(of: episodes[index]), fingerprint: fingerprint(of: episodes[index]))
            }
        }

        /// An episode's identity, made unique within one feed: a feed that repeats a guid
        /// still lists every item under its own number.
        private mutating func uniqueIdentity(of episode: Episode) -> String {
            let base = episode.identity ?? "title:\(episode.title)"
            var identity = base
            var copy = 1
            while !seen.insert(identity).inserted {
                copy += 1
                identity = "\(base)#\(copy)"
            }
            return identity
        }
    }

    /// A stable 64-bit hash of every field (Swift's `Hasher` is seeded per process, so it
    /// cannot be stored).
    static func fingerprint(of episode: Episode) -> Int64 {
        var hash = StableHash()
        for field in fields {
            switch field.value(episode) {
            case .text(let text): hash.mix(text)
            case .integer(let number): hash.mix(number.map { UInt64(bitPattern: $0) })
            case .real(let number): hash.mix(number.map(\.bitPattern))
            }
        }
        return Int64(bitPattern: hash.value)
    }

    /// The columns an ``EpisodeEntry`` is read from, in the order ``entry(from:downloads:)``
    /// reads them (by index: a listing of 20,000 episodes looks up no column by name).
    static func entrySelection(of table: String = "episode") -> String {
        (entryBookkeeping + listedFields.map(\.name)).map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// The fields an entry holds.
    private static let listedFields = fields.filter(\.isListed)

    /// The columns an entry has besides the feed's, first in ``entrySelection(of:)``.
    private static let entryBookkeeping = ["id", "position", "isNew", "isDeleted", "playPosition", "playedAt"]

    /// The episode entry a row selected with ``entrySelection(of:)`` holds, with its download
    /// (its episode without the fields that are not listed).
    static func entry(from columns: Columns, downloads: [String: Download]) -> EpisodeEntry {
        var episode = Episode(title: "")
        for (offset, field) in listedFields.enumerated() { field.read(&episode, columns, entryBookkeeping.count + offset) }
        return EpisodeEntry(
            id: columns[0], number: columns[1] ?? 0, episode: episode,
            download: episode.enclosure.flatMap { downloads[$0.url] }, isNew: columns[2], isDeleted: columns[3],
            playback: Playback(
                position: columns[4], playedAt: (columns[5] as Double?).map(Date.init(timeIntervalSince1970:))))
    }

    /// How many columns ``entrySelection(of:)`` selects: a query's own columns come after them.
    static var entryColumnCount: Int { entryBookkeeping.count + listedFields.count }

    /// Runs `sql`, which selects ``entrySelection(of:)`` first, and calls `body` with the entry
    /// of each row and its columns (for those the query selects after the entry's).
    static func forEachEntry(
        _ db: Database, sql: String, arguments: StatementArguments = [], downloads: [String: Download],
        _ body: (EpisodeEntry, Columns) throws -> Void
    ) throws {
        try forEachRow(db, sql: sql, arguments: arguments) { columns in
            try body(entry(from: columns, downloads: downloads), columns)
        }
    }

    /// Runs `sql` and calls `body` with the columns of each row, read from SQLite as the
    /// statement steps: a listing of 20,000 episodes builds no `Row` and looks up no column by
    /// name.
    static func forEachRow(
        _ db: Database, sql: String, arguments: StatementArguments = [], _ body: (Columns) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            try body(Columns(handle: handle))
        }
    }

    /// The columns of the row a statement is on, read by index.
    struct Columns {
        let handle: SQLiteStatement

        /// The value of a column that may be NULL.
        subscript<Value: ColumnValue>(index: Int) -> Value? {
            sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL ? nil : Value(handle, Int32(index))
        }

        /// The value of a column that is never NULL.
        subscript<Value: ColumnValue>(index: Int) -> Value {
            Value(handle, Int32(index))
        }
    }

    /// Binds values to a statement's consecutive parameters (nil as NULL), then runs it.
    private struct Binder {
        let handle: SQLiteStatement
        var index: Int32 = 1

        /// SQLite copies the bytes before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        init(statement: Statement) {
            handle = statement.sqliteStatement
            sqlite3_reset(handle)
        }

        mutating func bind(_ value: Value) {
            switch value {
            case .text(var text?):
                // With its length: SQLite need not measure a description of kilobytes again.
                text.withUTF8 { bytes in
                    guard let start = bytes.baseAddress else {
                        _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)  // a null pointer binds NULL
                        return
                    }
                    start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        _ = sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                    }
                }
            case .integer(let number?): sqlite3_bind_int64(handle, index, number)
            case .real(let number?): sqlite3_bind_double(handle, index, number)
            case .text(nil), .integer(nil), .real(nil): sqlite3_bind_null(handle, index)
            }
            index += 1
        }

        func execute() throws {
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
            }
        }
    }
}

/// A type a column's value is read as, straight from SQLite.
protocol ColumnValue {
    init(_ statement: SQLiteStatement, _ index: Int32)
}

extension String: ColumnValue {
    init(_ statement: SQLiteStatement, _ index: Int32) {
        let count = Int(sqlite3_column_bytes(statement, index))
        self = sqlite3_column_text(statement, index).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
    }
}

extension Int64: ColumnValue {
    init(_ statement: SQLiteStatement, _ index: Int32) { self = sqlite3_column_int64(statement, index) }
}

extension Int: ColumnValue {
    init(_ statement: SQLiteStatement, _ index: Int32) { self = Int(sqlite3_column_int64(statement, index)) }
}

extension Double: ColumnValue {
    init(_ statement: SQLiteStatement, _ index: Int32) { self = sqlite3_column_double(statement, index) }
}

extension Bool: ColumnValue {
    init(_ statement: SQLiteStatement, _ index: Int32) { self = sqlite3_column_int64(statement, index) != 0 }
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
