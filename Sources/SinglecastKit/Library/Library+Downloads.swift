import Foundation
import GRDB

extension Library {
    /// Every entry of the progress buffer, oldest first.
    public func downloads() async throws -> [Download] {
        try await writer.read { db in try DownloadRow.order(Column("id")).fetchAll(db).map(\.download) }
    }

    /// The entry for one enclosure URL, if it was ever asked for.
    public func download(enclosureURL: String) async throws -> Download? {
        try await writer.read { db in
            try DownloadRow.filter(DownloadRow.Columns.enclosureURL == enclosureURL).fetchOne(db)?.download
        }
    }

    /// The entry with the given id.
    public func download(id: Int64) async throws -> Download? {
        try await writer.read { db in try DownloadRow.fetchOne(db, key: id)?.download }
    }

    /// Runs `body` in one write transaction over the progress buffer's rows: the caller
    /// decides, the store only loads and saves.
    func withDownloadStore<T: Sendable>(_ body: @escaping @Sendable (DownloadStore) throws -> T) async throws -> T {
        try await writer.write { db in try body(DownloadStore(db: db)) }
    }
}

/// The progress buffer's rows inside one write transaction (see ``Library/withDownloadStore(_:)``).
struct DownloadStore {
    let db: Database

    func download(enclosureURL: String) throws -> Download? {
        try DownloadRow.filter(DownloadRow.Columns.enclosureURL == enclosureURL).fetchOne(db)?.download
    }

    func download(id: Int64) throws -> Download? {
        try DownloadRow.fetchOne(db, key: id)?.download
    }

    func all() throws -> [Download] {
        try DownloadRow.order(Column("id")).fetchAll(db).map(\.download)
    }

    /// The names of the entries' files that lie in `folder`: names no other episode may take.
    func namesInUse(in folder: URL) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT file FROM download").compactMap { path -> String? in
            let file = URL(fileURLWithPath: path)
            return file.deletingLastPathComponent().path == folder.path ? file.lastPathComponent : nil
        })
    }

    /// Inserts a new entry (its `id` is ignored) and returns it with its id; nil when an entry
    /// already has its enclosure URL or its file.
    func insert(_ download: Download, ignoringConflicts: Bool = false) throws -> Download? {
        var row = DownloadRow(download)
        row.id = nil
        try row.insert(db, onConflict: ignoringConflicts ? .ignore : nil)
        guard db.changesCount > 0, let id = row.id else { return nil }
        var inserted = download
        inserted.id = id
        return inserted
    }

    func update(_ download: Download) throws {
        try DownloadRow(download).update(db)
    }

    /// Records the episodes with these enclosure URLs as deleted, so updates skip them.
    func markEpisodesDeleted(enclosureURLs: [String]) throws {
        try Library.markDeleted(enclosureURLs: enclosureURLs, db: db)
    }

    /// The completed downloads of a podcast's episodes, most recently published first, each
    /// with whether its episode was played, for ``RetentionRule``.
    func downloadedFiles(podcastID: Int64) throws -> [RetentionRule.File] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT download.*, MAX(episodePlayback.playedAt IS NOT NULL) AS isPlayed
                FROM download JOIN episode ON episode.enclosureURL = download.enclosureURL
                LEFT JOIN episodePlayback ON episodePlayback.episodeId = episode.id
                WHERE episode.podcastId = ? AND download.state = 'completed'
                GROUP BY download.id
                ORDER BY MAX(episode.published) IS NULL, MAX(episode.published) DESC, MIN(episode.position)
                """,
            arguments: [podcastID]
        ).map { row in RetentionRule.File(download: try DownloadRow(row: row).download, isPlayed: row["isPlayed"] ?? false) }
    }
}

extension DownloadStore {
    /// The subscriptions with a retention policy that list an episode with this enclosure URL.
    func podcastsKeepingEpisodes(enclosureURL: String) throws -> [(id: Int64, keep: Int)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT DISTINCT podcast.id, podcast.keepEpisodes FROM podcast JOIN episode ON episode.podcastId = podcast.id
                WHERE episode.enclosureURL = ? AND podcast.subscribedAt IS NOT NULL AND podcast.keepEpisodes IS NOT NULL
                """,
            arguments: [enclosureURL]
        ).map { ($0[0], $0[1]) }
    }
}

// MARK: - Moving files

extension Library {
    /// The episode with this enclosure URL (of the feed read most recently, when several list it).
    public func episode(enclosureURL: String) async throws -> Episode? {
        try await latestEpisode(enclosureURL: enclosureURL, where: "1")
    }

    /// The episode with this enclosure URL that meets the SQL `condition`, of the feed read most
    /// recently when several podcasts list it.
    func latestEpisode(enclosureURL: String, where condition: String) async throws -> Episode? {
        try await writer.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(EpisodeColumns.entrySelection()) FROM \(EpisodeColumns.withPlayback)
                    WHERE enclosureURL = ? AND \(condition)
                    ORDER BY position IS NULL, id DESC LIMIT 1
                    """,
                arguments: [enclosureURL]
            ).map { EpisodeColumns.entry(from: $0, downloads: [:]).episode }
        }
    }

    /// The files of the extras saved beside a download's file.
    func extraFiles(ofDownload downloadID: Int64) async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT file FROM downloadExtra WHERE downloadId = ? AND failure IS NULL", arguments: [downloadID])
        }
    }

    /// Records, in one transaction, that a download's file and its extras now have the second
    /// name of each pair (the first is the file's own, the rest its extras').
    func recordMove(downloadID: Int64, moves: [(String, String)]) async throws {
        try await writer.write { db in
            for (index, (from, to)) in moves.enumerated() {
                if index == 0 {
                    try db.execute(sql: "UPDATE download SET file = ? WHERE id = ? AND file = ?", arguments: [to, downloadID, from])
                } else {
                    try db.execute(
                        sql: "UPDATE downloadExtra SET file = ? WHERE downloadId = ? AND file = ?", arguments: [to, downloadID, from])
                }
            }
        }
    }
}
