import Foundation
import GRDB
import GRDBSQLite

/// How an `Episode` maps to a row of the `episode` table.
///
/// Rows are bound with SQLite's C API: a 20,000-item feed is saved in one pass, and GRDB's
/// general-purpose argument conversion would cost more than the parse.
enum EpisodeColumns {
    static let upsertSQL = """
        INSERT INTO episode (podcastId, identity, position, title, guid, link, published, duration,
          description, enclosureURL, enclosureLength, enclosureType, season, episodeNumber, explicit,
          transcriptURL, chaptersURL, fingerprint)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(podcastId, identity) DO UPDATE SET
          fingerprint = excluded.fingerprint, position = excluded.position, title = excluded.title, guid = excluded.guid,
          link = excluded.link, published = excluded.published, duration = excluded.duration,
          description = excluded.description, enclosureURL = excluded.enclosureURL,
          enclosureLength = excluded.enclosureLength, enclosureType = excluded.enclosureType,
          season = excluded.season, episodeNumber = excluded.episodeNumber, explicit = excluded.explicit,
          transcriptURL = excluded.transcriptURL, chaptersURL = excluded.chaptersURL
        """

    /// Saves a feed's episodes in feed order (position 1 is the first item), batch by batch.
    /// Episodes are matched by identity; an episode whose content and position are unchanged is
    /// not rewritten; episodes gone from the feed keep their rows without a position.
    struct Saver {
        private let db: Database
        private let podcastID: Int64
        private let upsert: Statement
        private var stored: [String: (fingerprint: Int64, position: Int?)] = [:]
        private var seen = Set<String>()
        private var position = 0

        init(podcastID: Int64, db: Database) throws {
            self.db = db
            self.podcastID = podcastID
            upsert = try db.cachedStatement(sql: upsertSQL)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT identity, fingerprint, position FROM episode WHERE podcastId = ?", arguments: [podcastID])
            while let row = try rows.next() {
                stored[row[0]] = (row[1] ?? 0, row[2])
            }
        }

        /// Saves the next episodes of the feed.
        mutating func save(_ episodes: [Episode]) throws {
            for episode in episodes {
                position += 1
                let identity = uniqueIdentity(of: episode, among: &seen)
                let fingerprint = fingerprint(of: episode)
                if let existing = stored[identity], existing.fingerprint == fingerprint, existing.position == position {
                    continue
                }
                try EpisodeColumns.upsert(
                    episode, podcastID: podcastID, identity: identity, position: position, fingerprint: fingerprint,
                    with: upsert)
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

    /// A stable 64-bit hash of everything stored for an episode (Swift's `Hasher` is seeded
    /// per process, so it cannot be stored): FNV-1a over 8-byte words of each field.
    static func fingerprint(of episode: Episode) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x100_0000_01b3
            hash ^= hash >> 29
        }
        func mix(_ text: String?) {
            guard var text else { return mix(UInt64.max) }
            text.withUTF8 { bytes in
                var offset = 0
                while offset + 8 <= bytes.count {
                    mix(UInt64(littleEndian: UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                    offset += 8
                }
                var tail: UInt64 = 0
                for byte in bytes[offset...] { tail = tail << 8 | UInt64(byte) }
                mix(tail)
                mix(UInt64(bytes.count))
            }
        }
        mix(episode.title)
        mix(episode.guid)
        mix(episode.link)
        mix(episode.published.map { UInt64(bitPattern: Int64($0.timeIntervalSince1970 * 1000)) } ?? .max)
        mix(episode.duration.map { UInt64(bitPattern: Int64($0)) } ?? .max)
        mix(episode.description)
        mix(episode.enclosure?.url)
        mix(episode.enclosure?.length.map { UInt64(bitPattern: $0) } ?? .max)
        mix(episode.enclosure?.type)
        mix(episode.season.map { UInt64(bitPattern: Int64($0)) } ?? .max)
        mix(episode.episodeNumber.map { UInt64(bitPattern: Int64($0)) } ?? .max)
        mix(episode.explicit.map { $0 ? 1 : 0 } ?? .max)
        mix(episode.transcriptURL)
        mix(episode.chaptersURL)
        return Int64(bitPattern: hash)
    }

    /// Runs the upsert statement for one episode.
    private static func upsert(
        _ episode: Episode, podcastID: Int64, identity: String, position: Int, fingerprint: Int64, with statement: Statement
    ) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var binder = Binder(handle: handle)
        binder.bind(podcastID)
        binder.bind(identity)
        binder.bind(Int64(position))
        binder.bind(episode.title)
        binder.bind(episode.guid)
        binder.bind(episode.link)
        binder.bind(episode.published?.timeIntervalSince1970)
        binder.bind(episode.duration.map(Int64.init))
        binder.bind(episode.description)
        binder.bind(episode.enclosure?.url)
        binder.bind(episode.enclosure?.length)
        binder.bind(episode.enclosure?.type)
        binder.bind(episode.season.map(Int64.init))
        binder.bind(episode.episodeNumber.map(Int64.init))
        binder.bind(episode.explicit.map { $0 ? Int64(1) : Int64(0) })
        binder.bind(episode.transcriptURL)
        binder.bind(episode.chaptersURL)
        binder.bind(fingerprint)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
    }

    static func episode(from row: Row) -> Episode {
        let enclosureURL: String? = row["enclosureURL"]
        let enclosure = enclosureURL.map { Enclosure(url: $0, length: row["enclosureLength"], type: row["enclosureType"]) }
        let published: Double? = row["published"]
        return Episode(
            title: row["title"], guid: row["guid"], link: row["link"],
            published: published.map(Date.init(timeIntervalSince1970:)), duration: row["duration"],
            description: row["description"], enclosure: enclosure, season: row["season"],
            episodeNumber: row["episodeNumber"], explicit: row["explicit"],
            transcriptURL: row["transcriptURL"], chaptersURL: row["chaptersURL"])
    }

    /// Binds values to consecutive parameters, nil as NULL.
    private struct Binder {
        let handle: SQLiteStatement
        var index: Int32 = 1

        /// SQLite copies the bytes before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        mutating func bind(_ value: String?) {
            if let value {
                sqlite3_bind_text(handle, index, value, -1, Self.transient)
            } else {
                sqlite3_bind_null(handle, index)
            }
            index += 1
        }

        mutating func bind(_ value: Int64?) {
            if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
            index += 1
        }

        mutating func bind(_ value: Double?) {
            if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
            index += 1
        }
    }
}
