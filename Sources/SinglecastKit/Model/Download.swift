import Foundation

/// A download as the progress buffer knows it: one per enclosure URL ever asked for.
///
/// This is the public snapshot the library, the engine and the daemon report; the database
/// row (`DownloadRow`) and the daemon's wire message (`WireDownload`) are separate types that
/// change for their own reasons.
public struct Download: Equatable, Hashable, Sendable {
    public var id: Int64
    /// The key of the progress buffer.
    public var enclosureURL: String
    /// Changed only by ``DownloadLifecycle/apply(_:to:)``, the one owner of the state rules.
    public internal(set) var state: DownloadState
    /// The bytes on disk.
    public var receivedBytes: Int64
    /// The total size, once a server or the feed announced it.
    public var expectedBytes: Int64?
    /// The final path of the episode file (the partial file is this path + `.part`).
    public var file: String
    public var podcastTitle: String
    public var episodeTitle: String
    /// Why the download failed (in the error state), or why the network gave up on it (an
    /// interrupted one): a value, a kind and its details (see ``DownloadError/kind``).
    public var failure: DownloadError?
    /// The enclosure's type as the feed announced it.
    public var mediaType: String?
    /// The transfer speed the owner last measured (over the last few seconds), while downloading.
    public var bytesPerSecond: Double?
    /// While retrying: why, and when the next try starts.
    public internal(set) var retryReason: RetryReason?
    public internal(set) var nextTryAt: Date?
    /// The process downloading it, while the state is waiting or downloading.
    public internal(set) var owner: DownloadOwner?
    /// Whether the background daemon is responsible for it (and resumes it when it restarts).
    public var background: Bool
    /// Whether an update fetched it by itself (`update --download`) rather than a person asking
    /// for it: retention may delete such a file before it is played, never one asked for.
    public var fetchedByUpdate: Bool
    public var updatedAt: Date

    public init(
        id: Int64, enclosureURL: String, state: DownloadState, receivedBytes: Int64 = 0,
        expectedBytes: Int64? = nil, file: String, podcastTitle: String, episodeTitle: String,
        failure: DownloadError? = nil, mediaType: String? = nil, bytesPerSecond: Double? = nil,
        owner: DownloadOwner? = nil, background: Bool = false, fetchedByUpdate: Bool = false, updatedAt: Date = Date(),
        retryReason: RetryReason? = nil, nextTryAt: Date? = nil
    ) {
        self.id = id
        self.enclosureURL = enclosureURL
        self.state = state
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.file = file
        self.podcastTitle = podcastTitle
        self.episodeTitle = episodeTitle
        self.failure = failure
        self.mediaType = mediaType
        self.bytesPerSecond = bytesPerSecond
        self.owner = owner
        self.background = background
        self.fetchedByUpdate = fetchedByUpdate
        self.updatedAt = updatedAt
        self.retryReason = retryReason
        self.nextTryAt = nextTryAt
    }

    /// Whether the download is downloading but its owner saved nothing for more than
    /// ``TransferRate/stallTime`` (owners save about twice a second while bytes arrive): no
    /// byte arrives, or the owner is stuck or gone.
    public func isStalled(at now: Date = Date()) -> Bool {
        state == .downloading && now.timeIntervalSince(updatedAt) > TransferRate<ContinuousClock.Instant>.stallTime.inSeconds
    }

    /// The current speed: only while downloading and not stalled.
    public func currentBytesPerSecond(at now: Date = Date()) -> Double? {
        guard state == .downloading, !isStalled(at: now), let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        return bytesPerSecond
    }

    /// The seconds left at the current speed (see ``currentBytesPerSecond(at:)``).
    public func secondsLeft(at now: Date = Date()) -> Double? {
        guard let expectedBytes, let speed = currentBytesPerSecond(at: now) else { return nil }
        return Double(max(0, expectedBytes - receivedBytes)) / speed
    }

    /// The fraction done, when the total is known.
    public var fractionCompleted: Double? {
        if state == .completed { return 1 }
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}

/// The process that owns a running download: its id, and when it started, so that a process
/// that died and whose id the kernel gave to another is not taken for the owner. Whether it
/// still runs, and what that means for its download, is ``DownloadLifecycle``'s rule.
public struct DownloadOwner: Equatable, Hashable, Sendable {
    public var processID: Int32
    /// The process's start time in clock ticks since boot (`/proc/PID/stat`, field 22), when known.
    public var startTime: UInt64?

    public init(processID: Int32, startTime: UInt64?) {
        self.processID = processID
        self.startTime = startTime
    }
}
