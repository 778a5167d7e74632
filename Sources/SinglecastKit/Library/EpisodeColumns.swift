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
    /// to put it back from a row.
    struct Field: Sendable {
        let name: String
        let value: @Sendable (Episode) -> Value
        let read: @Sendable (inout Episode, Row) -> Void
    }

    /// Every column that holds what a feed says of an episode, in binding order.
    static let fields: [Field] = [
        Field(name: "title", value: { .text($0.title) }, read: { $0.title = $1["title"] }),
        Field(name: "guid", value: { .text($0.guid) }, read: { $0.guid = $1["guid"] }),
        Field(name: "link", value: { .text($0.link) }, read: { $0.link = $1["link"] }),
        Field(
            name: "published", value: { .real($0.published?.timeIntervalSince1970) },
            read: { episode, row in
                episode.published = (row["published"] as Double?).map(Date.init(timeIntervalSince1970:))
            }),
        Field(name: "duration", value: { .integer($0.duration.map(Int64.init)) }, read: { $0.duration = $1["duration"] }),
        Field(name: "description", value: { .text($0.description) }, read: { $0.description = $1["description"] }),
        Field(
            name: "enclosureURL", value: { .text($0.enclosure?.url) },
            read: { episode, row in episode.enclosure = (row["enclosureURL"] as String?).map { Enclosure(url: $0) } }),
        Field(
            name: "enclosureLength", value: { .integer($0.enclosure?.length) },
            read: { episode, row in episode.enclosure?.length = row["enclosureLength"] }),
        Field(
            name: "enclosureType", value: { .text($0.enclosure?.type) },
            read: { episode, row in episode.enclosure?.type = row["enclosureType"] }),
        Field(name: "season", value: { .integer($0.season.map(Int64.init)) }, read: { $0.season = $1["season"] }),
        Field(
            name: "episodeNumber", value: { .integer($0.episodeNumber.map(Int64.init)) },
            read: { $0.episodeNumber = $1["episodeNumber"] }),
        Field(
            name: "explicit", value: { .integer($0.explicit.map { $0 ? 1 : 0 }) },
            read: { $0.explicit = $1["explicit"] }),
        // The first transcript's URL, the one column rows saved before `v4-extras` have.
        Field(
            name: "transcriptURL", value: { .text($0.transcripts.first?.url) },
            read: { episode, row in
                episode.transcripts = (row["transcriptURL"] as String?).map { [Transcript(url: $0)] } ?? []
            }),
        Field(name: "chaptersURL", value: { .text($0.chaptersURL) }, read: { $0.chaptersURL = $1["chaptersURL"] }),
        // Every transcript as JSON; NULL when there is none (or the row predates the column).
        Field(
            name: "transcripts", value: { .text(TranscriptsColumn.text($0.transcripts)) },
            read: { episode, row in
                if let transcripts = TranscriptsColumn.transcripts(row["transcripts"]) { episode.transcripts = transcripts }
            }),
    ]

    /// The columns that are the library's own bookkeeping rather than the feed's content.
    static let bookkeeping = ["id", "podcastId", "identity", "position", "fingerprint", "isNew", "isDeleted"]

    static let upsertSQL: String = {
        let names = fields.map(\.name)
        let columns = ["podcastId", "identity", "position"] + names + ["fingerprint"]
        let updates = (["fingerprint", "position"] + names).map { "\($0) = excluded.\($0)" }
        return """
            INSERT INTO episode (\(columns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            ON CONFLICT(podcastId, identity) DO UPDATE SET \(updates.joined(separator: ", "))
            RETURNING id
            """
    }()

    /// Saves a feed's episodes in feed order (position 1 is the first item), batch by batch.
    /// Episodes are matched by identity; an episode whose content and position are unchanged is
    /// not rewritten; episodes gone from the feed keep their rows without a position.
    struct Saver {
        /// What the table holds of an episode before the save.
        private struct Stored {
            var id: Int64
            var fingerprint: Int64
            var position: Int?
            var isNew: Bool
            var isDeleted: Bool
        }

        private let db: Database
        private let podcastID: Int64
        private let upsert: Statement
        private var stored: [String: Stored] = [:]
        private var seen = Set<String>()
        private var position = 0
        /// The identities of the episodes this save added, in feed order.
        private(set) var added: [String] = []
        /// Every saved episode's row id and marks, in feed order.
        private(set) var rows: [(id: Int64, isNew: Bool, isDeleted: Bool)] = []

        init(podcastID: Int64, db: Database) throws {
            self.db = db
            self.podcastID = podcastID
            upsert = try db.cachedStatement(sql: upsertSQL)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT identity, id, fingerprint, position, isNew, isDeleted FROM episode WHERE podcastId = ?",
                arguments: [podcastID])
            while let row = try rows.next() {
                stored[row[0]] = Stored(id: row[1], fingerprint: row[2] ?? 0, position: row[3], isNew: row[4], isDeleted: row[5])
            }
        }

        /// Saves the next episodes of the feed.
        mutating func save(_ episodes: [Episode]) throws {
            for episode in episodes {
                position += 1
                let identity = uniqueIdentity(of: episode, among: &seen)
                let fingerprint = fingerprint(of: episode)
                let existing = stored[identity]
                if let existing, existing.fingerprint == fingerprint, existing.position == position {
                    rows.append((existing.id, existing.isNew, existing.isDeleted))
                    continue
                }
                if existing == nil { added.append(identity) }
                let id = try EpisodeColumns.upsert(
                    episode, podcastID: podcastID, identity: identity, position: position, fingerprint: fingerprint,
                    with: upsert)
                rows.append((id, existing?.isNew ?? false, existing?.isDeleted ?? false))
            }
        }

        /// Takes the positions away from the episodes no longer in the feed.
        func finish() throws {
            let clearPosition = try db.cachedStatement(
                sql: "UPDATE episode SET position = NULL WHERE podcastId = ? AND identity = ?")
            for (identity, existing) in stored where existing.position != nil && !seen.contains(identity) {
                try clearPosition.execute(arguments: [podcastID, identity])
            }
        }
    }

    /// An episode's identity, made unique within one feed: a feed that repeats a guid
    /// still lists every item under its own number.
    private static func uniqueIdentity(of episode: Episode, among seen: inout Set<String>) -> String {
        let base = episode.identity ?? "title:\(episode.title)"
        var identity = base
        var copy = 1
        while !seen.insert(identity).inserted {
            copy += 1
            identity = "\(base)#\(copy)"
        }
        return identity
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

    /// Runs the upsert statement for one episode; returns its row id.
    private static func upsert(
        _ episode: Episode, podcastID: Int64, identity: String, position: Int, fingerprint: Int64, with statement: Statement
    ) throws -> Int64 {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var binder = Binder(handle: handle)
        binder.bind(.integer(podcastID))
        binder.bind(.text(identity))
        binder.bind(.integer(Int64(position)))
        for field in fields { binder.bind(field.value(episode)) }
        binder.bind(.integer(fingerprint))
        var code = sqlite3_step(handle)
        let id = sqlite3_column_int64(handle, 0)
        if code == SQLITE_ROW { code = sqlite3_step(handle) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
        return id
    }

    /// The episode a row of the `episode` table holds.
    static func episode(from row: Row) -> Episode {
        var episode = Episode(title: "")
        for field in fields { field.read(&episode, row) }
        return episode
    }

    /// Binds values to consecutive parameters, nil as NULL.
    private struct Binder {
        let handle: SQLiteStatement
        var index: Int32 = 1

        /// SQLite copies the bytes before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        mutating func bind(_ value: Value) {
            switch value {
            case .text(let text?): sqlite3_bind_text(handle, index, text, -1, Self.transient)
            case .integer(let number?): sqlite3_bind_int64(handle, index, number)
            case .real(let number?): sqlite3_bind_double(handle, index, number)
            case .text(nil), .integer(nil), .real(nil): sqlite3_bind_null(handle, index)
            }
            index += 1
        }
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
