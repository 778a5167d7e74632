import SinglecastKit

/// Something that happened, for ``UIUpdate/update(_:_:)``: a key, the terminal's size, a
/// timer, what the library read, what the player or a download did.
public enum Message: Sendable {
    case key(Key)
    case resized(width: Int, height: Int)
    /// A second passed while something plays; `now` is seconds on a monotonic clock.
    case tick(now: Double)
    /// SIGTERM or SIGHUP arrived.
    case signal(Int32)
    /// The subscriptions, without their counts (they are quick to read).
    case podcastsLoaded([StoredPodcast])
    /// The subscriptions with their counts.
    case podcastCountsLoaded([PodcastSummary])
    case episodesLoaded(EpisodeWindow)
    case detailsLoaded(EpisodeDetails)
    case newEpisodesLoaded([NewEpisode])
    case queueLoaded([QueueEntry])
    /// An episode was added to the queue (or was there already).
    case queued(title: String, QueueAddition)
    /// The queue was emptied of this many episodes.
    case queueCleared(count: Int)
    /// The queue's episode to play next, when there is one: asked for with `n`, or following
    /// an episode heard to its end (`autoplay`).
    case nextInQueue(QueueEntry?, autoplay: Bool)
    case downloadsLoaded([Download])
    /// Another process (or this one) wrote to the library.
    case libraryChanged
    /// What the player did, at `now` on the clock of ``tick(now:)``.
    case listening(episodeID: Int64, ListeningEvent, now: Double)
    /// A refresh of these podcasts began.
    case refreshStarted([Int64])
    case podcastRefreshed(PodcastUpdate)
    case searchFinished(term: String, [SearchResult])
    case subscribed(StoredPodcast)
    case unsubscribed(title: String)
    /// How many downloads run in the UI's own process now.
    case localDownloads(Int)
    /// A download was handed on: to the daemon or to this process's own downloads.
    case downloadQueued(title: String, toDaemon: Bool)
    case fileDeleted(title: String, deleted: Bool)
    /// An action failed.
    case failed(UIAction, any Error)
}

/// What the UI was doing when something failed, for the sentence that says so.
public enum UIAction: Equatable, Sendable {
    case play(title: String)
    case control
    case download(title: String)
    case delete(title: String)
    case mark(title: String)
    case queue
    case refresh
    case subscribe(url: String)
    case unsubscribe(title: String)
    case search(term: String)
    case read
}
