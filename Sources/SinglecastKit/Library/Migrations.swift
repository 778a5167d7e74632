import GRDB

extension Library {
    /// The schema's history. A migration is never edited once it has shipped: add a new one,
    /// then make ``LibrarySchema``'s script again (its tests print it), or new libraries run it
    /// on their own.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text)
            }
            try db.create(table: "searchResult") { t in
                t.primaryKey("number", .integer)
                t.column("collectionId", .integer)
                t.column("title", .text).notNull()
                t.column("artist", .text)
                t.column("feedURL", .text)
                t.column("episodeCount", .integer)
                t.column("genre", .text)
                t.column("artworkURL", .text)
                t.column("releaseDate", .datetime)
            }
            try db.create(table: "podcast") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("feedKey", .text).notNull().unique()
                t.column("title", .text).notNull()
                t.column("link", .text)
                t.column("description", .text)
                t.column("author", .text)
                t.column("imageURL", .text)
                t.column("newFeedURL", .text)
                t.column("refreshedAt", .datetime)
            }
            try db.create(table: "episode") { t in
                t.autoIncrementedPrimaryKey("id")
                // The references are written out: GRDB's `belongsTo` makes the same column,
                // reference and index, but builds its inflection rules first (regular
                // expressions compiled by ICU, a cost on every library's creation).
                t.column("podcastId", .integer).notNull().indexed().references("podcast", column: "id", onDelete: .cascade)
                t.column("identity", .text).notNull()
                t.column("position", .integer)
                t.column("title", .text).notNull()
                t.column("guid", .text)
                t.column("link", .text)
                t.column("published", .datetime)
                t.column("duration", .integer)
                t.column("description", .text)
                t.column("enclosureURL", .text)
                t.column("enclosureLength", .integer)
                t.column("enclosureType", .text)
                t.column("season", .integer)
                t.column("episodeNumber", .integer)
                t.column("explicit", .boolean)
                t.column("transcriptURL", .text)
                t.column("chaptersURL", .text)
                // A hash of the other columns, to skip rewriting unchanged episodes.
                t.column("fingerprint", .integer)
                t.uniqueKey(["podcastId", "identity"])
            }
            try db.create(table: "download") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("enclosureURL", .text).notNull().unique()
                t.column("state", .text).notNull()
                t.column("receivedBytes", .integer).notNull().defaults(to: 0)
                t.column("expectedBytes", .integer)
                t.column("file", .text).notNull().unique()
                t.column("podcastTitle", .text).notNull()
                t.column("episodeTitle", .text).notNull()
                t.column("message", .text)
                t.column("mediaType", .text)
                t.column("bytesPerSecond", .double)
                t.column("ownerPID", .integer)
                t.column("background", .boolean).notNull().defaults(to: false)
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2") { db in
            // The unique (podcastId, identity) index serves every lookup by podcast; a second
            // index only slowed each episode insert.
            try db.execute(sql: "DROP INDEX IF EXISTS episode_on_podcastId")
        }
        migrator.registerMigration("v3") { db in
            // Subscriptions: the policy, the validators of the last fetch and how it went.
            try db.alter(table: "podcast") { t in
                t.add(column: "subscribedAt", .datetime)
                t.add(column: "keepEpisodes", .integer)
                t.add(column: "autoDownload", .text).notNull().defaults(to: "none")
                t.add(column: "etag", .text)
                t.add(column: "lastModified", .text)
                t.add(column: "bodyHash", .integer)
                t.add(column: "updateStatus", .text)
                t.add(column: "updateDetail", .text)
                t.add(column: "updatedAt", .datetime)
                t.add(column: "lastSuccessAt", .datetime)
            }
            try db.alter(table: "episode") { t in
                t.add(column: "isNew", .boolean).notNull().defaults(to: false)
                t.add(column: "isDeleted", .boolean).notNull().defaults(to: false)
            }
            try db.create(index: "episode_on_isNew", on: "episode", columns: ["isNew"], condition: Column("isNew") == true)
            // A download's owner is its process id and the process's start time.
            try db.alter(table: "download") { t in
                t.add(column: "ownerStartTime", .integer)
            }
        }
        migrator.registerMigration("v4-listing") { db in
            // A podcast's listing is read in feed order without sorting its episodes.
            try db.create(index: "episode_on_podcastId_position", on: "episode", columns: ["podcastId", "position"])
        }
        migrator.registerMigration("v4-extras") { db in
            // Transcripts and chapters: every transcript of an episode, whether a podcast's
            // downloads fetch them, and the files saved (or failing) beside each download.
            try db.alter(table: "episode") { t in
                t.add(column: "transcripts", .text)
            }
            try db.alter(table: "podcast") { t in
                t.add(column: "extras", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "downloadExtra") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("downloadId", .integer).notNull().indexed().references("download", column: "id", onDelete: .cascade)
                t.column("kind", .text).notNull()
                t.column("url", .text).notNull()
                t.column("type", .text)
                t.column("language", .text)
                t.column("file", .text).notNull()
                t.column("bytes", .integer)
                t.column("failure", .text)
                t.column("updatedAt", .datetime).notNull()
                t.uniqueKey(["downloadId", "file"])
            }
        }
        migrator.registerMigration("v4-network") { db in
            // A download waiting for the network: why, and when it tries again.
            try db.alter(table: "download") { t in
                t.add(column: "retryReason", .text)
                t.add(column: "nextTryAt", .datetime)
            }
        }
        migrator.registerMigration("v5-listening") { db in
            // Listening: where the listener stopped in an episode (seconds of audio), when it was
            // marked played, when it was last heard; the speed a podcast is played at.
            try db.alter(table: "episode") { t in
                t.add(column: "playPosition", .double)
                t.add(column: "playedAt", .double)
                t.add(column: "heardAt", .double)
            }
            try db.create(index: "episode_on_heardAt", on: "episode", columns: ["heardAt"], condition: Column("heardAt") != nil)
            try db.alter(table: "podcast") { t in
                t.add(column: "playbackSpeed", .double)
            }
            // Episode actions in the shape of the gpodder API's: what happened to an episode on
            // this device and when (seconds since 1970, UTC), for syncing with other devices.
            // `play` carries started/position/total in whole seconds.
            try db.create(table: "episodeAction") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("podcastURL", .text).notNull()
                t.column("episodeURL", .text).notNull()
                t.column("guid", .text)
                t.column("action", .text).notNull()
                t.column("timestamp", .double).notNull()
                t.column("started", .integer)
                t.column("position", .integer)
                t.column("total", .integer)
            }
            // Downloads and deletions are recorded where the library records them, whichever
            // code path changes the row: a download entering `completed`, an episode marked deleted.
            try db.execute(
                sql: """
                    CREATE TRIGGER episodeAction_download AFTER UPDATE OF state ON download
                    WHEN NEW.state = 'completed' AND OLD.state <> 'completed'
                    BEGIN
                      INSERT INTO episodeAction (podcastURL, episodeURL, guid, action, timestamp)
                      SELECT podcast.feedKey, episode.enclosureURL, episode.guid, 'download', (julianday('now') - 2440587.5) * 86400.0
                      FROM episode JOIN podcast ON podcast.id = episode.podcastId
                      WHERE episode.enclosureURL = NEW.enclosureURL;
                    END;
                    CREATE TRIGGER episodeAction_delete AFTER UPDATE OF isDeleted ON episode
                    WHEN NEW.isDeleted AND NOT OLD.isDeleted AND NEW.enclosureURL IS NOT NULL
                    BEGIN
                      INSERT INTO episodeAction (podcastURL, episodeURL, guid, action, timestamp)
                      SELECT podcast.feedKey, NEW.enclosureURL, NEW.guid, 'delete', (julianday('now') - 2440587.5) * 86400.0
                      FROM podcast WHERE podcast.id = NEW.podcastId;
                    END;
                    """)
        }
        migrator.registerMigration("v5-failures") { db in
            // A download's failure as a value (kind and details, as JSON) instead of a sentence.
            try db.alter(table: "download") { t in
                t.add(column: "failure", .text)
            }
        }
        migrator.registerMigration("v6-sync") { db in
            // Sync with a gpodder-API server: the account (never its password), the server's
            // timestamps of the last changes applied here, and how far this device's episode
            // actions were acknowledged (the `episodeAction` id sent last).
            try db.create(table: "syncAccount") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("server", .text).notNull()
                t.column("user", .text).notNull()
                t.column("device", .text).notNull()
                t.column("api", .text)
                t.column("deviceRegistered", .boolean).notNull().defaults(to: false)
                t.column("subscriptionsSince", .integer)
                t.column("actionsSince", .integer)
                t.column("sentActionID", .integer).notNull().defaults(to: 0)
            }
            // Subscriptions started or ended here since the last sync, recorded whichever
            // command changes them (subscribe, unsubscribe, import, an update that follows a
            // moved feed), while an account is set.
            try db.create(table: "syncSubscriptionChange") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("url", .text).notNull()
                t.column("change", .text).notNull()  // add | remove
            }
            try db.execute(
                sql: """
                    CREATE TRIGGER syncSubscriptionChange_add AFTER UPDATE OF subscribedAt ON podcast
                    WHEN NEW.subscribedAt IS NOT NULL AND OLD.subscribedAt IS NULL AND EXISTS (SELECT 1 FROM syncAccount)
                    BEGIN
                      INSERT INTO syncSubscriptionChange (url, change) VALUES (NEW.feedKey, 'add');
                    END;
                    CREATE TRIGGER syncSubscriptionChange_remove AFTER UPDATE OF subscribedAt ON podcast
                    WHEN NEW.subscribedAt IS NULL AND OLD.subscribedAt IS NOT NULL AND EXISTS (SELECT 1 FROM syncAccount)
                    BEGIN
                      INSERT INTO syncSubscriptionChange (url, change) VALUES (NEW.feedKey, 'remove');
                    END;
                    CREATE TRIGGER syncSubscriptionChange_move AFTER UPDATE OF feedKey ON podcast
                    WHEN NEW.feedKey <> OLD.feedKey AND NEW.subscribedAt IS NOT NULL AND OLD.subscribedAt IS NOT NULL
                      AND EXISTS (SELECT 1 FROM syncAccount)
                    BEGIN
                      INSERT INTO syncSubscriptionChange (url, change) VALUES (OLD.feedKey, 'remove');
                      INSERT INTO syncSubscriptionChange (url, change) VALUES (NEW.feedKey, 'add');
                    END;
                    """)
            // The newest episode action received of each kind for each episode (by media URL):
            // what decides whether a later one is newer, and, while `waiting`, a `play` or `new`
            // for an episode the library does not know yet, applied when a feed save adds it.
            try db.create(table: "syncEpisodeAction") { t in
                t.column("episodeURL", .text).notNull()
                t.column("action", .text).notNull()
                t.column("podcastURL", .text).notNull()
                t.column("guid", .text)
                t.column("timestamp", .double).notNull()
                t.column("started", .integer)
                t.column("position", .integer)
                t.column("total", .integer)
                t.column("waiting", .boolean).notNull().defaults(to: false)
                t.primaryKey(["episodeURL", "action"])
            }
            try db.create(
                index: "syncEpisodeAction_on_waiting", on: "syncEpisodeAction", columns: ["podcastURL"],
                condition: Column("waiting") == true)
        }
        migrator.registerMigration("v7-playback-stamps") { db in
            // When an episode's playback last changed, here or on another device (seconds since
            // 1970, UTC): what decides whether an episode action received later is newer. It
            // replaces keeping every received `play` and `new`: those are kept now only while
            // they wait for their episode.
            try db.alter(table: "episode") { t in
                t.add(column: "playbackChangedAt", .double)
            }
            try db.execute(
                sql: """
                    UPDATE episode SET playbackChangedAt = (
                      SELECT MAX(timestamp) FROM (
                        SELECT timestamp FROM episodeAction
                        WHERE episodeURL = episode.enclosureURL AND action IN ('play', 'new')
                        UNION ALL
                        SELECT timestamp FROM syncEpisodeAction
                        WHERE episodeURL = episode.enclosureURL AND action IN ('play', 'new') AND NOT waiting))
                    WHERE enclosureURL IS NOT NULL;
                    DELETE FROM syncEpisodeAction WHERE action IN ('play', 'new') AND NOT waiting;
                    """)
        }
        migrator.registerMigration("v8-playback-table") { db in
            // An episode's playback in a narrow table of its own, one row for each episode ever
            // heard, marked or received from another device, instead of four columns of the
            // episode: a position saved while listening, or 10,000 received from the phone,
            // rewrite a row of five numbers instead of the episode's whole row with its show
            // notes, and the episode heard last is found among the heard ones without an index
            // (`Benchmarks/sync.py`; figures in `Benchmarks/README.md`).
            // No foreign key: checking the episode on each insert made bulk inserts half as long
            // again (figures in `Benchmarks/README.md`). Instead the trigger
            // below deletes an episode's playback with its row (a podcast deleted cascades to
            // its episodes, and they to their playback).
            try db.execute(
                sql: """
                    CREATE TABLE episodePlayback (
                      episodeId INTEGER PRIMARY KEY,
                      playPosition DOUBLE,
                      playedAt DOUBLE,
                      heardAt DOUBLE,
                      changedAt DOUBLE);
                    INSERT INTO episodePlayback (episodeId, playPosition, playedAt, heardAt, changedAt)
                      SELECT id, playPosition, playedAt, heardAt, playbackChangedAt FROM episode
                      WHERE playPosition IS NOT NULL OR playedAt IS NOT NULL OR heardAt IS NOT NULL
                        OR playbackChangedAt IS NOT NULL;
                    CREATE TRIGGER episodePlayback_delete AFTER DELETE ON episode
                    BEGIN
                      DELETE FROM episodePlayback WHERE episodeId = OLD.id;
                    END;
                    DROP INDEX episode_on_heardAt;
                    ALTER TABLE episode DROP COLUMN playPosition;
                    ALTER TABLE episode DROP COLUMN playedAt;
                    ALTER TABLE episode DROP COLUMN heardAt;
                    ALTER TABLE episode DROP COLUMN playbackChangedAt;
                    """)
        }
        migrator.registerMigration("v9-deleted-downloads") { db in
            // Retention may delete unplayed files an update fetched by itself, never those a
            // person asked for; what the rows do not say is taken as asked for. A download whose
            // episode was deleted is over, no longer a download never begun.
            try db.execute(
                sql: """
                    ALTER TABLE download ADD COLUMN fetchedByUpdate BOOLEAN NOT NULL DEFAULT 0;
                    UPDATE download SET state = 'deleted', receivedBytes = 0
                      WHERE state = 'not-started' AND enclosureURL IN (SELECT enclosureURL FROM episode WHERE isDeleted);
                    """)
        }
        migrator.registerMigration("v10-queue") { db in
            // The queue: episodes to play one after the other, in the order of `position` (gaps
            // allowed). An episode leaves it when it leaves the library.
            try db.execute(
                sql: """
                    CREATE TABLE queueEntry (
                      episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
                      position INTEGER NOT NULL);
                    ALTER TABLE podcast ADD COLUMN queueNew BOOLEAN NOT NULL DEFAULT 0;
                    """)
            // A subscription with `queueNew` puts each episode an update adds (marked new as it
            // is written) at the queue's end, whichever code path writes the row.
            try db.execute(
                sql: """
                    CREATE TRIGGER queueEntry_new AFTER INSERT ON episode
                    WHEN NEW.isNew AND (SELECT queueNew FROM podcast WHERE id = NEW.podcastId)
                    BEGIN
                      INSERT OR IGNORE INTO queueEntry (episodeId, position)
                        VALUES (NEW.id, COALESCE((SELECT MAX(position) FROM queueEntry), 0) + 1);
                    END;
                    """)
        }
        migrator.registerMigration("v11-find-index") { db in
            // The search index of `find` (see ``Library/find(_:podcastID:in:limit:)``). The
            // FTS5 table is contentless: the text is the episode's row and the transcript's
            // file, and is not stored twice. Each of its rows is a document of `findDocument`:
            // an episode's title and notes, or a run of a transcript's cues. A document that
            // changes or goes loses its `findDocument` row, and its words stay in the index,
            // unreachable, until a rebuild (removing them would take their old text).
            // Saving feeds indexes nothing: new episodes are those past the mark in `setting`,
            // changed ones are marked in `findDirty` by the trigger, all indexed at the next `find`.
            // A document holds what ranks and filters it (podcast, date, whether the feed still
            // lists the episode), so that a search never reads the episodes' wide rows.
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE findText USING fts5(
                      title, notes, transcript, content='', tokenize='unicode61 remove_diacritics 2');
                    CREATE TABLE findDocument (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      episodeId INTEGER NOT NULL,
                      extraId INTEGER,
                      firstCue INTEGER,
                      start DOUBLE,
                      podcastId INTEGER NOT NULL,
                      published DOUBLE,
                      unlisted BOOLEAN NOT NULL);
                    CREATE INDEX findDocument_on_episodeId ON findDocument(episodeId);
                    CREATE TABLE findDirty (episodeId INTEGER PRIMARY KEY, version INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE findTranscript (
                      episodeId INTEGER NOT NULL,
                      extraId INTEGER NOT NULL,
                      updatedAt TEXT,
                      unreadable BOOLEAN NOT NULL DEFAULT 0,
                      PRIMARY KEY (episodeId, extraId));
                    CREATE TABLE foundEpisode (number INTEGER PRIMARY KEY, episodeId INTEGER NOT NULL, at DOUBLE);
                    CREATE TRIGGER findDirty_change AFTER UPDATE OF title, description, published ON episode
                    WHEN OLD.title IS NOT NEW.title OR OLD.description IS NOT NEW.description
                      OR OLD.published IS NOT NEW.published
                    BEGIN
                      INSERT INTO findDirty (episodeId) VALUES (NEW.id)
                        ON CONFLICT (episodeId) DO UPDATE SET version = version + 1;
                    END;
                    CREATE TRIGGER findDocument_unlisted AFTER UPDATE OF position ON episode
                    WHEN (OLD.position IS NULL) <> (NEW.position IS NULL)
                    BEGIN
                      UPDATE findDocument SET unlisted = (NEW.position IS NULL) WHERE episodeId = NEW.id;
                    END;
                    CREATE TRIGGER findDocument_delete AFTER DELETE ON episode
                    BEGIN
                      DELETE FROM findDocument WHERE episodeId = OLD.id;
                      DELETE FROM findTranscript WHERE episodeId = OLD.id;
                      DELETE FROM findDirty WHERE episodeId = OLD.id;
                    END;
                    """)
        }
        migrator.registerMigration("v12-podcast-counts") { db in
            // What `podcasts` and the UI's podcasts pane show of each podcast, kept up to date
            // so that reading them costs the same in a library of 100,000 episodes as in one of
            // ten: a feed's save counts its podcast again (``PodcastCounts``), and the triggers
            // follow what changes one episode at a time (a new mark, a played mark, a download).
            try db.execute(
                sql: """
                    CREATE TABLE podcastCounts (
                      podcastId INTEGER PRIMARY KEY REFERENCES podcast(id) ON DELETE CASCADE,
                      episodeCount INTEGER NOT NULL DEFAULT 0,
                      newCount INTEGER NOT NULL DEFAULT 0,
                      unplayedCount INTEGER NOT NULL DEFAULT 0,
                      downloadedCount INTEGER NOT NULL DEFAULT 0);
                    CREATE TRIGGER podcastCounts_podcast AFTER INSERT ON podcast
                    BEGIN
                      INSERT INTO podcastCounts (podcastId) VALUES (NEW.id);
                    END;
                    CREATE TRIGGER podcastCounts_new AFTER UPDATE OF isNew ON episode
                    WHEN OLD.isNew IS NOT NEW.isNew
                    BEGIN
                      UPDATE podcastCounts SET newCount = newCount + (CASE WHEN NEW.isNew THEN 1 ELSE -1 END)
                      WHERE podcastId = NEW.podcastId;
                    END;
                    CREATE TRIGGER podcastCounts_playedInsert AFTER INSERT ON episodePlayback
                    WHEN NEW.playedAt IS NOT NULL
                    BEGIN
                      UPDATE podcastCounts SET unplayedCount = unplayedCount - 1
                      WHERE podcastId = (SELECT podcastId FROM episode WHERE id = NEW.episodeId AND position IS NOT NULL);
                    END;
                    CREATE TRIGGER podcastCounts_playedUpdate AFTER UPDATE OF playedAt ON episodePlayback
                    WHEN (OLD.playedAt IS NULL) IS NOT (NEW.playedAt IS NULL)
                    BEGIN
                      UPDATE podcastCounts SET unplayedCount = unplayedCount + (CASE WHEN NEW.playedAt IS NULL THEN 1 ELSE -1 END)
                      WHERE podcastId = (SELECT podcastId FROM episode WHERE id = NEW.episodeId AND position IS NOT NULL);
                    END;
                    CREATE TRIGGER podcastCounts_playedDelete AFTER DELETE ON episodePlayback
                    WHEN OLD.playedAt IS NOT NULL
                    BEGIN
                      UPDATE podcastCounts SET unplayedCount = unplayedCount + 1
                      WHERE podcastId = (SELECT podcastId FROM episode WHERE id = OLD.episodeId AND position IS NOT NULL);
                    END;
                    CREATE TRIGGER podcastCounts_downloadInsert AFTER INSERT ON download
                    WHEN NEW.state = 'completed'
                    BEGIN
                      UPDATE podcastCounts SET downloadedCount = downloadedCount
                        + (SELECT COUNT(*) FROM episode WHERE enclosureURL = NEW.enclosureURL AND episode.podcastId = podcastCounts.podcastId)
                      WHERE podcastId IN (SELECT podcastId FROM episode WHERE enclosureURL = NEW.enclosureURL);
                    END;
                    CREATE TRIGGER podcastCounts_downloadUpdate AFTER UPDATE OF state ON download
                    WHEN (OLD.state = 'completed') IS NOT (NEW.state = 'completed')
                    BEGIN
                      UPDATE podcastCounts SET downloadedCount = downloadedCount
                        + (CASE WHEN NEW.state = 'completed' THEN 1 ELSE -1 END)
                        * (SELECT COUNT(*) FROM episode WHERE enclosureURL = NEW.enclosureURL AND episode.podcastId = podcastCounts.podcastId)
                      WHERE podcastId IN (SELECT podcastId FROM episode WHERE enclosureURL = NEW.enclosureURL);
                    END;
                    CREATE TRIGGER podcastCounts_downloadDelete AFTER DELETE ON download
                    WHEN OLD.state = 'completed'
                    BEGIN
                      UPDATE podcastCounts SET downloadedCount = downloadedCount
                        - (SELECT COUNT(*) FROM episode WHERE enclosureURL = OLD.enclosureURL AND episode.podcastId = podcastCounts.podcastId)
                      WHERE podcastId IN (SELECT podcastId FROM episode WHERE enclosureURL = OLD.enclosureURL);
                    END;
                    """)
            for podcastID in try Int64.fetchAll(db, sql: "SELECT id FROM podcast") {
                try PodcastCounts.recount(podcastID: podcastID, db: db)
            }
        }
        migrator.registerMigration("v13-find-document-numbers") { db in
            // Documents are numbered by the index itself (``FindIndex``), above any number it
            // holds words for: `AUTOINCREMENT` kept the same promise at the cost of a
            // `sqlite_sequence` update per document. The legacy rename leaves the triggers that
            // name `findDocument` as they are: they name the new table once it is renamed.
            try db.execute(
                sql: """
                    PRAGMA legacy_alter_table = ON;
                    CREATE TABLE findDocumentNumbered (
                      id INTEGER PRIMARY KEY,
                      episodeId INTEGER NOT NULL,
                      extraId INTEGER,
                      firstCue INTEGER,
                      start DOUBLE,
                      podcastId INTEGER NOT NULL,
                      published DOUBLE,
                      unlisted BOOLEAN NOT NULL);
                    INSERT INTO findDocumentNumbered
                      SELECT id, episodeId, extraId, firstCue, start, podcastId, published, unlisted FROM findDocument;
                    DROP TABLE findDocument;
                    ALTER TABLE findDocumentNumbered RENAME TO findDocument;
                    CREATE INDEX findDocument_on_episodeId ON findDocument(episodeId);
                    PRAGMA legacy_alter_table = OFF;
                    """)
        }
        return migrator
    }
}
