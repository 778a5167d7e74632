import GRDB

/// The schema that ``Library/migrator`` builds, as one script: a new library runs it in one
/// transaction and records its migrations as applied, instead of running them one by one
/// (which took a new library's first command nine milliseconds more; figures in
/// `Benchmarks/README.md`). Any migration registered after those the script holds then runs as
/// usual, so a script left behind costs time, never a wrong schema.
///
/// `LibrarySchemaTests` checks that the script builds what the migrations build, and that it
/// holds every migration; when one is added, it prints the script to put here.
enum LibrarySchema {
    /// The migrations the script holds, in the order they were registered.
    static let migrations = [
        "v1", "v2", "v3", "v4-listing", "v4-extras", "v4-network", "v5-listening", "v5-failures", "v6-sync",
        "v7-playback-stamps", "v8-playback-table", "v9-deleted-downloads", "v10-queue", "v11-find-index",
        "v12-podcast-counts", "v13-find-document-numbers",
    ]

    /// The statements, in the order SQLite's schema table lists what they made.
    static let script = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT);
        CREATE TABLE "searchResult" ("number" INTEGER PRIMARY KEY, "collectionId" INTEGER, "title" TEXT NOT NULL, "artist" TEXT, "feedURL" TEXT, "episodeCount" INTEGER, "genre" TEXT, "artworkURL" TEXT, "releaseDate" DATETIME);
        CREATE TABLE "podcast" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "feedKey" TEXT NOT NULL UNIQUE, "title" TEXT NOT NULL, "link" TEXT, "description" TEXT, "author" TEXT, "imageURL" TEXT, "newFeedURL" TEXT, "refreshedAt" DATETIME, "subscribedAt" DATETIME, "keepEpisodes" INTEGER, "autoDownload" TEXT NOT NULL DEFAULT 'none', "etag" TEXT, "lastModified" TEXT, "bodyHash" INTEGER, "updateStatus" TEXT, "updateDetail" TEXT, "updatedAt" DATETIME, "lastSuccessAt" DATETIME, "extras" BOOLEAN NOT NULL DEFAULT 0, "playbackSpeed" DOUBLE, queueNew BOOLEAN NOT NULL DEFAULT 0);
        CREATE TABLE "episode" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "podcastId" INTEGER NOT NULL REFERENCES "podcast"("id") ON DELETE CASCADE, "identity" TEXT NOT NULL, "position" INTEGER, "title" TEXT NOT NULL, "guid" TEXT, "link" TEXT, "published" DATETIME, "duration" INTEGER, "description" TEXT, "enclosureURL" TEXT, "enclosureLength" INTEGER, "enclosureType" TEXT, "season" INTEGER, "episodeNumber" INTEGER, "explicit" BOOLEAN, "transcriptURL" TEXT, "chaptersURL" TEXT, "fingerprint" INTEGER, "isNew" BOOLEAN NOT NULL DEFAULT 0, "isDeleted" BOOLEAN NOT NULL DEFAULT 0, "transcripts" TEXT, UNIQUE ("podcastId", "identity"));
        CREATE TABLE "download" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "enclosureURL" TEXT NOT NULL UNIQUE, "state" TEXT NOT NULL, "receivedBytes" INTEGER NOT NULL DEFAULT 0, "expectedBytes" INTEGER, "file" TEXT NOT NULL UNIQUE, "podcastTitle" TEXT NOT NULL, "episodeTitle" TEXT NOT NULL, "message" TEXT, "mediaType" TEXT, "bytesPerSecond" DOUBLE, "ownerPID" INTEGER, "background" BOOLEAN NOT NULL DEFAULT 0, "updatedAt" DATETIME NOT NULL, "ownerStartTime" INTEGER, "retryReason" TEXT, "nextTryAt" DATETIME, "failure" TEXT, fetchedByUpdate BOOLEAN NOT NULL DEFAULT 0);
        CREATE INDEX "episode_on_isNew" ON "episode"("isNew") WHERE "isNew" = 1;
        CREATE INDEX "episode_on_podcastId_position" ON "episode"("podcastId", "position");
        CREATE TABLE "downloadExtra" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "downloadId" INTEGER NOT NULL REFERENCES "download"("id") ON DELETE CASCADE, "kind" TEXT NOT NULL, "url" TEXT NOT NULL, "type" TEXT, "language" TEXT, "file" TEXT NOT NULL, "bytes" INTEGER, "failure" TEXT, "updatedAt" DATETIME NOT NULL, UNIQUE ("downloadId", "file"));
        CREATE INDEX "downloadExtra_on_downloadId" ON "downloadExtra"("downloadId");
        CREATE TABLE "episodeAction" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "podcastURL" TEXT NOT NULL, "episodeURL" TEXT NOT NULL, "guid" TEXT, "action" TEXT NOT NULL, "timestamp" DOUBLE NOT NULL, "started" INTEGER, "position" INTEGER, "total" INTEGER);
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
        CREATE TABLE "syncAccount" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "server" TEXT NOT NULL, "user" TEXT NOT NULL, "device" TEXT NOT NULL, "api" TEXT, "deviceRegistered" BOOLEAN NOT NULL DEFAULT 0, "subscriptionsSince" INTEGER, "actionsSince" INTEGER, "sentActionID" INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE "syncSubscriptionChange" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "url" TEXT NOT NULL, "change" TEXT NOT NULL);
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
        CREATE TABLE "syncEpisodeAction" ("episodeURL" TEXT NOT NULL, "action" TEXT NOT NULL, "podcastURL" TEXT NOT NULL, "guid" TEXT, "timestamp" DOUBLE NOT NULL, "started" INTEGER, "position" INTEGER, "total" INTEGER, "waiting" BOOLEAN NOT NULL DEFAULT 0, PRIMARY KEY ("episodeURL", "action"));
        CREATE INDEX "syncEpisodeAction_on_waiting" ON "syncEpisodeAction"("podcastURL") WHERE "waiting" = 1;
        CREATE TABLE episodePlayback (
          episodeId INTEGER PRIMARY KEY,
          playPosition DOUBLE,
          playedAt DOUBLE,
          heardAt DOUBLE,
          changedAt DOUBLE);
        CREATE TRIGGER episodePlayback_delete AFTER DELETE ON episode
        BEGIN
          DELETE FROM episodePlayback WHERE episodeId = OLD.id;
        END;
        CREATE TABLE queueEntry (
          episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
          position INTEGER NOT NULL);
        CREATE TRIGGER queueEntry_new AFTER INSERT ON episode
        WHEN NEW.isNew AND (SELECT queueNew FROM podcast WHERE id = NEW.podcastId)
        BEGIN
          INSERT OR IGNORE INTO queueEntry (episodeId, position)
            VALUES (NEW.id, COALESCE((SELECT MAX(position) FROM queueEntry), 0) + 1);
        END;
        CREATE VIRTUAL TABLE findText USING fts5(
          title, notes, transcript, content='', tokenize='unicode61 remove_diacritics 2');
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
        CREATE TABLE "findDocument" (
          id INTEGER PRIMARY KEY,
          episodeId INTEGER NOT NULL,
          extraId INTEGER,
          firstCue INTEGER,
          start DOUBLE,
          podcastId INTEGER NOT NULL,
          published DOUBLE,
          unlisted BOOLEAN NOT NULL);
        CREATE INDEX findDocument_on_episodeId ON findDocument(episodeId);
        """

    /// Runs the script in a database that has nothing in it yet; does nothing in any other.
    static func createIfEmpty(_ db: Database) throws {
        guard try isEmpty(db) else { return }
        try db.inTransaction(.immediate) {
            // Another process may have made it meanwhile.
            guard try isEmpty(db) else { return .commit }
            try db.execute(sql: script)
            let record = try db.makeStatement(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)")
            for identifier in migrations { try record.execute(arguments: [identifier]) }
            return .commit
        }
    }

    private static func isEmpty(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 0
    }
}
