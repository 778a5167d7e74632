import Foundation

/// A request to the download daemon: one line of JSON on its control socket.
///
/// Every message carries ``version``; a daemon answers a version it does not speak with
/// an error reply.
public struct ControlRequest: Codable, Equatable, Sendable {
    /// The protocol version this build speaks.
    public static let currentVersion = 1

    public enum Command: String, Codable, Sendable {
        /// Queue ``downloads``.
        case enqueue
        /// Pause, resume or cancel ``ids`` (or every download, with ``all``).
        case pause, resume, cancel
        /// Change how many downloads run at once to ``jobs``.
        case setJobs
        /// Report every download.
        case status
    }

    /// One episode to queue.
    public struct Item: Codable, Equatable, Sendable {
        public var podcastTitle: String
        public var episodeTitle: String
        /// The enclosure's URL.
        public var url: String
        public var length: Int64?
        public var type: String?

        public init(podcastTitle: String, episodeTitle: String, url: String, length: Int64?, type: String?) {
            self.podcastTitle = podcastTitle
            self.episodeTitle = episodeTitle
            self.url = url
            self.length = length
            self.type = type
        }
    }

    public var version: Int
    public var command: Command
    public var downloads: [Item]?
    public var ids: [Int64]?
    public var all: Bool?
    public var jobs: Int?

    public init(
        command: Command, downloads: [Item]? = nil, ids: [Int64]? = nil, all: Bool? = nil, jobs: Int? = nil
    ) {
        self.version = Self.currentVersion
        self.command = command
        self.downloads = downloads
        self.ids = ids
        self.all = all
        self.jobs = jobs
    }
}

/// The daemon's answer to one ``ControlRequest``.
public struct ControlReply: Codable, Equatable, Sendable {
    public var version: Int
    /// Whether the request was carried out.
    public var ok: Bool
    /// Why not, when ``ok`` is false.
    public var error: String?
    /// Downloads the request touched (or all of them, for `status`).
    public var downloads: [DownloadRecord]?
    /// Lines worth showing the user, such as `already downloaded: PATH`.
    public var messages: [String]?

    public init(ok: Bool, error: String? = nil, downloads: [DownloadRecord]? = nil, messages: [String]? = nil) {
        self.version = ControlRequest.currentVersion
        self.ok = ok
        self.error = error
        self.downloads = downloads
        self.messages = messages
    }

    static func failure(_ message: String) -> ControlReply {
        ControlReply(ok: false, error: message)
    }
}

extension DownloadRequest {
    /// The request for an episode the daemon was handed or finds interrupted.
    init(_ item: ControlRequest.Item) {
        self.init(
            podcastTitle: item.podcastTitle, episode: Episode(title: item.episodeTitle),
            enclosure: Enclosure(url: item.url, length: item.length, type: item.type))
    }
}

extension ControlRequest.Item {
    /// The item for an episode request, to send to the daemon.
    public init(_ request: DownloadRequest) {
        self.init(
            podcastTitle: request.podcastTitle, episodeTitle: request.episode.title, url: request.enclosure.url,
            length: request.enclosure.length, type: request.enclosure.type)
    }

    /// The item for a download already in the progress buffer.
    init(_ record: DownloadRecord) {
        self.init(
            podcastTitle: record.podcastTitle, episodeTitle: record.episodeTitle, url: record.enclosureURL,
            length: record.expectedBytes, type: record.mediaType)
    }
}
