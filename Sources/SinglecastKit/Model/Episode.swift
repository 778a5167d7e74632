import Foundation

/// One item of a feed (RSS `<item>` or Atom `<entry>`).
///
/// Its links are kept as text, the absolute URL the feed gives (resolved against `xml:base` or
/// the feed's URL where it is relative, and percent-encoded where it needs to be): a feed has
/// tens of thousands of them, which are stored, printed and compared, and only an enclosure
/// that is downloaded is ever read as a `URL` (``Enclosure/location``).
public struct Episode: Codable, Equatable, Hashable, Sendable {
    public var title: String
    /// `<guid>` or Atom `<id>`.
    public var guid: String?
    public var link: String?
    /// `<pubDate>`, or Atom `<published>`/`<updated>`.
    public var published: Date?
    /// `<itunes:duration>` in whole seconds.
    public var duration: Int?
    /// `<description>`, `<content:encoded>`, `<itunes:summary>` or Atom `<summary>`/`<content>`.
    public var description: String?
    /// The media file: RSS `<enclosure>` or Atom `<link rel="enclosure">`.
    public var enclosure: Enclosure?
    /// `<itunes:season>`.
    public var season: Int?
    /// `<itunes:episode>`.
    public var episodeNumber: Int?
    /// `<itunes:explicit>`: true for "yes"/"true"/"explicit", false for "no"/"false"/"clean".
    public var explicit: Bool?
    /// Podcasting 2.0 `<podcast:transcript>` elements, in feed order.
    public var transcripts: [Transcript]
    /// Podcasting 2.0 `<podcast:chapters url>`.
    public var chaptersURL: String?

    public init(
        title: String,
        guid: String? = nil,
        link: String? = nil,
        published: Date? = nil,
        duration: Int? = nil,
        description: String? = nil,
        enclosure: Enclosure? = nil,
        season: Int? = nil,
        episodeNumber: Int? = nil,
        explicit: Bool? = nil,
        transcripts: [Transcript] = [],
        chaptersURL: String? = nil
    ) {
        self.title = title
        self.guid = guid
        self.link = link
        self.published = published
        self.duration = duration
        self.description = description
        self.enclosure = enclosure
        self.season = season
        self.episodeNumber = episodeNumber
        self.explicit = explicit
        self.transcripts = transcripts
        self.chaptersURL = chaptersURL
    }

    /// What identifies the episode across fetches of its feed: the guid, else the link,
    /// else the enclosure URL; nil when the item has none of them.
    public var identity: String? {
        if let guid, !guid.isEmpty { return guid }
        if let link { return link }
        return enclosure?.url
    }
}

/// The media file of an episode.
public struct Enclosure: Codable, Equatable, Hashable, Sendable {
    /// The absolute URL, as text (see ``Episode``); the progress buffer's key.
    public var url: String
    /// The size in bytes the feed announces (often wrong or zero).
    public var length: Int64?
    /// The MIME type the feed announces, such as `audio/mpeg`.
    public var type: String?

    public init(url: String, length: Int64? = nil, type: String? = nil) {
        self.url = url
        self.length = length
        self.type = type
    }

    /// The URL to fetch; nil when the feed's text is not a URL.
    public var location: URL? {
        URL(string: url)
    }
}
