import Foundation
import GRDB

/// The search index's tables (see the `v11-find-index` migration): what is still to index,
/// the documents written, and the search itself.
enum FindIndex {
    /// Episodes indexed in one transaction: few enough that an interruption loses little, many
    /// enough that FTS5 writes large segments (each commit writes one).
    static let batchSize = 2000
    /// Transcripts indexed in one transaction (200 of an hour each hold some 20 MB of text),
    /// for the same reasons.
    static let transcriptBatchSize = 200

    /// The `setting` that holds the highest episode id indexed (ids only grow: any above it is new).
    private static let markKey = "findIndexedThrough"
    /// The `setting` that holds what the saved transcripts were when last indexed (their count
    /// and latest change), so that a `find` with nothing new does not compare them one by one.
    private static let transcriptStampKey = "findTranscriptStamp"

    /// The weights of `bm25()` for title, notes and transcript.
    private static let weights = "10.0, 4.0, 1.0"

    // MARK: - What is to index

    /// What the index lacks, read cheaply: how many episodes to index, whether the saved
    /// transcripts changed, and whether unreachable documents outnumber the live ones.
    struct Plan {
        var episodes: Int
        var transcriptsChanged: Bool
        var needsRebuild: Bool

        init(_ db: Database) throws {
            let mark = try FindIndex.mark(db)
            episodes =
                try Int.fetchOne(
                    db,
                    sql: "SELECT (SELECT COUNT(*) FROM episode WHERE id > ?) + (SELECT COUNT(*) FROM findDirty)",
                    arguments: [mark]) ?? 0
            transcriptsChanged = try TranscriptChanges.stamp(db) != String.fetchOne(
                db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [FindIndex.transcriptStampKey])
            if episodes > 0 || transcriptsChanged {
                // Counted only when there is work: a `find` with none stays a lookup.
                let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM findText_docsize") ?? 0
                let live = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM findDocument") ?? 0
                needsRebuild = rows - live > max(live, FindIndex.batchSize)
            } else {
                needsRebuild = false
            }
        }

        var hasWork: Bool { episodes > 0 || transcriptsChanged }
    }

    /// Empties the index, to be built again from nothing: unreachable documents take room
    /// and weigh in every score.
    static func clear(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO findText (findText) VALUES ('delete-all');
                DELETE FROM findDocument;
                DELETE FROM findTranscript;
                DELETE FROM findDirty;
                DELETE FROM setting WHERE key IN (?, ?);
                """,
            arguments: [markKey, transcriptStampKey])
    }

    static func mark(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM setting WHERE key = ?", arguments: [markKey]) ?? 0
    }

    // MARK: - Episodes

    /// An episode's title and notes as read to be indexed; `version` is its change count for
    /// an episode marked changed.
    struct EpisodeText: Sendable {
        var id: Int64
        var title: String
        var description: String?
        var version: Int64?
        var ranking: Ranking
    }

    /// What a document holds of its episode to be ranked and filtered without it.
    struct Ranking: Sendable {
        var podcastID: Int64
        var published: Double?
        var unlisted: Bool
    }

    /// An episode's title and notes as indexed.
    struct EpisodeDocument: Sendable {
        var episode: EpisodeText
        var notes: String
    }

    /// The next episodes to index: changed ones (`dirtyOnly`), or those past `after`, by id.
    static func episodeBatch(_ db: Database, dirtyOnly: Bool, after: Int64, limit: Int) throws -> [EpisodeText] {
        let sql =
            dirtyOnly
            ? """
            SELECT \(columns), findDirty.version FROM findDirty
            JOIN episode ON episode.id = findDirty.episodeId ORDER BY findDirty.episodeId LIMIT ?
            """
            : """
            SELECT \(columns), findDirty.version FROM episode
            LEFT JOIN findDirty ON findDirty.episodeId = episode.id WHERE episode.id > ? ORDER BY episode.id LIMIT ?
            """
        let arguments: StatementArguments = dirtyOnly ? [limit] : [after, limit]
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
            EpisodeText(id: row[0], title: row[1], description: row[2], version: row[6], ranking: ranking(row, from: 3))
        }
    }

    /// The columns an episode is indexed from: id, title, description, then its ranking's.
    private static let columns =
        "episode.id, episode.title, episode.description, episode.podcastId, episode.published, episode.position IS NULL"

    private static func ranking(_ row: Row, from index: Int) -> Ranking {
        Ranking(podcastID: row[index], published: row[index + 1], unlisted: row[index + 2])
    }

    /// The text indexed for an episode's show notes: their paragraphs, without the list of links.
    static func notesText(_ description: String?) -> String {
        description.map { notesText(ShowNotes($0)) } ?? ""
    }

    private static func notesText(_ notes: ShowNotes) -> String {
        notes.paragraphs.joined(separator: "\n")
    }

    /// The documents of a batch, its notes reduced to text on every core.
    static func documents(of batch: [EpisodeText]) async -> [EpisodeDocument] {
        let notes = await ShowNotes.reduce(batch.map(\.description)) { notesText($0) }
        return zip(batch, notes).map { EpisodeDocument(episode: $0, notes: $1 ?? "") }
    }

    /// Writes a batch of episode documents, in place of those of the same episodes when they
    /// were `changed` (episodes past the mark have none), clears their change marks (unless
    /// they changed again meanwhile) and moves the mark to `through`.
    static func store(_ documents: [EpisodeDocument], changed: Bool, through mark: Int64?, db: Database) throws {
        let drop = try db.cachedStatement(sql: "DELETE FROM findDocument WHERE episodeId = ? AND extraId IS NULL")
        let document = try db.cachedStatement(sql: insertDocument)
        let text = try db.cachedStatement(sql: "INSERT INTO findText (rowid, title, notes) VALUES (?, ?, ?)")
        let clean = try db.cachedStatement(sql: "DELETE FROM findDirty WHERE episodeId = ? AND version = ?")
        var number = try nextDocumentNumber(db)
        for item in documents {
            let id = item.episode.id
            if changed { try drop.execute(arguments: [id]) }
            try insert(document, number: number, episodeID: id, ranking: item.episode.ranking)
            try StatementBinder.execute(
                text, number.databaseValue, item.episode.title.databaseValue, item.notes.databaseValue)
            number += 1
            if let version = item.episode.version { try clean.execute(arguments: [id, version]) }
        }
        if let mark {
            try db.execute(
                sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [markKey, String(mark)])
        }
    }

    /// The number the next document takes: above every number the index has held words for
    /// since it was last emptied (its `_docsize` rows outlive the documents removed), so that
    /// the unreachable words of a removed document never match a new one.
    private static func nextDocumentNumber(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(id), 0) + 1 FROM findText_docsize") ?? 1
    }

    private static let insertDocument = """
        INSERT INTO findDocument (id, episodeId, podcastId, published, unlisted, extraId, firstCue, start)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    private static func insert(
        _ statement: Statement, number: Int64, episodeID: Int64, ranking: Ranking, extraID: Int64? = nil,
        firstCue: Int? = nil, start: Double? = nil
    ) throws {
        try StatementBinder.execute(
            statement, number.databaseValue, episodeID.databaseValue, ranking.podcastID.databaseValue,
            ranking.published.databaseValue, ranking.unlisted.databaseValue, extraID.databaseValue,
            firstCue.databaseValue, start.databaseValue)
    }

    // MARK: - Transcripts

    /// A saved transcript of an episode.
    struct SavedTranscript: Sendable {
        var episodeID: Int64
        var extraID: Int64
        var file: String
        var format: TranscriptFormat
        var updatedAt: String?
        var ranking: Ranking?

        func cues() throws(UnreadableTranscript) -> [TranscriptCue] {
            try TranscriptReader.cues(file: file, format: format)
        }
    }

    /// The transcripts saved since the index last looked, and those indexed that are deleted
    /// or changed.
    struct TranscriptChanges: Sendable {
        var added: [SavedTranscript] = []
        var removed: [(episodeID: Int64, extraID: Int64)] = []
        var stamp: String

        init(_ db: Database) throws {
            stamp = try Self.stamp(db)
            var indexed: [String: String?] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT episodeId, extraId, updatedAt FROM findTranscript") {
                indexed["\(row[0] as Int64) \(row[1] as Int64)"] = row[2] as String?
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT episode.id, downloadExtra.id, downloadExtra.file, downloadExtra.type, downloadExtra.url,
                      downloadExtra.updatedAt, episode.podcastId, episode.published, episode.position IS NULL
                    FROM downloadExtra JOIN download ON download.id = downloadExtra.downloadId
                    JOIN episode ON episode.enclosureURL = download.enclosureURL
                    WHERE downloadExtra.kind = 'transcript' AND downloadExtra.failure IS NULL
                    """)
            for row in rows {
                let key = "\(row[0] as Int64) \(row[1] as Int64)"
                let updatedAt = row[5] as String?
                if let known = indexed.removeValue(forKey: key) {
                    if known == updatedAt { continue }
                    removed.append((row[0], row[1]))
                }
                added.append(
                    SavedTranscript(
                        episodeID: row[0], extraID: row[1], file: row[2],
                        format: FindIndex.format(file: row[2], type: row[3], url: row[4]), updatedAt: updatedAt,
                        ranking: FindIndex.ranking(row, from: 6)))
            }
            for key in indexed.keys {
                let ids = key.split(separator: " ").compactMap { Int64($0) }
                removed.append((ids[0], ids[1]))
            }
        }

        /// The saved transcripts' count and latest change.
        static func stamp(_ db: Database) throws -> String {
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*), MAX(updatedAt) FROM downloadExtra WHERE kind = 'transcript' AND failure IS NULL
                    """)
            return "\(row?[0] as Int? ?? 0) \(row?[1] as String? ?? "")"
        }
    }

    static func storeTranscriptStamp(_ stamp: String, db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [transcriptStampKey, stamp])
    }

    /// Drops the documents of transcripts deleted or changed.
    static func remove(_ transcripts: [(episodeID: Int64, extraID: Int64)], db: Database) throws {
        let documents = try db.cachedStatement(sql: "DELETE FROM findDocument WHERE episodeId = ? AND extraId = ?")
        let record = try db.cachedStatement(sql: "DELETE FROM findTranscript WHERE episodeId = ? AND extraId = ?")
        for transcript in transcripts {
            try documents.execute(arguments: [transcript.episodeID, transcript.extraID])
            try record.execute(arguments: [transcript.episodeID, transcript.extraID])
        }
    }

    /// A transcript's run of cues as indexed: where it begins and its text, a cue a line.
    struct TranscriptDocument: Sendable {
        var firstCue: Int
        var start: Double?
        var text: String
    }

    /// A transcript's documents, a run of cues each.
    static func documents(of cues: [TranscriptCue]) -> [TranscriptDocument] {
        runs(of: cues).map { run in
            TranscriptDocument(firstCue: run.lowerBound, start: cues[run.lowerBound].start, text: runText(cues[run]))
        }
    }

    /// Writes the documents of a batch of transcripts and records each as indexed (as
    /// unreadable when its `documents` are nil).
    static func store(_ batch: [(transcript: SavedTranscript, documents: [TranscriptDocument]?)], db: Database) throws {
        let document = try db.cachedStatement(sql: insertDocument)
        let text = try db.cachedStatement(sql: "INSERT INTO findText (rowid, transcript) VALUES (?, ?)")
        let record = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO findTranscript (episodeId, extraId, updatedAt, unreadable) VALUES (?, ?, ?, ?)")
        var number = try nextDocumentNumber(db)
        for (transcript, documents) in batch {
            if let documents, let ranking = transcript.ranking {
                for run in documents {
                    try insert(
                        document, number: number, episodeID: transcript.episodeID, ranking: ranking,
                        extraID: transcript.extraID, firstCue: run.firstCue, start: run.start)
                    try StatementBinder.execute(text, number.databaseValue, run.text.databaseValue)
                    number += 1
                }
            }
            try record.execute(arguments: [transcript.episodeID, transcript.extraID, transcript.updatedAt, documents == nil])
        }
    }

    /// About how many bytes of text a document of a transcript holds (a hundred words or so):
    /// a match is placed within a minute or so of talk, and a one-hour transcript makes tens
    /// of documents, not thousands.
    static let bytesPerRun = 700

    /// The transcript's cues in runs of about ``bytesPerRun`` bytes, by their indices.
    static func runs(of cues: [TranscriptCue]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        var bytes = 0
        for (index, cue) in cues.enumerated() {
            bytes += cue.text.utf8.count + 1
            if bytes >= bytesPerRun || index == cues.count - 1 {
                runs.append(start..<(index + 1))
                start = index + 1
                bytes = 0
            }
        }
        return runs
    }

    /// The text of a run of cues, a cue a line.
    static func runText(_ cues: ArraySlice<TranscriptCue>) -> String {
        cues.map(\.text).joined(separator: "\n")
    }

    // MARK: - Searching

    /// An episode a search found, and the document it matched best.
    struct Hit: Sendable {
        var podcast: StoredPodcast
        var entry: EpisodeEntry
        var description: String?
        /// For a transcript's document: the transcript, and the index of its first cue.
        var transcript: SavedTranscript?
        var firstCue: Int?
        var start: Double?
        var score: Double
    }

    /// The best `limit` episodes that match `expression` (an FTS5 query built by
    /// ``FindQuery``), with how many match in all. An episode no longer in its feed is not found.
    static func search(_ expression: String, podcastID: Int64?, limit: Int, db: Database) throws -> ([Hit], Int) {
        // Each episode's best document is picked here, as the matches stream by: grouping and
        // counting them in SQL sorts and buffers every match.
        let matches = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT findDocument.episodeId, bm25(findText, \(weights)), findDocument.published,
                      findDocument.extraId, findDocument.firstCue, findDocument.start
                    FROM findText JOIN findDocument ON findDocument.id = findText.rowid
                    WHERE findText MATCH :expression AND NOT findDocument.unlisted
                      AND (:podcast IS NULL OR findDocument.podcastId = :podcast)
                    """),
            arguments: ["expression": expression, "podcast": podcastID])
        var best: [Int64: Match] = [:]
        while let row = try matches.next() {
            let episodeID: Int64 = row[0]
            let score: Double = row[1]
            if let known = best[episodeID], known.score <= score { continue }
            best[episodeID] = Match(
                episodeID: episodeID, score: score, published: row[2], extraID: row[3], firstCue: row[4], start: row[5])
        }
        let rows = best.values.sorted(by: Match.ranksBefore).prefix(limit)
        let total = best.count
        let found = try zip(rows, episodes(ids: rows.map(\.episodeID), db: db)).compactMap { match, found -> Hit? in
            guard var hit = found else { return nil }
            hit.score = match.score
            if let extraID = match.extraID {
                hit.firstCue = match.firstCue
                hit.start = match.start
                hit.transcript = try transcript(episodeID: hit.entry.id, extraID: extraID, db: db)
            }
            return hit
        }
        return (found, total)
    }

    /// An episode's best matching document.
    private struct Match {
        var episodeID: Int64
        var score: Double
        var published: Double?
        var extraID: Int64?
        var firstCue: Int?
        var start: Double?

        /// Better scores first (`bm25()` is lower the better), ties newest first.
        static func ranksBefore(_ a: Match, _ b: Match) -> Bool {
            if a.score != b.score { return a.score < b.score }
            if a.published != b.published { return (a.published ?? -.infinity) > (b.published ?? -.infinity) }
            return a.episodeID > b.episodeID
        }
    }

    /// Episodes as results show them, with their podcasts and their text, in the order of
    /// `ids` (nil for one no longer in the library). Only their own downloads are read: a
    /// library keeps thousands.
    static func episodes(ids: [Int64], db: Database) throws -> [Hit?] {
        let count = EpisodeColumns.entryColumnCount
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(EpisodeColumns.entrySelection()), episode.podcastId, episode.description
                FROM \(EpisodeColumns.withPlayback) WHERE episode.id = ?
                """)
        let rows = try ids.map { id in try Row.fetchOne(statement, arguments: [id]) }
        let downloads = try Library.downloads(
            enclosureURLs: rows.compactMap { $0?[EpisodeColumns.enclosureURLIndex] as String? }, db: db)
        var podcasts: [Int64: StoredPodcast] = [:]
        return try rows.map { row in
            guard let row else { return nil }
            let podcastID: Int64 = row[count]
            if podcasts[podcastID] == nil { podcasts[podcastID] = try Library.podcast(db, id: podcastID) }
            guard let podcast = podcasts[podcastID] else { return nil }
            let entry = EpisodeColumns.entry(from: row, downloads: downloads)
            return Hit(podcast: podcast, entry: entry, description: row[count + 1], score: 0)
        }
    }

    private static func transcript(episodeID: Int64, extraID: Int64, db: Database) throws -> SavedTranscript? {
        guard let row = try Row.fetchOne(db, sql: "SELECT file, type, url FROM downloadExtra WHERE id = ?", arguments: [extraID])
        else { return nil }
        return SavedTranscript(
            episodeID: episodeID, extraID: extraID, file: row[0], format: format(file: row[0], type: row[1], url: row[2]),
            updatedAt: nil)
    }

    /// A saved transcript's format: as the feed announced it, else by its file's extension,
    /// else plain text.
    private static func format(file: String, type: String?, url: String) -> TranscriptFormat {
        TranscriptFormat(Transcript(url: url, type: type)) ?? TranscriptFormat(Transcript(url: file)) ?? .text
    }
}
