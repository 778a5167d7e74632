/// Where an episode's download stands in the progress buffer.
public enum DownloadState: String, Codable, CaseIterable, Sendable {
    case notStarted = "not-started"
    case waiting
    case downloading
    case paused
    case completed
    case cancelled
    case interrupted
    case error
}
