import Foundation
import Synchronization

/// A feed being saved while it is parsed: the parser hands each batch of episodes to
/// ``stage(_:)``, which returns at once; the batches are staged in a temporary table on the
/// library's writer thread (no lock on the library is taken), so parsing and storing use two
/// cores. ``commit(_:feedKey:options:)`` then merges them in one short transaction, and
/// ``discard()`` drops them. A fetch that stalls never holds the library's write lock.
public final class FeedStaging: Sendable {
    private struct State {
        var staging: EpisodeColumns.Staging
        var episodes: [Episode] = []
        /// The last batch's insert; each waits for the one before, so batches stay in order.
        /// The first one creates the table: a fetch that finds nothing new never writes.
        var lastInsert: Task<Void, any Error>?
    }

    private let library: Library
    private let table: EpisodeColumns.Staging
    private let state: Mutex<State>

    init(library: Library, staging: EpisodeColumns.Staging) {
        self.library = library
        self.table = staging
        self.state = Mutex(State(staging: staging))
    }

    /// Hands on the next episodes of the feed, in feed order.
    public func stage(_ episodes: [Episode]) {
        guard !episodes.isEmpty else { return }
        let library = self.library
        let table = self.table
        state.withLock { state in
            let rows = state.staging.rows(for: episodes)
            state.episodes.append(contentsOf: episodes)
            let previous = state.lastInsert
            state.lastInsert = Task {
                if let previous {
                    try await previous.value
                } else {
                    try await library.createStaging(table)
                }
                try await library.stage(rows, in: table)
            }
        }
    }

    /// Saves the feed: its podcast, the episodes staged and `feed.episodes` (those parsed after
    /// the last batch), in one transaction. Episodes are updated by identity (never duplicated,
    /// unchanged ones left untouched); episodes gone from the feed keep their rows (and their
    /// files). Returns the stored podcast and its episodes in feed order.
    ///
    /// The new pages stay in SQLite's write-ahead log when the transaction commits: copying
    /// them into the database file is left to ``Library/checkpoint()``.
    public func commit(_ feed: Feed, feedKey: String, options: Library.SaveOptions = Library.SaveOptions()) async throws
        -> SavedFeed
    {
        stage(feed.episodes)
        let (episodes, lastInsert) = state.withLock { ($0.episodes, $0.lastInsert) }
        do {
            if let lastInsert {
                try await lastInsert.value
            } else {
                try await library.createStaging(table)
            }
        } catch {
            await library.discard(table)
            throw error
        }
        return try await library.commit(feed, episodes: episodes, staging: table, feedKey: feedKey, options: options)
    }

    /// Drops what was staged (a parse that failed, or a feed unchanged since the last fetch).
    public func discard() async {
        guard let lastInsert = state.withLock({ $0.lastInsert }) else { return }
        _ = try? await lastInsert.value
        await library.discard(table)
    }
}
