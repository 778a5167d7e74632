import Foundation
import GRDB

/// A podcast as the library holds it.
public struct StoredPodcast: Equatable, Sendable {
    /// The row id.
    public var id: Int64
    /// What the podcast is known by: its feed URL, or the `file://` URL of a local feed.
    public var feedKey: String
    public var podcast: Podcast
    /// How the podcast is followed; nil when it is not a subscription.
    public var subscription: Subscription?
    /// The speed its episodes are played at (`play --speed`, `subscribe --speed`); nil for 1.
    public var playbackSpeed: Double?
}

/// A feed as saved in the library.
public struct SavedFeed: Sendable {
    public var podcast: StoredPodcast
    /// How many episodes the feed lists (``Library/episodes(podcastID:)`` has them, numbered
    /// from 1 in feed order).
    public var episodeCount: Int
    /// How many episodes the save added to the library.
    public var addedCount: Int
    /// How many of them it marked new: all of them in an update, the most recent one in a
    /// subscription's first fetch, none when a feed is only listed.
    public var newCount: Int = 0
    /// Problems the parser recovered from.
    public var warnings: [FeedWarning]
}

/// An episode of a podcast, with its number in the feed and its download, if any.
public struct EpisodeEntry: Equatable, Sendable {
    /// The episode's row id.
    public var id: Int64
    /// The position in the feed, from 1.
    public var number: Int
    /// The episode as listings show it: without its description, which no listing prints and
    /// which is most of the stored row.
    public var episode: Episode
    /// The progress-buffer entry for the episode's enclosure, if it was ever asked for.
    public var download: Download?
    /// Whether the episode is new (see ``Library/newEpisodes()``).
    public var isNew: Bool = false
    /// Whether the user deleted its file: updates never download it again.
    public var isDeleted: Bool = false
    /// Where the listener stopped, and whether the episode was heard to its end.
    public var playback = Playback()
}

/// The row of the `download` table behind a ``Download``; only the library sees it.
struct DownloadRow: Codable, Equatable, Sendable {
    var id: Int64?
    var enclosureURL: String
    var state: DownloadState
    var receivedBytes: Int64
    var expectedBytes: Int64?
    var file: String
    var podcastTitle: String
    var episodeTitle: String
    /// A failure stored as a sentence by an earlier version (read as ``DownloadError/Reason/unexpected(_:)``).
    var message: String?
    /// The failure as a value (JSON of ``DownloadError``), since v5-failures.
    var failure: String?
    var mediaType: String?
    var bytesPerSecond: Double?
    var ownerPID: Int32?
    var ownerStartTime: Int64?
    var background: Bool
    var fetchedByUpdate: Bool
    var updatedAt: Date
    var retryReason: String?
    var nextTryAt: Date?

    init(_ download: Download) {
        id = download.id > 0 ? download.id : nil
        enclosureURL = download.enclosureURL
        state = download.state
        receivedBytes = download.receivedBytes
        expectedBytes = download.expectedBytes
        file = download.file
        podcastTitle = download.podcastTitle
        episodeTitle = download.episodeTitle
        message = nil
        failure = download.failure.map(failureJSON)
        mediaType = download.mediaType
        bytesPerSecond = download.bytesPerSecond
        ownerPID = download.owner?.processID
        ownerStartTime = download.owner?.startTime.map { Int64(bitPattern: $0) }
        background = download.background
        fetchedByUpdate = download.fetchedByUpdate
        updatedAt = download.updatedAt
        retryReason = download.retryReason?.rawValue
        nextTryAt = download.nextTryAt
    }

    /// The failure of the row: its value, or a sentence an earlier version stored.
    private var storedFailure: DownloadError? {
        if let failure, let value = try? JSONDecoder().decode(DownloadError.self, from: Data(failure.utf8)) { return value }
        return message.map { DownloadError.stored(.unexpected($0), url: enclosureURL) }
    }

    /// The public snapshot of a stored row.
    var download: Download {
        Download(
            id: id ?? 0, enclosureURL: enclosureURL, state: state, receivedBytes: receivedBytes,
            expectedBytes: expectedBytes, file: file, podcastTitle: podcastTitle, episodeTitle: episodeTitle,
            failure: storedFailure, mediaType: mediaType, bytesPerSecond: bytesPerSecond,
            owner: ownerPID.map { DownloadOwner(processID: $0, startTime: ownerStartTime.map { UInt64(bitPattern: $0) }) },
            background: background, fetchedByUpdate: fetchedByUpdate, updatedAt: updatedAt, retryReason: retryReason.map(RetryReason.init),
            nextTryAt: nextTryAt)
    }
}

// MARK: - Database

extension DownloadRow: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "download"

    enum Columns {
        static let enclosureURL = Column(CodingKeys.enclosureURL)
        static let file = Column(CodingKeys.file)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension SearchResult: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "searchResult"
}
