import SinglecastKit

/// What becomes of the downloads running in the UI's own process when it ends.
public enum DownloadsAtQuit: Equatable, Sendable {
    /// Paused, their partial files kept (`singlecast resume` continues them).
    case pause
    /// Handed to the background daemon (started if none runs), which continues them.
    case handToDaemon
}

/// Work that ``UIUpdate/update(_:_:)`` asks for: I/O and timers run outside it, and what they
/// find comes back as a ``Message``.
public enum Command: Equatable, Sendable {
    /// Reads the subscriptions' titles, then their counts.
    case loadPodcasts
    case loadEpisodes(podcastID: Int64, filter: String, start: Int, limit: Int)
    /// Reads an episode's show notes and saved chapters.
    case loadDetails(EpisodeEntry)
    case loadNewEpisodes
    case loadDownloads
    case loadQueue
    /// Adds the episode to the end of the queue.
    case enqueue(EpisodeEntry)
    case dequeue(episodeID: Int64)
    /// Moves a queued episode to place `to` (from 1).
    case moveInQueue(episodeID: Int64, to: Int)
    case clearQueue
    /// Finds the queue's episode after this one (the first when it is not queued).
    case nextInQueue(after: Int64?)
    /// Applies the queue's rule after listening to an episode ended (heard to its end, it
    /// leaves the queue) and, with `playsNext`, finds the episode to play next.
    case advanceQueue(after: Int64, ListeningEnd, playsNext: Bool)
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
    /// Stops what runs (playing saves its position; this process's downloads go as
    /// `downloads` says) and ends the UI with this exit status.
    case quit(status: Int32, downloads: DownloadsAtQuit = .pause)
}
