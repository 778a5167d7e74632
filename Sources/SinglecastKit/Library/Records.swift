import Foundation
import GRDB

/// A podcast as the library holds it.
public struct StoredPodcast: Equatable, Sendable {
    /// The row id.
    public var id: Int64
    /// What the podcast is known by: its feed URL, or the `file://` URL of a local feed.
    public var feedKey: String
    public var podcast: Podcast
}

/// A feed as saved in the library.
public struct SavedFeed: Sendable {
    public var podcast: StoredPodcast
    /// Its episodes in feed order, numbered from 1.
    public var episodes: [EpisodeEntry]
    /// Problems the parser recovered from.
    public var warnings: [String]
}

/// An episode of the listed podcast, with its number in the feed and its download, if any.
public struct EpisodeEntry: Equatable, Sendable {
    /// The position in the feed, from 1.
    public var number: Int
    public var episode: Episode
    /// The progress-buffer entry for the episode's enclosure, if it was ever asked for.
    public var download: DownloadRecord?
}

/// An entry of the progress buffer: one per enclosure URL ever asked for.
public struct DownloadRecord: Codable, Equatable, Sendable {
    public var id: Int64?
    /// The key of the buffer.
    public var enclosureURL: String
    public var state: DownloadState
    public var receivedBytes: Int64
    /// The total size, once a server or the feed announced it.
    public var expectedBytes: Int64?
    /// The final path of the episode file (the partial file is this path + `.part`).
    public var file: String
    public var podcastTitle: String
    public var episodeTitle: String
    /// Why the download stopped, for the error state.
    public var message: String?
    /// The enclosure's type as the feed announced it.
    public var mediaType: String?
    /// The transfer speed last measured by the owner, while downloading.
    public var bytesPerSecond: Double?
    /// The process downloading it, while the state is downloading or waiting.
    public var ownerPID: Int32?
    /// Whether the background daemon is responsible for it (and resumes it when it restarts).
    public var background: Bool
    public var updatedAt: Date

    public init(
        id: Int64? = nil, enclosureURL: String, state: DownloadState, receivedBytes: Int64 = 0,
        expectedBytes: Int64? = nil, file: String, podcastTitle: String, episodeTitle: String,
        message: String? = nil, mediaType: String? = nil, bytesPerSecond: Double? = nil,
        ownerPID: Int32? = nil, background: Bool = false, updatedAt: Date = Date()
    ) {
        self.id = id
        self.enclosureURL = enclosureURL
        self.state = state
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.file = file
        self.podcastTitle = podcastTitle
        self.episodeTitle = episodeTitle
        self.message = message
        self.mediaType = mediaType
        self.bytesPerSecond = bytesPerSecond
        self.ownerPID = ownerPID
        self.background = background
        self.updatedAt = updatedAt
    }

    /// The seconds left at the last measured speed, while downloading.
    public var secondsLeft: Double? {
        guard state == .downloading, let expectedBytes, let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        return Double(max(0, expectedBytes - receivedBytes)) / bytesPerSecond
    }

    /// The fraction done, when the total is known.
    public var fractionCompleted: Double? {
        if state == .completed { return 1 }
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}

// MARK: - Database

extension DownloadRecord: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "download"

    public enum Columns {
        public static let enclosureURL = Column(CodingKeys.enclosureURL)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension SearchResult: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "searchResult"
}
