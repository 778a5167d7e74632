import Foundation

/// How a podcast is followed: what to keep, what to fetch by itself, and how its last update went.
public struct Subscription: Equatable, Sendable {
    /// Keep the files of this many most recent downloaded episodes; nil keeps them all.
    public var keep: Int?
    /// What `update --download` fetches of this podcast.
    public var autoDownload: AutoDownload
    /// Whether its downloads also save the episodes' transcripts and chapters.
    public var extras: Bool
    /// Whether each episode an update adds goes to the end of the queue.
    public var queuesNew: Bool
    public var subscribedAt: Date
    /// The last update, when there was one.
    public var lastUpdate: UpdateResult?
    /// When an update last fetched the feed (or learned it had not changed).
    public var lastSuccessAt: Date?

    public init(
        keep: Int? = nil, autoDownload: AutoDownload = .none, extras: Bool = false, queuesNew: Bool = false,
        subscribedAt: Date = Date(),
        lastUpdate: UpdateResult? = nil, lastSuccessAt: Date? = nil
    ) {
        self.keep = keep
        self.autoDownload = autoDownload
        self.extras = extras
        self.queuesNew = queuesNew
        self.subscribedAt = subscribedAt
        self.lastUpdate = lastUpdate
        self.lastSuccessAt = lastSuccessAt
    }

    /// Whether the feed answered 410 Gone: it is no longer fetched.
    public var isGone: Bool {
        if case .gone = lastUpdate?.status { return true }
        return false
    }
}

/// What `update --download` fetches of a podcast by itself.
public enum AutoDownload: String, CaseIterable, Codable, Sendable {
    /// Nothing: new episodes are only listed.
    case none
    /// Every new episode.
    case new
}

/// How one podcast's update went.
public struct UpdateResult: Equatable, Sendable {
    public var status: UpdateStatus
    public var at: Date

    public init(status: UpdateStatus, at: Date) {
        self.status = status
        self.at = at
    }
}

/// The outcome of fetching one subscription's feed.
public enum UpdateStatus: Equatable, Sendable {
    /// The feed was fetched and saved.
    case ok
    /// The server answered 304, or sent the same bytes as last time: nothing to save.
    case notModified
    /// The feed moved for good (301/308 or `itunes:new-feed-url`) from the first URL to the second,
    /// and was fetched there.
    case moved(from: String, to: String)
    /// The server answered 410: the podcast is no longer fetched.
    case gone
    /// The update failed, and why, as a value.
    case failed(UpdateFailure)

    /// The word stored and shown for the status.
    public var name: String {
        switch self {
        case .ok: "ok"
        case .notModified: "not-modified"
        case .moved: "moved"
        case .gone: "gone"
        case .failed: "failed"
        }
    }
}

/// Which downloaded files of a podcast are kept.
public enum Retention: Equatable, Sendable {
    /// Every file.
    case all
    /// The files of this many most recent downloaded episodes; older ones are deleted after
    /// each new download.
    case mostRecent(Int)

    /// The number of episodes kept, nil for all.
    var count: Int? {
        if case .mostRecent(let count) = self { return count }
        return nil
    }
}
