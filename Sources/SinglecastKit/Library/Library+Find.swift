import Foundation
import GRDB

/// The episode of a result of the last `find`, and the moment it matched.
public struct FoundMoment: Equatable, Sendable {
    public var podcast: StoredPodcast
    public var entry: EpisodeEntry
    /// Seconds into the episode where the match was said; nil when it was not in a timed transcript.
    public var at: Double?
}

extension Library {
    // MARK: - Find

    /// Brings the search index up to date with the library: episodes added or changed since
    /// the last call, transcripts saved, changed or deleted (an episode deleted from the
    /// library leaves the index at once). A library indexed for the first time is indexed here, in batches
    /// that each commit: cancelling loses nothing, and the next call goes on from there.
    /// `progress` is called after each batch. Returns the transcripts that could not be read,
    /// each once: they are skipped and not tried again until they change.
    public func updateFindIndex(progress: @escaping @Sendable (FindIndexProgress) -> Void = { _ in }) async throws
        -> [UnreadableTranscript]
    {
        var plan = try await writer.read { db in try FindIndex.Plan(db) }
        if plan.needsRebuild {
            try await writer.write { db in try FindIndex.clear(db) }
            plan = try await writer.read { db in try FindIndex.Plan(db) }
        }
        guard plan.hasWork else { return [] }
        let transcripts = plan.transcriptsChanged ? try await writer.read { db in try FindIndex.TranscriptChanges(db) } : nil
        var counter = FindIndexProgress(done: 0, total: plan.episodes + (transcripts?.added.count ?? 0))
        try await indexEpisodes(dirtyOnly: true) { counter.done += $0; progress(counter) }
        try await indexEpisodes(dirtyOnly: false) { counter.done += $0; progress(counter) }
        guard let transcripts else { return [] }
        let unreadable = try await indexTranscripts(transcripts) { counter.done += $0; progress(counter) }
        try await writer.write { db in try FindIndex.storeTranscriptStamp(transcripts.stamp, db: db) }
        return unreadable
    }

    /// Indexes the titles and notes of episodes changed since they were indexed
    /// (`dirtyOnly`), or of those never indexed, a batch a transaction: while one batch is
    /// written, the next is read and its notes reduced to text.
    private func indexEpisodes(dirtyOnly: Bool, counted: (Int) -> Void) async throws {
        var after = try await writer.read { db in try FindIndex.mark(db) }
        try await WriteBehind.run(writer) { behind in
            while true {
                try Task.checkCancellation()
                // A changed episode's mark goes with the write: the next read must come after it.
                if dirtyOnly { try await behind.wait() }
                let batch = try await writer.read { [after] db in
                    try FindIndex.episodeBatch(db, dirtyOnly: dirtyOnly, after: after, limit: FindIndex.batchSize)
                }
                guard let last = batch.last else { break }
                if !dirtyOnly { after = last.id }
                let documents = await FindIndex.documents(of: batch)
                let mark = dirtyOnly ? nil : after
                try await behind.write { db in
                    try FindIndex.store(documents, changed: dirtyOnly, through: mark, db: db)
                }
                counted(batch.count)
            }
        }
    }

    /// Indexes the transcripts saved since the last call and drops those deleted or changed;
    /// returns those that could not be read. A batch is read off the threads that run tasks
    /// while the one before is written.
    private func indexTranscripts(_ changes: FindIndex.TranscriptChanges, counted: (Int) -> Void) async throws
        -> [UnreadableTranscript]
    {
        try await writer.write { db in try FindIndex.remove(changes.removed, db: db) }
        var unreadable: [UnreadableTranscript] = []
        try await WriteBehind.run(writer) { behind in
            for start in stride(from: 0, to: changes.added.count, by: FindIndex.transcriptBatchSize) {
                try Task.checkCancellation()
                let batch = Array(changes.added[start..<min(start + FindIndex.transcriptBatchSize, changes.added.count)])
                let read = try await OffPool.run {
                    batch.map { transcript in
                        (transcript, Result { () throws(UnreadableTranscript) in FindIndex.documents(of: try transcript.cues()) })
                    }
                }
                for (_, documents) in read { if case .failure(let failure) = documents { unreadable.append(failure) } }
                let documents = read.map { (transcript: $0, documents: try? $1.get()) }
                try await behind.write { db in try FindIndex.store(documents, db: db) }
                counted(batch.count)
            }
        }
        return unreadable
    }

    /// Searches the index (see ``updateFindIndex(progress:)``) for `query` among the episodes
    /// that their feeds list, of one podcast or all, in `places`: at most `limit` results, best
    /// first (a match in a title weighs more than in notes, more than in a transcript; ties
    /// newest first), with their snippets. The results are remembered, numbered from 1, for
    /// ``foundMoments()``.
    public func find(
        _ query: FindQuery, podcastID: Int64? = nil, in places: Set<FindPlace> = Set(FindPlace.allCases), limit: Int = 20
    ) async throws -> FindResults {
        let expression =
            places.isEmpty || places.count == FindPlace.allCases.count
            ? query.expression
            : "{" + places.sorted().map(\.rawValue).joined(separator: " ") + "} : (" + query.expression + ")"
        let (hits, total) = try await writer.read { db in
            try FindIndex.search(expression, podcastID: podcastID, limit: limit, db: db)
        }
        let highlighted = try await OffPool.run { try FindHighlighter.highlight(hits, expression: expression) }
        let results = zip(hits, highlighted).map { hit, highlight in
            FoundEpisode(
                podcast: hit.podcast, entry: hit.entry, matchedIn: highlight.place, snippet: highlight.snippet,
                at: highlight.at, score: -hit.score)
        }
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM foundEpisode")
            let insert = try db.cachedStatement(sql: "INSERT INTO foundEpisode (number, episodeId, at) VALUES (?, ?, ?)")
            for (index, result) in results.enumerated() {
                try insert.execute(arguments: [index + 1, result.entry.id, result.at])
            }
        }
        return FindResults(results: results, total: total)
    }

    /// The results of the last ``find(_:podcastID:in:limit:)``, in its order (those whose
    /// episode has left the library since are left out).
    public func foundMoments() async throws -> [FoundMoment] {
        try await writer.read { db in
            let found = try Row.fetchAll(db, sql: "SELECT episodeId, at FROM foundEpisode ORDER BY number")
            return try zip(found, FindIndex.episodes(ids: found.map { $0["episodeId"] }, db: db)).compactMap { found, hit in
                hit.map { FoundMoment(podcast: $0.podcast, entry: $0.entry, at: found["at"]) }
            }
        }
    }
}

/// Writes batches on the library's writer one after another while the caller prepares the
/// next, one write at a time; when the caller stops (cancelled, or failing), the write under
/// way is waited for, so that a batch begun is kept.
struct WriteBehind {
    private let writer: any DatabaseWriter
    private var writing: Task<Void, any Error>?

    /// Runs `body` with a write-behind on `writer`, and waits for its last write.
    static func run(_ writer: any DatabaseWriter, _ body: (inout WriteBehind) async throws -> Void) async throws {
        var behind = WriteBehind(writer: writer)
        do {
            try await body(&behind)
            try await behind.wait()
        } catch {
            _ = try? await behind.writing?.value
            throw error
        }
    }

    /// Starts writing once the write before has ended.
    mutating func write(_ work: @escaping @Sendable (Database) throws -> Void) async throws {
        try await wait()
        writing = Task { [writer] in try await writer.write(work) }
    }

    /// Returns once the write under way, if any, has ended.
    mutating func wait() async throws {
        try await writing?.value
        writing = nil
    }
}
