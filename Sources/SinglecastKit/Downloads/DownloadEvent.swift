import Foundation

/// One episode to download.
public struct DownloadRequest: Equatable, Sendable {
    /// The show, which names the episode's folder.
    public var podcastTitle: String
    public var episode: Episode
    /// The episode's enclosure; requests are only made for episodes that have one.
    public var enclosure: Enclosure

    public init(podcastTitle: String, episode: Episode, enclosure: Enclosure) {
        self.podcastTitle = podcastTitle
        self.episode = episode
        self.enclosure = enclosure
    }
}

/// What the engine reports while it works. The library never prints: callers render these.
public enum DownloadEvent: Equatable, Sendable {
    /// The file is complete already; nothing was fetched.
    case alreadyDownloaded(DownloadRecord)
    /// Another process owns this download; it was left alone.
    case ownedElsewhere(DownloadRecord)
    /// The download waits for a free slot.
    case queued(DownloadRecord)
    /// The transfer started; `record.receivedBytes` is what was already on disk.
    case started(DownloadRecord)
    /// Bytes on disk so far (reported at most about ten times a second per download).
    case progress(id: Int64, receivedBytes: Int64, totalBytes: Int64?)
    /// The file is whole at `record.file`.
    case completed(DownloadRecord)
    /// The download stopped for good; the message names the URL or file and the cause.
    case failed(DownloadRecord, message: String)
    /// The download stopped (cancelled task, Ctrl-C, pause); its partial file is kept.
    case stopped(DownloadRecord)
}
