import Foundation

/// Where a listener is in an episode: the saved position, or the time it was heard to its end.
public struct Playback: Equatable, Hashable, Sendable {
    /// Seconds of audio where listening stopped; nil when there is none (never heard, or played).
    public var position: Double?
    /// When the episode was marked played; nil when it is not.
    public var playedAt: Date?

    public init(position: Double? = nil, playedAt: Date? = nil) {
        self.position = position
        self.playedAt = playedAt
    }

    public var isPlayed: Bool { playedAt != nil }
}

/// What happened to an episode, in the shape of the gpodder API's episode actions, for syncing
/// with other devices.
public struct EpisodeAction: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case play, download, delete, new
    }

    /// The podcast's feed URL.
    public var podcastURL: String
    /// The episode's media (enclosure) URL.
    public var episodeURL: String
    public var guid: String?
    public var kind: Kind
    public var timestamp: Date
    /// For `play`: where this session of listening started, where it stopped, and the
    /// episode's length, in whole seconds.
    public var started: Int?
    public var position: Int?
    public var total: Int?

    public init(
        podcastURL: String, episodeURL: String, guid: String? = nil, kind: Kind, timestamp: Date,
        started: Int? = nil, position: Int? = nil, total: Int? = nil
    ) {
        self.podcastURL = podcastURL
        self.episodeURL = episodeURL
        self.guid = guid
        self.kind = kind
        self.timestamp = timestamp
        self.started = started
        self.position = position
        self.total = total
    }
}
