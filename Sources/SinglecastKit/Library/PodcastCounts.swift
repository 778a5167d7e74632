import GRDB

/// The one owner of a podcast's counts (listed, new, unplayed, downloaded episodes): how they
/// are counted from the episodes, and where they are kept (the `podcastCounts` table, which
/// the triggers of migration `v12-podcast-counts` keep in step between saves).
enum PodcastCounts {
    /// Counts a podcast's episodes again and keeps the result; a feed's save calls it once its
    /// episodes are written, since a save changes many episodes at once and the triggers follow
    /// single changes only.
    static func recount(podcastID: Int64, db: Database) throws {
        try db.cachedStatement(sql: recountSQL).execute(arguments: [podcastID])
    }

    private static let recountSQL = """
        INSERT INTO podcastCounts (podcastId, episodeCount, newCount, unplayedCount, downloadedCount)
        SELECT ?1,
          (SELECT COUNT(*) FROM episode WHERE podcastId = ?1 AND position IS NOT NULL),
          -- Through the index of new episodes, which are few, rather than the podcast's rows.
          (SELECT COUNT(*) FROM episode WHERE podcastId = ?1 AND isNew = 1),
          (SELECT COUNT(*) FROM \(EpisodeColumns.withPlayback)
            WHERE podcastId = ?1 AND position IS NOT NULL AND playedAt IS NULL),
          -- Most saves happen in a library without a finished download: those need not read
          -- every episode row for its enclosure.
          CASE WHEN EXISTS (SELECT 1 FROM download WHERE state = 'completed') THEN
            (SELECT COUNT(*) FROM episode JOIN download ON download.enclosureURL = episode.enclosureURL
              WHERE episode.podcastId = ?1 AND download.state = 'completed')
          ELSE 0 END
        WHERE true
        ON CONFLICT (podcastId) DO UPDATE SET
          episodeCount = excluded.episodeCount, newCount = excluded.newCount,
          unplayedCount = excluded.unplayedCount, downloadedCount = excluded.downloadedCount
        -- A feed saved unchanged writes nothing.
        WHERE (episodeCount, newCount, unplayedCount, downloadedCount)
          <> (excluded.episodeCount, excluded.newCount, excluded.unplayedCount, excluded.downloadedCount)
        """

    /// The columns a query of podcasts joined with `podcastCounts` reads them from.
    static let selection =
        "podcastCounts.episodeCount, podcastCounts.newCount, podcastCounts.unplayedCount, podcastCounts.downloadedCount"

    /// The counts in `row`, whose columns from `index` on are ``selection``'s.
    static func read(_ row: Row, from index: Int) -> (episodes: Int, new: Int, unplayed: Int, downloaded: Int) {
        (row[index], row[index + 1], row[index + 2], row[index + 3])
    }
}
