import Foundation

/// A request to the download daemon: one line of JSON on its control socket (protocol v1).
///
/// The wire types are the protocol's own: renaming a property of ``Download`` or
/// ``DownloadRequest`` cannot change what goes over the socket. Every message carries
/// ``version``; a daemon answers a version it does not speak with an error reply.
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
        /// Also save the episode's transcripts and chapters; absent means no.
        public var extras: Bool?
        /// An update asked for it by itself; absent means a person did.
        public var byUpdate: Bool?
    }

    public var version: Int
    public var command: Command
    public var downloads: [Item]?
    public var ids: [Int64]?
    public var all: Bool?
    public var jobs: Int?

    public init(
        command: Command, downloads: [DownloadRequest]? = nil, ids: [Int64]? = nil, all: Bool? = nil, jobs: Int? = nil
    ) {
        self.version = Self.currentVersion
        self.command = command
        self.downloads = downloads?.map(Item.init)
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
    /// Why not, in words, from a daemon that predates ``failure`` (this one sends the value only).
    public var error: String?
    /// Why not, when ``ok`` is false, as a value: a kind and its details (added to v1 as an
    /// optional field older readers ignore); the executable words it.
    public var failure: ControlFailure?
    /// Every download, for `status`.
    public var downloads: [WireDownload]?
    /// What an `enqueue` did to each request, in order.
    public var claims: [WireClaim]?
    /// What a pause, resume or cancel did to each download, in order.
    public var outcomes: [WireOutcome]?

    public init(
        ok: Bool, downloads: [WireDownload]? = nil, claims: [WireClaim]? = nil, outcomes: [WireOutcome]? = nil
    ) {
        self.version = ControlRequest.currentVersion
        self.ok = ok
        self.downloads = downloads
        self.claims = claims
        self.outcomes = outcomes
    }

    static func failure(_ failure: ControlFailure) -> ControlReply {
        var reply = ControlReply(ok: false)
        reply.failure = failure
        return reply
    }
}

/// Why the daemon did not carry out a request, as a value: a `kind` and its details (the
/// executable words it).
public struct ControlFailure: Codable, Hashable, Sendable {
    /// `malformed-message`, `message-too-long`, `unsupported-version`, `malformed-request`,
    /// `starting`, `jobs-out-of-range` or `failed` (carrying it out failed); a reader keeps a
    /// kind it does not know as it is.
    public var kind: String
    /// The protocol version asked for (`unsupported-version`), the jobs asked for
    /// (`jobs-out-of-range`), the longest message (`message-too-long`).
    public var number: Int?
    /// What went wrong, described (`malformed-request`, `failed`).
    public var detail: String?

    public init(kind: String, number: Int? = nil, detail: String? = nil) {
        self.kind = kind
        self.number = number
        self.detail = detail
    }

    static let malformedMessage = ControlFailure(kind: "malformed-message")
    static func messageTooLong(limit: Int) -> ControlFailure { ControlFailure(kind: "message-too-long", number: limit) }
    static func unsupportedVersion(_ version: Int) -> ControlFailure { ControlFailure(kind: "unsupported-version", number: version) }
    static func malformedRequest(_ detail: String) -> ControlFailure { ControlFailure(kind: "malformed-request", detail: detail) }
    static let starting = ControlFailure(kind: "starting")
    static func jobsOutOfRange(_ jobs: Int) -> ControlFailure { ControlFailure(kind: "jobs-out-of-range", number: jobs) }
    static func failed(_ detail: String) -> ControlFailure { ControlFailure(kind: "failed", detail: detail) }
}

/// A ``Download`` as protocol v1 writes it.
public struct WireDownload: Codable, Equatable, Sendable {
    var id: Int64
    var enclosureURL: String
    var state: String
    var receivedBytes: Int64
    var expectedBytes: Int64?
    var file: String
    var podcastTitle: String
    var episodeTitle: String
    /// The failure in words, from a daemon that predates ``failure`` (this one sends the value only).
    var message: String?
    var mediaType: String?
    var bytesPerSecond: Double?
    var ownerPID: Int32?
    var ownerStartTime: UInt64?
    var background: Bool
    var updatedAt: Date
    /// Added to v1 without a version change, as optional fields older readers ignore: a
    /// retrying download's reason and next try. (The `retrying` state is new as well: a reader
    /// that does not know a state skips that download, as ``download`` does.)
    var retryReason: String?
    var nextTryAt: Date?
    /// Added to v1 the same way: the failure as a value (kind and details).
    var failure: DownloadError?

    init(_ download: Download) {
        id = download.id
        enclosureURL = download.enclosureURL
        state = download.state.rawValue
        receivedBytes = download.receivedBytes
        expectedBytes = download.expectedBytes
        file = download.file
        podcastTitle = download.podcastTitle
        episodeTitle = download.episodeTitle
        failure = download.failure
        mediaType = download.mediaType
        bytesPerSecond = download.bytesPerSecond
        ownerPID = download.owner?.processID
        ownerStartTime = download.owner?.startTime
        background = download.background
        updatedAt = download.updatedAt
        retryReason = download.retryReason?.rawValue
        nextTryAt = download.nextTryAt
    }

    var download: Download? {
        guard let state = DownloadState(rawValue: state) else { return nil }
        return Download(
            id: id, enclosureURL: enclosureURL, state: state, receivedBytes: receivedBytes, expectedBytes: expectedBytes,
            file: file, podcastTitle: podcastTitle, episodeTitle: episodeTitle,
            failure: failure ?? message.map { DownloadError.stored(.unexpected($0), url: enclosureURL) }, mediaType: mediaType,
            bytesPerSecond: bytesPerSecond, owner: ownerPID.map { DownloadOwner(processID: $0, startTime: ownerStartTime) },
            background: background, updatedAt: updatedAt, retryReason: retryReason.map(RetryReason.init),
            nextTryAt: nextTryAt)
    }
}

/// A ``DownloadClaim`` as protocol v1 writes it.
public struct WireClaim: Codable, Equatable, Sendable {
    /// `claimed`, `already-downloaded` or `owned-elsewhere`.
    var kind: String
    var download: WireDownload

    init(_ claim: DownloadClaim) {
        switch claim {
        case .claimed: kind = "claimed"
        case .alreadyDownloaded: kind = "already-downloaded"
        case .ownedElsewhere: kind = "owned-elsewhere"
        }
        download = WireDownload(claim.download)
    }

    var claim: DownloadClaim? {
        guard let download = download.download else { return nil }
        switch kind {
        case "claimed": return .claimed(download)
        case "already-downloaded": return .alreadyDownloaded(download)
        case "owned-elsewhere": return .ownedElsewhere(download)
        default: return nil
        }
    }
}

/// A ``ControlOutcome`` as protocol v1 writes it.
public struct WireOutcome: Codable, Equatable, Sendable {
    /// `paused`, `cancelled`, `resumed`, `refused`, `no-downloader` or `unknown`.
    var kind: String
    var id: Int64
    var download: WireDownload?
    var claim: WireClaim?
    /// For `refused`: the event refused.
    var refusedEvent: String?

    init(_ outcome: ControlOutcome) {
        switch outcome {
        case .paused(let download):
            self.init(kind: "paused", id: download.id, download: WireDownload(download))
        case .cancelled(let download):
            self.init(kind: "cancelled", id: download.id, download: WireDownload(download))
        case .resumed(let claim):
            self.init(kind: "resumed", id: claim.download.id, claim: WireClaim(claim))
        case .refused(let download, let refusal):
            self.init(kind: "refused", id: download.id, download: WireDownload(download), refusedEvent: refusal.event.rawValue)
        case .noDownloader(let download):
            self.init(kind: "no-downloader", id: download.id, download: WireDownload(download))
        case .unknown(let id):
            self.init(kind: "unknown", id: id)
        }
    }

    private init(kind: String, id: Int64, download: WireDownload? = nil, claim: WireClaim? = nil, refusedEvent: String? = nil) {
        self.kind = kind
        self.id = id
        self.download = download
        self.claim = claim
        self.refusedEvent = refusedEvent
    }

    var outcome: ControlOutcome? {
        switch kind {
        case "paused": return download?.download.map(ControlOutcome.paused)
        case "cancelled": return download?.download.map(ControlOutcome.cancelled)
        case "resumed": return claim?.claim.map(ControlOutcome.resumed)
        case "refused":
            guard let download = download?.download, let event = refusedEvent.flatMap(DownloadLifecycle.Event.init) else {
                return nil
            }
            return .refused(download, DownloadLifecycle.Refusal(state: download.state, event: event))
        case "no-downloader": return download?.download.map(ControlOutcome.noDownloader)
        case "unknown": return .unknown(id: id)
        default: return nil
        }
    }
}

extension ControlRequest.Item {
    init(_ request: DownloadRequest) {
        self.init(
            podcastTitle: request.podcastTitle, episodeTitle: request.episode.title, url: request.enclosure.url,
            length: request.enclosure.length, type: request.enclosure.type, extras: request.withExtras ? true : nil,
            byUpdate: request.fetchedByUpdate ? true : nil)
    }

    var request: DownloadRequest {
        DownloadRequest(
            podcastTitle: podcastTitle, episode: Episode(title: episodeTitle),
            enclosure: Enclosure(url: url, length: length, type: type), withExtras: extras ?? false,
            fetchedByUpdate: byUpdate ?? false)
    }
}

extension ControlReply {
    /// The downloads of a `status` reply.
    public var statusDownloads: [Download] { (downloads ?? []).compactMap(\.download) }
    /// The claims of an `enqueue` reply.
    public var enqueueClaims: [DownloadClaim] { (claims ?? []).compactMap(\.claim) }
    /// The outcomes of a pause, resume or cancel reply.
    public var controlOutcomes: [ControlOutcome] { (outcomes ?? []).compactMap(\.outcome) }
}

/// The one JSON configuration of the daemon's messages: ISO 8601 dates, stable key order.
enum ControlCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
