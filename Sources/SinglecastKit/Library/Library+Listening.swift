import Foundation
import GRDB

/// A change to where a listener is in an episode, as the library records it.
public enum PlaybackChange: Sendable, Equatable {
    /// Listening stopped (or is, for now) at `position` seconds, having started at `started`;
    /// `total` is the episode's length when known. With `keepsPlayed`, a played mark stays
    /// (a played episode being heard again, not yet stopped).
    case position(Double, started: Double, total: Double?, keepsPlayed: Bool = false)
    /// Heard to the end (`total` seconds long when known): the position is cleared.
    case played(total: Double?)
    /// Marked unheard: no position, no played mark.
    case unplayed
}

extension Library {
    // MARK: - Listening

    /// Records a change of an episode's playback at `date`, with the episode action that
    /// other devices learn it from, in one transaction. A played episode leaves `new`.
    /// Returns the episode's playback as it now is.
    @discardableResult
    public func recordPlayback(episodeID: Int64, _ change: PlaybackChange, at date: Date = Date()) async throws -> Playback {
        try await writer.write { db in try Self.recordPlayback(episodeID: episodeID, change, at: date, db: db) }
    }

    /// Records changes of several episodes' playback in one transaction; returns their playback
    /// as it now is, in the same order.
    public func recordPlayback(_ changes: [(episodeID: Int64, change: PlaybackChange)], at date: Date = Date()) async throws
        -> [Playback]
    {
        try await writer.write { db in
            try changes.map { try Self.recordPlayback(episodeID: $0.episodeID, $0.change, at: date, db: db) }
        }
    }

    /// Records a change of an episode's playback, and the episode action to send; returns
    /// the playback as it now is.
    static func recordPlayback(episodeID: Int64, _ change: PlaybackChange, at date: Date, db: Database) throws -> Playback {
        guard
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM episode WHERE id = ?)"), arguments: [episodeID])
                == true
        else { return Playback() }
        try changePlayback(episodeID: episodeID, change, at: date, recordsAction: true, db: db)
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT playPosition, playedAt FROM episodePlayback WHERE episodeId = ?"),
            arguments: [episodeID])
        return Playback(
            position: row?["playPosition"], playedAt: (row?["playedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    /// Changes an episode's playback, the one rule for it, and stamps the episode with the
    /// change's time. A change made here (`recordsAction`) always applies and records the
    /// episode action to send. A change received from another device (`recordsAction` false,
    /// see ``Library/applySync``) applies only when it is newer than the episode's last change,
    /// here or received (so an action received twice applies once), and records nothing to send
    /// back. Returns whether the episode changed. `episodeID` is an episode of the library.
    @discardableResult
    static func changePlayback(
        episodeID: Int64, _ change: PlaybackChange, at date: Date, recordsAction: Bool, db: Database
    ) throws -> Bool {
        let now = date.timeIntervalSince1970
        let action: (kind: EpisodeAction.Kind, started: Double?, position: Double?, total: Double?)
        switch change {
        case .position(let position, let started, let total, let keepsPlayed):
            try StatementBinder.execute(
                db.cachedStatement(sql: PlaybackSQL.position), episodeID.databaseValue, position.databaseValue,
                now.databaseValue, recordsAction.databaseValue, keepsPlayed.databaseValue)
            action = (.play, started, position, total)
        case .played(let total):
            try StatementBinder.execute(
                db.cachedStatement(sql: PlaybackSQL.played), episodeID.databaseValue, now.databaseValue,
                recordsAction.databaseValue)
            // As AntennaPod records it: a play whose position is the episode's end.
            action = (.play, total == nil ? nil : 0, total, total)
        case .unplayed:
            try StatementBinder.execute(
                db.cachedStatement(sql: PlaybackSQL.unplayed), episodeID.databaseValue, now.databaseValue,
                recordsAction.databaseValue)
            action = (.new, nil, nil, nil)
        }
        guard db.changesCount > 0 else { return false }
        if case .played = change {
            try db.cachedStatement(sql: "UPDATE episode SET isNew = 0 WHERE id = ? AND isNew").execute(arguments: [episodeID])
        }
        if recordsAction {
            try db.cachedStatement(
                sql: """
                    INSERT INTO episodeAction (podcastURL, episodeURL, guid, action, timestamp, started, position, total)
                    SELECT podcast.feedKey, episode.enclosureURL, episode.guid, ?, ?, ?, ?, ?
                    FROM episode JOIN podcast ON podcast.id = episode.podcastId
                    WHERE episode.id = ? AND episode.enclosureURL IS NOT NULL
                    """
            ).execute(
                arguments: [
                    action.kind.rawValue, now, action.started.map(Self.wholeSeconds), action.position.map(Self.wholeSeconds),
                    action.total.map(Self.wholeSeconds), episodeID,
                ])
        }
        return true
    }

    /// The statements of ``changePlayback(episodeID:_:at:recordsAction:db:)``, on the episode's
    /// row of `episodePlayback` (made by its first change): `?1` the episode, `?2` the change's
    /// time except for a position (`?2` the position, `?3` the time). Each changes a row that
    /// exists when the change is made here (the argument after the time) or is newer than the
    /// episode's last change.
    private enum PlaybackSQL {
        static let position = """
            INSERT INTO episodePlayback (episodeId, playPosition, heardAt, changedAt) VALUES (?1, ?2, ?3, ?3)
            ON CONFLICT (episodeId) DO UPDATE SET playPosition = ?2, heardAt = ?3,
              playedAt = CASE WHEN ?5 THEN playedAt END, changedAt = ?3
            WHERE \(appliesHere("?3", "?4"))
            """
        static let played = """
            INSERT INTO episodePlayback (episodeId, heardAt, playedAt, changedAt) VALUES (?1, ?2, ?2, ?2)
            ON CONFLICT (episodeId) DO UPDATE SET playPosition = NULL, heardAt = ?2, playedAt = ?2, changedAt = ?2
            WHERE \(appliesHere("?2", "?3"))
            """
        static let unplayed = """
            INSERT INTO episodePlayback (episodeId, changedAt) VALUES (?1, ?2)
            ON CONFLICT (episodeId) DO UPDATE SET playPosition = NULL, playedAt = NULL, changedAt = ?2
            WHERE \(appliesHere("?2", "?3"))
            """
        /// Made here, or newer than the episode's last change: the newest change wins.
        private static func appliesHere(_ time: String, _ madeHere: String) -> String {
            "\(madeHere) OR changedAt IS NULL OR changedAt < \(time)"
        }
    }

    private static func wholeSeconds(_ seconds: Double) -> Int {
        Int(seconds.rounded(.down))
    }

    /// The episode heard most recently that is not played, with its podcast; nil when there is none.
    public func lastHeardEpisode() async throws -> (podcast: StoredPodcast, entry: EpisodeEntry)? {
        try await writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT \(EpisodeColumns.entrySelection()), episode.podcastId
                        FROM episodePlayback JOIN episode ON episode.id = episodePlayback.episodeId
                        WHERE episodePlayback.heardAt IS NOT NULL AND episodePlayback.playedAt IS NULL
                          AND episodePlayback.playPosition IS NOT NULL
                        ORDER BY episodePlayback.heardAt DESC LIMIT 1
                        """),
                let podcast = try Self.podcast(db, id: row[EpisodeColumns.entryColumnCount])
            else { return nil }
            return (podcast, EpisodeColumns.entry(from: row, downloads: try Self.downloadsByEnclosureURL(db)))
        }
    }

    /// Remembers the speed a podcast's episodes are played at.
    public func setPlaybackSpeed(_ speed: Double, podcastID: Int64) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE podcast SET playbackSpeed = ? WHERE id = ?", arguments: [speed, podcastID])
        }
    }

    /// The episode actions recorded since `date` (all when nil), oldest first.
    public func episodeActions(since date: Date? = nil) async throws -> [EpisodeAction] {
        try await writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM episodeAction WHERE timestamp >= ? ORDER BY timestamp, id",
                arguments: [date?.timeIntervalSince1970 ?? 0]
            ).compactMap { row in
                guard let kind = EpisodeAction.Kind(rawValue: row["action"]) else { return nil }
                return EpisodeAction(
                    podcastURL: row["podcastURL"], episodeURL: row["episodeURL"], guid: row["guid"], kind: kind,
                    timestamp: Date(timeIntervalSince1970: row["timestamp"]), started: row["started"],
                    position: row["position"], total: row["total"])
            }
        }
    }
}

/// Where a listener is in the episodes of an enclosure URL, with the episode's length, for listings
/// keyed by download.
public struct HeardEpisode: Equatable, Sendable {
    public var playback: Playback
    /// The length the feed gives, in seconds.
    public var duration: Int?
}

extension Library {
    /// The playback of every episode heard or played, by enclosure URL.
    public func playbackByEnclosureURL() async throws -> [String: HeardEpisode] {
        try await writer.read { db in
            var heard: [String: HeardEpisode] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT episode.enclosureURL, episodePlayback.playPosition, episodePlayback.playedAt, episode.duration
                    FROM episodePlayback JOIN episode ON episode.id = episodePlayback.episodeId
                    WHERE episode.enclosureURL IS NOT NULL
                      AND (episodePlayback.playPosition IS NOT NULL OR episodePlayback.playedAt IS NOT NULL)
                    """)
            while let row = try rows.next() {
                heard[row[0]] = HeardEpisode(
                    playback: Playback(position: row[1], playedAt: (row[2] as Double?).map(Date.init(timeIntervalSince1970:))),
                    duration: row[3])
            }
            return heard
        }
    }
}

extension Library {
    /// The played episodes whose files are downloaded, of one podcast or of all.
    public func playedDownloadedEpisodes(podcastID: Int64?) async throws -> [EpisodeEntry] {
        try await writer.read { db in
            try EpisodeColumns.entries(
                db,
                sql: """
                    SELECT \(EpisodeColumns.entrySelection())
                    FROM episodePlayback JOIN episode ON episode.id = episodePlayback.episodeId
                    JOIN download ON download.enclosureURL = episode.enclosureURL AND download.state = 'completed'
                    WHERE episodePlayback.playedAt IS NOT NULL AND (?1 IS NULL OR episode.podcastId = ?1)
                    ORDER BY episode.podcastId, episode.position
                    """,
                arguments: [podcastID], downloads: try Self.downloadsByEnclosureURL(db))
        }
    }
}
