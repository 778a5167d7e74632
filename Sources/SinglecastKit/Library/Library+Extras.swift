import Foundation
import GRDB

extension Library {
    // MARK: - Transcripts and chapters

    /// Sets whether the downloads of a podcast also fetch its episodes' transcripts and chapters.
    public func setExtras(podcastID: Int64, enabled: Bool) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE podcast SET extras = ? WHERE id = ?", arguments: [enabled, podcastID])
        }
    }

    /// Whether a subscription that lists an episode with this enclosure URL asks for extras.
    /// (It runs for every completed download: only the episodes of podcasts that want extras are
    /// searched, through the podcast index, never the whole table.)
    public func subscriptionWantsExtras(enclosureURL: String) async throws -> Bool {
        try await writer.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM episode WHERE enclosureURL = ? AND podcastId IN
                      (SELECT id FROM podcast WHERE subscribedAt IS NOT NULL AND extras))
                    """,
                arguments: [enclosureURL]) ?? false
        }
    }

    /// The episode with this enclosure URL that lists transcripts or chapters (the one of the
    /// feed read most recently, when several podcasts list it); nil when none does.
    public func episodeOfferingExtras(enclosureURL: String) async throws -> Episode? {
        try await latestEpisode(enclosureURL: enclosureURL, where: "(transcriptURL IS NOT NULL OR chaptersURL IS NOT NULL)")
    }

    /// Records what became of a download's extras: `files` saved or failing now; earlier
    /// failures of extras no longer in `offered` (the feed dropped them) are forgotten.
    func recordExtras(downloadID: Int64, _ files: [ExtraFile], offered: Set<String>) async throws {
        try await writer.write { db in
            let failed = try String.fetchAll(
                db, sql: "SELECT file FROM downloadExtra WHERE downloadId = ? AND failure IS NOT NULL", arguments: [downloadID])
            for file in failed where !offered.contains(file) {
                try db.execute(sql: "DELETE FROM downloadExtra WHERE downloadId = ? AND file = ?", arguments: [downloadID, file])
            }
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO downloadExtra (downloadId, kind, url, type, language, file, bytes, failure, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(downloadId, file) DO UPDATE SET kind = excluded.kind, url = excluded.url,
                      type = excluded.type, language = excluded.language, bytes = excluded.bytes,
                      failure = excluded.failure, updatedAt = excluded.updatedAt
                    """)
            // `failure` holds the failure as a value (JSON of ExtraError); rows from before hold
            // a sentence, read back as an unexpected failure.
            for file in files {
                let extra = file.extra
                try upsert.execute(arguments: [
                    downloadID, extra.kind.rawValue, extra.url, extra.type, extra.language, file.file, file.bytes,
                    file.failure?.storedText, Date(),
                ])
            }
        }
    }

    /// The extras of every download that has some, by download id, in the order first recorded.
    public func extrasByDownload() async throws -> [Int64: [ExtraFile]] {
        try await writer.read { db in
            var extras: [Int64: [ExtraFile]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM downloadExtra ORDER BY id") {
                let extra = Extra(
                    kind: Extra.Kind(rawValue: row["kind"]) ?? .transcript, url: row["url"], type: row["type"],
                    language: row["language"])
                extras[row["downloadId"], default: []].append(
                    ExtraFile(
                        extra: extra, file: row["file"], bytes: row["bytes"],
                        failure: (row["failure"] as String?).map { ExtraError.stored($0, url: extra.url) }))
            }
            return extras
        }
    }

    /// Deletes the extras saved beside a download's file, and forgets them.
    public func removeExtras(ofDownload downloadID: Int64) async throws {
        try await withDownloadStore { store in try store.removeExtras(ofDownload: downloadID) }
    }
}

extension DownloadStore {
    /// Deletes the extras saved beside a download's file, and forgets them (with the episode's
    /// file, by retention or `delete`).
    func removeExtras(ofDownload downloadID: Int64) throws {
        for file in try String.fetchAll(db, sql: "SELECT file FROM downloadExtra WHERE downloadId = ?", arguments: [downloadID]) {
            unlink(file)
            unlink(EpisodesFolder.partialFile(for: URL(fileURLWithPath: file)).path)
        }
        try db.execute(sql: "DELETE FROM downloadExtra WHERE downloadId = ?", arguments: [downloadID])
    }
}
