import Foundation

/// One episode to download.
public struct DownloadRequest: Equatable, Sendable {
    /// The show, which names the episode's folder.
    public var podcastTitle: String
    public var episode: Episode
    /// The episode's enclosure; requests are only made for episodes that have one.
    public var enclosure: Enclosure
    /// Also save the episode's transcripts and chapters (as a subscription's `--extras` does).
    public var withExtras: Bool
    /// An update asks for it by itself (`update --download`), not a person (see ``Download/fetchedByUpdate``).
    public var fetchedByUpdate: Bool

    public init(
        podcastTitle: String, episode: Episode, enclosure: Enclosure, withExtras: Bool = false, fetchedByUpdate: Bool = false
    ) {
        self.podcastTitle = podcastTitle
        self.episode = episode
        self.enclosure = enclosure
        self.withExtras = withExtras
        self.fetchedByUpdate = fetchedByUpdate
    }
}

/// What the engine reports while it works. The library never prints: callers render these.
public enum DownloadEvent: Equatable, Sendable {
    /// The file is complete already; nothing was fetched.
    case alreadyDownloaded(Download)
    /// Another process owns this download; it was left alone.
    case ownedElsewhere(Download)
    /// The download waits for a free slot.
    case queued(Download)
    /// The transfer started (or started again after ``retrying(_:)``); `receivedBytes` is
    /// what was already on disk.
    case started(Download)
    /// Bytes on disk so far (reported at most about ten times a second per download).
    case progress(id: Int64, receivedBytes: Int64, totalBytes: Int64?)
    /// A transient failure: the transfer waits for its next try (the download's `nextTryAt`,
    /// for its `retryReason`); ``started(_:)`` follows when a try gets an answer.
    case retrying(Download)
    /// The file is whole at `file`.
    case completed(Download)
    /// The download stopped for good; `failure` names the URL or file and the cause.
    case failed(Download)
    /// The download stopped (Ctrl-C, pause, cancel); a paused or interrupted one keeps its
    /// partial file. Its `state` says which.
    case stopped(Download)
    /// The podcast's retention policy deleted this older episode's file.
    case deletedByRetention(Download)
    /// Transcripts and chapters of a completed download were fetched: each saved, or failing
    /// (a warning: the episode stays complete, and the next download of it tries again).
    case extras(Download, [ExtraFile])
}
