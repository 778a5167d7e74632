import Foundation

/// A failure of the library database, or a reference to something it does not hold.
public enum LibraryError: LocalizedError, Equatable, Sendable {
    /// The database file could not be opened or migrated.
    case unusableDatabase(path: String, detail: String)
    /// `singlecast episodes N` with no search made yet, or N out of range.
    case noSuchSearchResult(number: Int, count: Int)
    /// The search result exists but Apple lists no feed for it.
    case searchResultWithoutFeed(number: Int, title: String)
    /// An episode number was given, but no podcast has been listed yet.
    case noCurrentPodcast
    /// The episode number is not in the listed podcast.
    case noSuchEpisode(number: Int, podcast: String, count: Int)

    public var errorDescription: String? {
        switch self {
        case .unusableDatabase(let path, let detail):
            return "cannot use the library database \(path): \(detail)"
        case .noSuchSearchResult(let number, 0):
            return "there is no search result \(number): run `singlecast search TERM` first"
        case .noSuchSearchResult(let number, let count):
            return "there is no search result \(number): the last search has \(count) result\(count == 1 ? "" : "s")"
        case .searchResultWithoutFeed(let number, let title):
            return "search result \(number) (\(title)) has no feed URL and cannot be opened"
        case .noCurrentPodcast:
            return "no podcast is selected: run `singlecast episodes FEED` first, or pass --feed FEED"
        case .noSuchEpisode(let number, let podcast, let count):
            return "there is no episode \(number) in \(podcast): it has \(count) episode\(count == 1 ? "" : "s")"
        }
    }
}
