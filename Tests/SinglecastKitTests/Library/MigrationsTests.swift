import GRDB
import Testing

@testable import SinglecastKit

/// Libraries written by earlier versions keep what they knew when the schema moves on.
@Suite struct MigrationsTests {
    /// The references of `v1` and `v4-extras`, written out instead of GRDB's `belongsTo`, make
    /// the columns and indexes the shipped migrations made (`v2` drops the episode's index).
    @Test func referencesAreTheShippedOnes() throws {
        let database = try DatabaseQueue()
        try Library.migrator.migrate(database, upTo: "v1")
        try Library.migrator.migrate(database, upTo: "v4-extras")
        try database.read { db in
            let episode = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'episode'")
            #expect(
                episode?.hasPrefix(
                    #"CREATE TABLE "episode" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "podcastId" INTEGER NOT NULL REFERENCES "podcast"("id") ON DELETE CASCADE, "identity" TEXT NOT NULL,"#
                ) == true)
            let extra = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'downloadExtra'")
            #expect(
                extra?.hasPrefix(
                    #"CREATE TABLE "downloadExtra" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "downloadId" INTEGER NOT NULL REFERENCES "download"("id") ON DELETE CASCADE, "kind" TEXT NOT NULL,"#
                ) == true)
            let indexes = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('episode_on_podcastId', 'downloadExtra_on_downloadId') ORDER BY name")
            #expect(indexes == [#"CREATE INDEX "downloadExtra_on_downloadId" ON "downloadExtra"("downloadId")"#])
        }
    }

    /// Before `v7-playback-stamps`, the newest change of an episode's playback was found among
    /// this device's actions and every received `play` and `new`; after it, the episode carries
    /// it, and only the received actions still waiting for their episodes are kept.
    @Test func playbackStampsComeFromTheActionsKeptBefore() throws {
        let database = try DatabaseQueue()
        try Library.migrator.migrate(database, upTo: "v6-sync")
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO podcast (id, feedKey, title) VALUES (1, 'https://a.example/feed', 'Show');
                    INSERT INTO episode (id, podcastId, identity, title, enclosureURL) VALUES
                      (1, 1, 'e1', 'Heard here', 'https://a.example/1.mp3'),
                      (2, 1, 'e2', 'Heard on the phone', 'https://a.example/2.mp3'),
                      (3, 1, 'e3', 'Heard on both', 'https://a.example/3.mp3'),
                      (4, 1, 'e4', 'Only downloaded', 'https://a.example/4.mp3');
                    INSERT INTO episodeAction (podcastURL, episodeURL, action, timestamp, position) VALUES
                      ('https://a.example/feed', 'https://a.example/1.mp3', 'play', 100, 60),
                      ('https://a.example/feed', 'https://a.example/3.mp3', 'new', 500, NULL),
                      ('https://a.example/feed', 'https://a.example/4.mp3', 'download', 900, NULL);
                    INSERT INTO syncEpisodeAction (episodeURL, action, podcastURL, timestamp, position, waiting) VALUES
                      ('https://a.example/2.mp3', 'play', 'https://a.example/feed', 200, 120, 0),
                      ('https://a.example/3.mp3', 'play', 'https://a.example/feed', 300, 30, 0),
                      ('https://a.example/9.mp3', 'play', 'https://a.example/feed', 400, 90, 1),
                      ('https://a.example/4.mp3', 'delete', 'https://a.example/feed', 950, NULL, 0);
                    """)
        }
        try Library.migrator.migrate(database, upTo: "v7-playback-stamps")
        try database.read { db in
            let stamps = try Row.fetchAll(db, sql: "SELECT id, playbackChangedAt FROM episode ORDER BY id")
                .map { [$0["id"] as Int64: $0["playbackChangedAt"] as Double?] }
            #expect(stamps == [[1: 100], [2: 200], [3: 500], [4: nil]])
            let kept = try String.fetchAll(db, sql: "SELECT action || ' ' || episodeURL FROM syncEpisodeAction ORDER BY timestamp")
            #expect(kept == ["play https://a.example/9.mp3", "delete https://a.example/4.mp3"])
        }
    }

    /// `v8-playback-table` moves each episode's playback out of its row into `episodePlayback`,
    /// one row for each episode that had any, and drops the episode's four columns.
    @Test func playbackMovesToItsOwnTableWhole() throws {
        let database = try DatabaseQueue()
        try Library.migrator.migrate(database, upTo: "v7-playback-stamps")
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO podcast (id, feedKey, title) VALUES (1, 'https://a.example/feed', 'Show');
                    INSERT INTO episode (id, podcastId, identity, title, playPosition, playedAt, heardAt, playbackChangedAt) VALUES
                      (1, 1, 'e1', 'Half heard', 754.5, NULL, 1000, 1000),
                      (2, 1, 'e2', 'Played', NULL, 2000, 2000, 2000),
                      (3, 1, 'e3', 'Marked unplayed', NULL, NULL, NULL, 3000),
                      (4, 1, 'e4', 'Never heard', NULL, NULL, NULL, NULL);
                    """)
        }
        try Library.migrator.migrate(database)
        try database.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM episodePlayback ORDER BY episodeId")
            #expect(
                rows == [
                    ["episodeId": 1, "playPosition": 754.5, "playedAt": nil, "heardAt": 1000.0, "changedAt": 1000.0],
                    ["episodeId": 2, "playPosition": nil, "playedAt": 2000.0, "heardAt": 2000.0, "changedAt": 2000.0],
                    ["episodeId": 3, "playPosition": nil, "playedAt": nil, "heardAt": nil, "changedAt": 3000.0],
                ])
            let columns = try db.columns(in: "episode").map(\.name)
            #expect(columns.filter { ["playPosition", "playedAt", "heardAt", "playbackChangedAt"].contains($0) }.isEmpty)
            #expect(try db.indexes(on: "episode").allSatisfy { $0.name != "episode_on_heardAt" })
        }
        // An episode deleted takes its playback along.
        try database.write { db in try db.execute(sql: "DELETE FROM podcast WHERE id = 1") }
        #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episodePlayback") } == 0)
    }
}
