import Foundation
import GRDB

/// An episode in the queue, with its podcast: what a listing of the queue shows (the podcast's
/// title; the episode's title, date, length, download and playback) and what playing it needs.
public struct QueueEntry: Equatable, Sendable {
    /// Its place in the queue, from 1.
    public var number: Int
    public var podcast: StoredPodcast
    public var entry: EpisodeEntry
}

/// What adding an episode to the queue did.
public enum QueueAddition: Equatable, Sendable {
    /// The episode went to the end of the queue, at this place.
    case added(number: Int)
    /// The episode was in the queue already, at this place; it stays there.
    case alreadyQueued(number: Int)
}

extension Library {
    // MARK: - The queue

    /// The queue in order, numbered from 1.
    public func queue() async throws -> [QueueEntry] {
        try await writer.read { db in try Self.queue(db) }
    }

    /// Adds episodes to the end of the queue in the order given, in one transaction; an
    /// episode queued already keeps its place. Returns what became of each, in the same order.
    public func enqueue(episodeIDs: [Int64]) async throws -> [QueueAddition] {
        try await writer.write { db in
            var queued = try Self.queuedEpisodeIDs(db)
            var additions: [QueueAddition] = []
            for id in episodeIDs {
                if let index = queued.firstIndex(of: id) {
                    additions.append(.alreadyQueued(number: index + 1))
                    continue
                }
                try db.cachedStatement(
                    sql: """
                        INSERT INTO queueEntry (episodeId, position)
                        VALUES (?, COALESCE((SELECT MAX(position) FROM queueEntry), 0) + 1)
                        """
                ).execute(arguments: [id])
                queued.append(id)
                additions.append(.added(number: queued.count))
            }
            return additions
        }
    }

    /// Takes episodes out of the queue; returns how many were in it.
    @discardableResult
    public func dequeue(episodeIDs: [Int64]) async throws -> Int {
        try await writer.write { db in
            try episodeIDs.reduce(0) { removed, id in
                try Self.dequeue(id, db: db)
                return removed + db.changesCount
            }
        }
    }

    /// Moves a queued episode to place `number` (from 1; a place past the end is the last),
    /// the others keeping their order. Returns false when the episode is not in the queue.
    @discardableResult
    public func moveInQueue(episodeID: Int64, to number: Int) async throws -> Bool {
        try await writer.write { db in
            var queued = try Self.queuedEpisodeIDs(db)
            guard let index = queued.firstIndex(of: episodeID) else { return false }
            queued.remove(at: index)
            queued.insert(episodeID, at: min(max(0, number - 1), queued.count))
            let statement = try db.cachedStatement(sql: "UPDATE queueEntry SET position = ? WHERE episodeId = ?")
            for (offset, id) in queued.enumerated() { try statement.execute(arguments: [offset + 1, id]) }
            return true
        }
    }

    /// Empties the queue; returns how many episodes it held.
    @discardableResult
    public func clearQueue() async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM queueEntry")
            return db.changesCount
        }
    }

    /// The episode to play after `episodeID`: the one that follows it in the queue (nil after
    /// the last), or the first when it is not queued (or nil is given).
    public func nextInQueue(after episodeID: Int64?) async throws -> QueueEntry? {
        try await writer.read { db in try Self.next(after: episodeID, in: Self.queue(db)) }
    }

    /// The entry that follows `episodeID` in the queue, numbered as the queue is afterwards,
    /// having taken the episode out of the queue first when `removing`, in one transaction; nil
    /// when the episode is the last, or is not queued (then the queue's first with `orFirst`).
    public func queueEntry(after episodeID: Int64, removing: Bool, orFirst: Bool = false) async throws -> QueueEntry? {
        try await writer.write { db in
            let queue = try Self.queue(db)
            guard queue.contains(where: { $0.entry.id == episodeID }) else { return orFirst ? queue.first : nil }
            var next = Self.next(after: episodeID, in: queue)
            if removing {
                try Self.dequeue(episodeID, db: db)
                next?.number -= 1
            }
            return next
        }
    }

    private static func dequeue(_ episodeID: Int64, db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM queueEntry WHERE episodeId = ?").execute(arguments: [episodeID])
    }

    /// The entry after `episodeID` in `queue`, or its first when the episode is not in it.
    private static func next(after episodeID: Int64?, in queue: [QueueEntry]) -> QueueEntry? {
        guard let index = queue.firstIndex(where: { $0.entry.id == episodeID }) else { return queue.first }
        return queue.indices.contains(index + 1) ? queue[index + 1] : nil
    }

    private static func queuedEpisodeIDs(_ db: Database) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: "SELECT episodeId FROM queueEntry ORDER BY position, episodeId"))
    }

    private static func queue(_ db: Database) throws -> [QueueEntry] {
        let downloads = try downloadsByEnclosureURL(db)
        var podcasts: [Int64: StoredPodcast] = [:]
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(EpisodeColumns.entrySelection()), episode.podcastId
                    FROM queueEntry JOIN \(EpisodeColumns.withPlayback) WHERE episode.id = queueEntry.episodeId
                    ORDER BY queueEntry.position, queueEntry.episodeId
                    """))
        return try rows.enumerated().map { index, row in
            let podcastID: Int64 = row[EpisodeColumns.entryColumnCount]
            if podcasts[podcastID] == nil { podcasts[podcastID] = try podcast(db, id: podcastID) }
            return QueueEntry(number: index + 1, podcast: podcasts[podcastID]!, entry: EpisodeColumns.entry(from: row, downloads: downloads))
        }
    }
}
