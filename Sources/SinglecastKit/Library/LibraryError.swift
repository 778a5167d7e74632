import Foundation

/// A failure of the library database, or a reference to something it does not hold.
public enum LibraryError: LocalizedError, Equatable, Sendable {
    /// The database file could not be opened or migrated.
    case unusableDatabase(path: String, detail: String)
    /// A search result number with no search made yet, or out of range.
    case noSuchSearchResult(number: Int, count: Int)
    /// The search result exists but Apple lists no feed for it.
    case searchResultWithoutFeed(number: Int, title: String)
    /// An episode number was given, but no podcast has been listed yet.
    case noCurrentPodcast
    /// The episode number is not in the podcast.
    case noSuchEpisode(number: Int, podcast: String, count: Int)
    /// The episode has no media file to download.
    case episodeWithoutAudio(number: Int, title: String)
    /// No subscription, stored podcast or file matches the reference.
    case noSuchPodcast(reference: String, candidates: [String])
    /// More than one subscription matches the reference.
    case ambiguousPodcast(reference: String, candidates: [String])

    public var errorDescription: String? {
        switch self {
        case .unusableDatabase(let path, let detail):
            return "cannot use the library database \(path): \(detail)"
        case .noSuchSearchResult(let number, 0):
            return "there is no search result \(number): no search has been made yet"
        case .noSuchSearchResult(let number, let count):
            return "there is no search result \(number): the last search has \(count) result\(count == 1 ? "" : "s")"
        case .searchResultWithoutFeed(let number, let title):
            return "search result \(number) (\(title)) has no feed URL and cannot be opened"
        case .noCurrentPodcast:
            return "no podcast is selected yet: list one with its feed first, or name it"
        case .noSuchEpisode(let number, let podcast, let count):
            return "there is no episode \(number) in \(podcast): it has \(count) episode\(count == 1 ? "" : "s")"
        case .episodeWithoutAudio(let number, let title):
            return "episode \(number) (\(title)) has no audio file to download"
        case .noSuchPodcast(let reference, let candidates):
            let list = candidates.isEmpty ? "" : "; subscriptions: " + candidates.joined(separator: ", ")
            return "no podcast matches \u{201C}\(reference.redactingURLPasswords)\u{201D}\(list)"
        case .ambiguousPodcast(let reference, let candidates):
            return "\u{201C}\(reference.redactingURLPasswords)\u{201D} matches several podcasts: " + candidates.joined(separator: ", ")
        }
    }
}
