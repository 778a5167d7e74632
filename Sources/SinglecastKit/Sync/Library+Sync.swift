import Foundation
import GRDB

/// The sync account the library remembers: where to sync, as whom, as which device, and how
/// far the last sync got. Never the password.
public struct SyncAccount: Equatable, Sendable {
    public var server: URL
    public var user: String
    public var device: String
    /// The dialect, once known (given with `--api`, or found by asking the server).
    public var dialect: SyncDialect?
    /// Whether the device was registered with the server.
    var deviceRegistered = false
    /// The server's timestamps of the last changes applied here (nil before the first sync).
    var subscriptionsSince: Int64?
    var actionsSince: Int64?
    /// The id of the last local episode action the server acknowledged.
    var sentActionID: Int64 = 0

    public init(server: URL, user: String, device: String, dialect: SyncDialect?) {
        self.server = server
        self.user = user
        self.device = device
        self.dialect = dialect
    }
}

/// What applying a server's changes did here.
struct SyncApplied: Equatable, Sendable {
    /// Podcasts subscribed here for the server, and whether their feeds are still to be fetched.
    var added: [(id: Int64, needsFetch: Bool)] = []
    /// Podcasts unsubscribed here for the server.
    var removed: [Int64] = []
    /// Episode actions that changed an episode here.
    var applied = 0
    /// Episode actions kept for episodes the library does not know yet.
    var waiting = 0

    static func == (a: SyncApplied, b: SyncApplied) -> Bool {
        a.added.elementsEqual(b.added) { $0 == $1 } && a.removed == b.removed && a.applied == b.applied
            && a.waiting == b.waiting
    }
}

/// A local episode action not yet acknowledged by the server.
struct UnsentAction: Sendable {
    var id: Int64
    var action: EpisodeAction
    /// Whether its podcast is a subscription with an http(s) URL: only those are sent.
    var isShareable: Bool
    /// The episode's length from its feed, for a played mark recorded without one.
    var duration: Int?
    /// The episode's downloaded file, for a played mark without a length from anywhere else.
    var file: String?
}

extension Library {
    // MARK: - The account

    /// The remembered sync account, if any.
    public func syncAccount() async throws -> SyncAccount? {
        try await writer.read { db in try Self.syncAccount(db) }
    }

    static func syncAccount(_ db: Database) throws -> SyncAccount? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM syncAccount WHERE id = 1"),
            let server = URL(string: row["server"])
        else { return nil }
        var account = SyncAccount(
            server: server, user: row["user"], device: row["device"], dialect: (row["api"] as String?).flatMap(SyncDialect.init))
        account.deviceRegistered = row["deviceRegistered"]
        account.subscriptionsSince = row["subscriptionsSince"]
        account.actionsSince = row["actionsSince"]
        account.sentActionID = row["sentActionID"]
        return account
    }

    /// Remembers the account to sync with. Another server or user starts afresh (everything
    /// is sent and received again); another device only re-reads its subscriptions.
    @discardableResult
    public func rememberSyncAccount(_ account: SyncAccount) async throws -> SyncAccount {
        try await writer.write { db in
            var stored = account
            if let old = try Self.syncAccount(db) {
                if old.server == account.server && old.user == account.user {
                    stored.actionsSince = old.actionsSince
                    stored.sentActionID = old.sentActionID
                    if old.device == account.device {
                        stored.subscriptionsSince = old.subscriptionsSince
                        stored.deviceRegistered = old.deviceRegistered
                    }
                    if account.dialect == nil { stored.dialect = old.dialect }
                } else {
                    try Self.clearSyncState(db)
                }
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO syncAccount
                      (id, server, user, device, api, deviceRegistered, subscriptionsSince, actionsSince, sentActionID)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    stored.server.absoluteString, stored.user, stored.device, stored.dialect?.rawValue,
                    stored.deviceRegistered, stored.subscriptionsSince, stored.actionsSince, stored.sentActionID,
                ])
            return stored
        }
    }

    /// Forgets the account and all sync state; returns whether there was an account.
    @discardableResult
    public func forgetSync() async throws -> Bool {
        try await writer.write { db in
            let had = try Self.syncAccount(db) != nil
            try db.execute(sql: "DELETE FROM syncAccount")
            try Self.clearSyncState(db)
            return had
        }
    }

    private static func clearSyncState(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM syncSubscriptionChange")
        try db.execute(sql: "DELETE FROM syncEpisodeAction")
    }

    func recordSyncDialect(_ dialect: SyncDialect) async throws {
        try await writer.write { db in try db.execute(sql: "UPDATE syncAccount SET api = ?", arguments: [dialect.rawValue]) }
    }

    // MARK: - Subscriptions to send

    /// The subscription changes to send, each URL's last change (only http(s) URLs), and the
    /// id of the last change they cover.
    func subscriptionChangesToSend() async throws -> (add: [String], remove: [String], upTo: Int64, skipped: Int) {
        try await writer.read { db in
            let upTo = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM syncSubscriptionChange") ?? 0
            var last: [String: String] = [:]
            var order: [String] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT url, change FROM syncSubscriptionChange ORDER BY id")
            while let row = try rows.next() {
                let url: String = row["url"]
                if last[url] == nil { order.append(url) }
                last[url] = row["change"]
            }
            let shareable = order.filter(SyncWire.isShareable)
            return (
                shareable.filter { last[$0] == "add" }, shareable.filter { last[$0] == "remove" }, upTo,
                order.count - shareable.count
            )
        }
    }

    /// Drops the subscription changes the server acknowledged and applies its URL rewrites
    /// to the stored feeds (a rewrite to a feed stored already is left alone).
    func acknowledgeSubscriptionChanges(upTo id: Int64, rewrites: [(old: String, new: String)]) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM syncSubscriptionChange WHERE id <= ?", arguments: [id])
            let before = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM syncSubscriptionChange") ?? 0
            var rewritten = 0
            for (old, new) in rewrites where SyncWire.isShareable(new) {
                guard try Int64.fetchOne(db, sql: "SELECT id FROM podcast WHERE feedKey = ?", arguments: [new]) == nil else {
                    continue
                }
                try db.execute(sql: "UPDATE podcast SET feedKey = ? WHERE feedKey = ?", arguments: [new, old])
                rewritten += db.changesCount
                try db.execute(sql: "UPDATE episodeAction SET podcastURL = ? WHERE podcastURL = ?", arguments: [new, old])
            }
            // The server made the rewrites: they are not changes to send back.
            try db.execute(sql: "DELETE FROM syncSubscriptionChange WHERE id > ?", arguments: [max(before, id)])
            return rewritten
        }
    }

    // MARK: - Episode actions to send

    /// The next local episode actions after `id`, oldest first, at most `limit`.
    func unsentActions(after id: Int64, limit: Int) async throws -> [UnsentAction] {
        try await writer.read { db in
            // Columns by position, not by name (a lookup by name lowercases it, row after row),
            // and each podcast URL judged once: together a third of the time of sending 10,000.
            var shareablePodcasts: [String: Bool] = [:]
            var unsent: [UnsentAction] = []
            unsent.reserveCapacity(limit)
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT episodeAction.id, episodeAction.podcastURL, episodeAction.episodeURL, episodeAction.guid,
                      episodeAction.action, episodeAction.timestamp, episodeAction.started, episodeAction.position,
                      episodeAction.total, podcast.id IS NOT NULL,
                      CASE WHEN episodeAction.action = 'play' AND episodeAction.position IS NULL THEN
                        (SELECT duration FROM episode WHERE episode.podcastId = podcast.id
                          AND episode.enclosureURL = episodeAction.episodeURL LIMIT 1)
                      END,
                      CASE WHEN episodeAction.action = 'play' AND episodeAction.position IS NULL THEN
                        (SELECT file FROM download WHERE download.enclosureURL = episodeAction.episodeURL
                          AND download.state = 'completed')
                      END
                    FROM episodeAction
                    LEFT JOIN podcast ON podcast.feedKey = episodeAction.podcastURL AND podcast.subscribedAt IS NOT NULL
                    WHERE episodeAction.id > ? AND episodeAction.action IN ('play', 'download', 'delete', 'new')
                    ORDER BY episodeAction.id LIMIT ?
                    """,
                arguments: [id, limit])
            while let row = try rows.next() {
                guard let kind = EpisodeAction.Kind(rawValue: row[4]) else { continue }
                let action = EpisodeAction(
                    podcastURL: row[1], episodeURL: row[2], guid: row[3], kind: kind,
                    timestamp: Date(timeIntervalSince1970: row[5]), started: row[6], position: row[7], total: row[8])
                let followed: Bool = row[9]
                var shareable = false
                if followed {
                    let podcast: Bool
                    if let known = shareablePodcasts[action.podcastURL] {
                        podcast = known
                    } else {
                        podcast = SyncWire.isShareable(action.podcastURL)
                        shareablePodcasts[action.podcastURL] = podcast
                    }
                    shareable = podcast && SyncWire.isShareable(action.episodeURL)
                }
                unsent.append(UnsentAction(id: row[0], action: action, isShareable: shareable, duration: row[10], file: row[11]))
            }
            return unsent
        }
    }

    /// Records that the server has the local actions up to `id`: they are never sent again.
    func acknowledgeActions(upTo id: Int64) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE syncAccount SET sentActionID = MAX(sentActionID, ?)", arguments: [id])
        }
    }

    // MARK: - Applying what the server sent

    /// Applies the server's subscription changes and episode actions, and remembers its
    /// timestamps (and, with `deviceRegistered`, that the device is registered), in one
    /// transaction: all of it or nothing. With `firstSync`, every
    /// subscription is queued to be sent (the lists are merged: a subscription here is kept).
    ///
    /// Subscriptions: an add subscribes (a podcast not stored yet gets a row whose feed is to
    /// be fetched), a remove unsubscribes (files stay); a URL changed here since the last
    /// sync keeps the local change, which is sent instead.
    ///
    /// Episode actions: for each episode the newest `play` or `new` wins, compared with the
    /// episode's last playback change, here or received; an equal or older one changes
    /// nothing (an action received twice is applied once). A `play` sets the saved position,
    /// or marks the episode played when it stops at the end (``ListeningRules/isFinished(position:duration:)``);
    /// `new` marks it unplayed. `download` and `delete` are kept, not acted on. An action
    /// for an episode the library does not know is kept and applied when a feed save adds it.
    func applySync(
        subscriptions: SyncWire.SubscriptionChanges?, actions: ReceivedActions, actionsTimestamp: Int64?, firstSync: Bool = false,
        deviceRegistered: Bool = false
    ) async throws -> SyncApplied {
        try await writer.write { db in
            var applied = SyncApplied()
            if deviceRegistered { try db.execute(sql: "UPDATE syncAccount SET deviceRegistered = 1") }
            if firstSync {
                // The device's first sync sends every subscription, queued with the server's
                // timestamp so that a failed upload is sent again by the next sync.
                try db.execute(
                    sql: """
                        INSERT INTO syncSubscriptionChange (url, change)
                        SELECT feedKey, 'add' FROM podcast WHERE subscribedAt IS NOT NULL ORDER BY subscribedAt, id
                        """)
            }
            if let subscriptions {
                try Self.applySubscriptions(subscriptions, into: &applied, db: db)
                try db.execute(sql: "UPDATE syncAccount SET subscriptionsSince = ?", arguments: [subscriptions.timestamp])
            }
            try Self.applyActions(actions, into: &applied, db: db)
            if let actionsTimestamp {
                try db.execute(sql: "UPDATE syncAccount SET actionsSince = ?", arguments: [actionsTimestamp])
            }
            return applied
        }
    }

    private static func applySubscriptions(_ changes: SyncWire.SubscriptionChanges, into applied: inout SyncApplied, db: Database)
        throws
    {
        let before = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM syncSubscriptionChange") ?? 0
        let changedHere = Set(try String.fetchAll(db, sql: "SELECT url FROM syncSubscriptionChange"))
        let adds = Set(changes.add)
        let removes = Set(changes.remove)
        // A URL both added and removed in one answer says nothing certain: left as it is.
        for url in changes.add where !changedHere.contains(url) && !removes.contains(url) && SyncWire.isShareable(url) {
            if let row = try Row.fetchOne(db, sql: "SELECT id, refreshedAt FROM podcast WHERE feedKey = ?", arguments: [url]) {
                let id: Int64 = row["id"]
                if try subscribe(podcastID: id, db: db) {
                    applied.added.append((id, (row["refreshedAt"] as Date?) == nil))
                }
            } else {
                try db.execute(
                    sql: "INSERT INTO podcast (feedKey, title, subscribedAt) VALUES (?, '', ?)", arguments: [url, Date()])
                applied.added.append((db.lastInsertedRowID, true))
            }
        }
        for url in changes.remove where !changedHere.contains(url) && !adds.contains(url) {
            guard
                let id = try Int64.fetchOne(
                    db, sql: "SELECT id FROM podcast WHERE feedKey = ? AND subscribedAt IS NOT NULL", arguments: [url])
            else { continue }
            try unsubscribe(podcastID: id, db: db)
            applied.removed.append(id)
        }
        // The changes the server made are not changes to send back.
        try db.execute(sql: "DELETE FROM syncSubscriptionChange WHERE id > ?", arguments: [before])
    }

    private static func applyActions(_ actions: ReceivedActions, into applied: inout SyncApplied, db: Database) throws {
        // Each episode's newest `play` or `new`, whatever the order of the list (see ``ReceivedActions``).
        let plays = actions.plays
        let kept = actions.kept
        let keep = try db.cachedStatement(
            sql: """
                INSERT INTO syncEpisodeAction (episodeURL, action, podcastURL, guid, timestamp)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (episodeURL, action) DO UPDATE SET podcastURL = excluded.podcastURL, guid = excluded.guid,
                  timestamp = excluded.timestamp WHERE excluded.timestamp > syncEpisodeAction.timestamp
                """)
        for action in kept.values {
            try keep.execute(arguments: [action.episodeURL, action.kind.rawValue, action.podcastURL, action.guid, action.timestamp])
        }
        guard !plays.isEmpty else { return }
        // Each action's episode: by media URL, else by feed and guid (an episode whose media
        // URL changed). One pass over the episodes, one lookup of each episode's URL.
        var episodeIDs = [Int64?](repeating: nil, count: plays.count)
        var byGUID: [String: Int64] = [:]
        let wantedGUIDs = Set(plays.compactMap { action in action.guid.map { action.podcastURL + "\n" + $0 } })
        let episodes = try Row.fetchCursor(
            db,
            sql: """
                SELECT episode.id, episode.enclosureURL, episode.guid, podcast.feedKey FROM episode
                JOIN podcast ON podcast.id = episode.podcastId
                """)
        while let row = try episodes.next() {
            if let url: String = row[1], let index = actions.playIndex[url], episodeIDs[index] == nil {
                episodeIDs[index] = row[0]
            }
            if !wantedGUIDs.isEmpty, let guid: String = row[2] {
                let key = (row[3] as String) + "\n" + guid
                if wantedGUIDs.contains(key) { byGUID[key] = row[0] }
            }
        }
        var unknown: [SyncWire.ReceivedAction] = []
        for (action, episodeID) in zip(plays, episodeIDs) {
            if let episodeID = episodeID ?? action.guid.flatMap({ byGUID[action.podcastURL + "\n" + $0] }) {
                // A known episode takes the action when it is newer than its last change (the
                // rule is ``changePlayback(episodeID:_:at:recordsAction:db:)``'s).
                if try apply(action, episodeID: episodeID, db: db) { applied.applied += 1 }
            } else {
                unknown.append(action)
            }
        }
        guard !unknown.isEmpty else { return }
        // An unknown one is kept, unless an action as new waits for it already.
        let unknownURLs = Set(unknown.map(\.episodeURL))
        var waiting: [String: Double] = [:]
        let waitingRows = try Row.fetchCursor(
            db, sql: "SELECT episodeURL, MAX(timestamp) FROM syncEpisodeAction WHERE waiting GROUP BY episodeURL")
        while let row = try waitingRows.next() {
            let url: String = row[0]
            if unknownURLs.contains(url) { waiting[url] = row[1] }
        }
        for action in unknown where action.timestamp > waiting[action.episodeURL] ?? -.infinity {
            try keepWaiting(action, replacing: waiting[action.episodeURL] != nil, db: db)
            applied.waiting += 1
        }
    }

    /// Keeps a received `play` or `new` for an episode the library does not know yet, in place
    /// of an older one waiting for it.
    private static func keepWaiting(_ action: SyncWire.ReceivedAction, replacing: Bool, db: Database) throws {
        if replacing {
            try db.cachedStatement(sql: "DELETE FROM syncEpisodeAction WHERE episodeURL = ? AND waiting")
                .execute(arguments: [action.episodeURL])
        }
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO syncEpisodeAction
                  (episodeURL, action, podcastURL, guid, timestamp, started, position, total, waiting)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
                """
        ).execute(
            arguments: [
                action.episodeURL, action.kind.rawValue, action.podcastURL, action.guid, action.timestamp, action.started,
                action.position, action.total,
            ])
    }

    /// Changes an episode's playback as a received action says, through the library's one
    /// rule for playback changes, without recording an action to send back; returns whether
    /// the episode changed (not when its last change is as new or newer).
    private static func apply(_ action: SyncWire.ReceivedAction, episodeID: Int64, db: Database) throws -> Bool {
        let date = Date(timeIntervalSince1970: action.timestamp)
        let change: PlaybackChange
        switch action.kind {
        case .play:
            let position = Double(max(0, action.position ?? 0))
            let total = action.total.flatMap { $0 > 0 ? Double($0) : nil }
            if ListeningRules.isFinished(position: position, duration: total) {
                change = .played(total: total)
            } else {
                change = .position(position, started: Double(max(0, action.started ?? 0)), total: total)
            }
        case .new:
            change = .unplayed
        case .download, .delete:
            return false
        }
        return try changePlayback(episodeID: episodeID, change, at: date, recordsAction: false, db: db)
    }

    /// Applies the received actions that wait for episodes of this podcast which a feed save
    /// has just added; called in the save's transaction.
    static func applyWaitingSyncActions(podcastID: Int64, db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM syncEpisodeAction WHERE waiting)") == true else { return }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT syncEpisodeAction.*, episode.id AS episodeId FROM syncEpisodeAction
                JOIN podcast ON podcast.id = ?
                JOIN episode ON episode.podcastId = podcast.id AND (episode.enclosureURL = syncEpisodeAction.episodeURL
                  OR (syncEpisodeAction.guid IS NOT NULL AND episode.guid = syncEpisodeAction.guid
                    AND syncEpisodeAction.podcastURL = podcast.feedKey))
                WHERE syncEpisodeAction.waiting
                ORDER BY syncEpisodeAction.timestamp
                """,
            arguments: [podcastID])
        for row in rows {
            guard let kind = EpisodeAction.Kind(rawValue: row["action"]) else { continue }
            let action = SyncWire.ReceivedAction(
                podcastURL: row["podcastURL"], episodeURL: row["episodeURL"], guid: row["guid"], kind: kind,
                timestamp: row["timestamp"], started: row["started"], position: row["position"], total: row["total"])
            _ = try apply(action, episodeID: row["episodeId"], db: db)
            try db.execute(
                sql: "DELETE FROM syncEpisodeAction WHERE episodeURL = ? AND action = ?",
                arguments: [action.episodeURL, action.kind.rawValue])
        }
    }

    /// How many received actions wait for their episodes.
    func waitingSyncActionCount() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncEpisodeAction WHERE waiting") ?? 0 }
    }
}
