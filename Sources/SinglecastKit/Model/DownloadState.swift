/// Where an episode's download stands in the progress buffer.
public enum DownloadState: String, Codable, CaseIterable, Sendable {
    case notStarted = "not-started"
    /// Claimed by a process, queued for a free slot.
    case waiting
    case downloading
    /// A transient failure (the network, the server): the owner tries again at `nextTryAt`.
    case retrying
    case paused
    case completed
    case cancelled
    case interrupted
    case error
    /// Its file was deleted (`delete`, retention, `unsubscribe --delete-files`): the download is
    /// over, and only asking for the episode again fetches it again.
    case deleted
}
