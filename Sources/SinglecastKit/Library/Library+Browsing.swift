import Foundation
import GRDB

/// A window of a podcast's episodes in feed order, and how many the listing has.
public struct EpisodeWindowPage: Equatable, Sendable {
    /// How many episodes the listing has (those whose title matches, with a filter).
    public var total: Int
    /// The episodes of the window, each with its download.
    public var entries: [EpisodeEntry]
}

extension Library {
    // MARK: - Browsing

    /// Every subscription without its counts, in the order `podcasts` numbers them: a read that
    /// does not grow with the number of episodes, for a first screen.
    public func subscribedPodcasts() async throws -> [StoredPodcast] {
        try await writer.read { db in try Self.subscribedPodcasts(db) }
    }

    static func subscribedPodcasts(_ db: Database) throws -> [StoredPodcast] {
        try Array(
            Row.fetchCursor(
                db, sql: "SELECT \(PodcastColumns.selection) FROM podcast WHERE subscribedAt IS NOT NULL ORDER BY subscribedAt, id"
            ).map(PodcastColumns.storedPodcast(from:)))
    }

    /// At most `limit` episodes of a podcast in feed order, from the `start`-th (counting from
    /// 0) of those whose title holds `titleContaining` (ASCII letters in any case; all of them
    /// when it is empty), with their downloads. It reads only the window's rows and their
    /// downloads, so that a window of a long podcast costs what one of a short one does.
    public func episodeWindow(podcastID: Int64, titleContaining filter: String = "", start: Int, limit: Int) async throws
        -> EpisodeWindowPage
    {
        try await writer.read { db in
            let filtering = filter.isEmpty ? "" : " AND episode.title LIKE ? ESCAPE '\\'"
            var arguments: StatementArguments = [podcastID]
            if !filter.isEmpty { arguments += [Self.likePattern(containing: filter)] }
            let total =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT COUNT(*) FROM episode WHERE podcastId = ? AND position IS NOT NULL\(filtering)"),
                    arguments: arguments) ?? 0
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(EpisodeColumns.entrySelection()) FROM \(EpisodeColumns.withPlayback)
                        WHERE episode.podcastId = ? AND episode.position IS NOT NULL\(filtering)
                        ORDER BY episode.position LIMIT ? OFFSET ?
                        """),
                arguments: arguments + [max(0, limit), max(0, start)])
            let urls = rows.compactMap { $0[EpisodeColumns.enclosureURLIndex] as String? }
            let downloads = try Self.downloads(enclosureURLs: urls, db: db)
            return EpisodeWindowPage(total: total, entries: rows.map { EpisodeColumns.entry(from: $0, downloads: downloads) })
        }
    }

    /// An episode's show notes as the feed gave them (HTML or text); nil when it has none.
    public func episodeDescription(id: Int64) async throws -> String? {
        try await writer.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT description FROM episode WHERE id = ?"), arguments: [id])
        }
    }

    /// The downloads of these enclosure URLs, by URL.
    static func downloads(enclosureURLs urls: [String], db: Database) throws -> [String: Download] {
        guard !urls.isEmpty else { return [:] }
        let rows = try DownloadRow.filter(urls.contains(Column("enclosureURL"))).fetchAll(db)
        return Dictionary(rows.map { ($0.enclosureURL, $0.download) }) { first, _ in first }
    }

    /// A LIKE pattern matching text that holds `text`, its wildcards taken literally.
    private static func likePattern(containing text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%\(escaped)%"
    }
}
