import SinglecastKit

/// Work that ``UIUpdate/update(_:_:)`` asks for: I/O and timers run outside it, and what they
/// find comes back as a ``Message``.
public enum Command: Equatable, Sendable {
    /// Reads the subscriptions' titles, then their counts.
    case loadPodcasts
    case loadEpisodes(podcastID: Int64, filter: String, start: Int, limit: Int)
    case loadDetails(episodeID: Int64)
    case loadNewEpisodes
    case loadDownloads
    case play(EpisodeEntry, of: StoredPodcast)
    case setPaused(Bool)
    case seek(to: Double)
    case setSpeed(Double)
    /// Ticks every second while true (something plays), none otherwise.
    case setTicking(Bool)
    case download(EpisodeEntry, podcastTitle: String)
    case deleteFile(EpisodeEntry)
    case setPlayed(EpisodeEntry, Bool)
    /// Refreshes these subscriptions; all of them when nil.
    case refresh(podcastIDs: [Int64]?)
    case subscribe(feedURL: String)
    case unsubscribe(podcastID: Int64, title: String)
    case search(term: String)
    /// Stops what runs (playing saves its position) and ends the UI with this exit status.
    case quit(status: Int32)
}
