import Foundation

/// A failure of the library database, or a reference to something it does not hold, as a value
/// (the executable words it).
public enum LibraryError: Error, Equatable, Sendable {
    /// The database file could not be opened or migrated.
    case unusableDatabase(path: String, detail: String)
    /// A search result number with no search made yet, or out of range.
    case noSuchSearchResult(number: Int, count: Int)
    /// As ``noSuchSearchResult(number:count:)``, where subscription `@number` exists: the
    /// user probably meant it.
    case noSuchSearchResultButSubscription(number: Int, count: Int, subscription: String)
    /// The search result exists but Apple lists no feed for it.
    case searchResultWithoutFeed(number: Int, title: String)
    /// An episode number was given, but no podcast has been listed yet.
    case noCurrentPodcast
    /// The episode number is not in the podcast.
    case noSuchEpisode(number: Int, podcast: String, count: Int)
    /// The number is not in the list of new episodes (`singlecast new`), which has `count`.
    case noSuchNewEpisode(number: Int, count: Int)
    /// The number is not a place in the queue, which has `count` episodes (none: it is empty).
    case noSuchQueueEntry(number: Int, count: Int)
    /// The number is not among the results of the last `singlecast find`, which had `count`.
    case noSuchFoundEpisode(number: Int, count: Int)
    /// The episode has no media file to download.
    case episodeWithoutAudio(number: Int, title: String)
    /// No subscription, stored podcast or file matches the reference.
    case noSuchPodcast(reference: String, candidates: [String])
    /// More than one subscription matches the reference.
    case ambiguousPodcast(reference: String, candidates: [String])
}
