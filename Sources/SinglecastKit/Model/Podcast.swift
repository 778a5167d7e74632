import Foundation

/// A show, as its feed describes it (RSS `<channel>` or Atom `<feed>`).
public struct Podcast: Codable, Equatable, Hashable, Sendable {
    /// `<title>`.
    public var title: String
    /// The show's website: RSS `<link>`, or Atom `<link rel="alternate">`.
    public var link: URL?
    /// `<description>`, `<itunes:summary>` or Atom `<subtitle>`.
    public var description: String?
    /// `<itunes:author>`, RSS `<managingEditor>` or Atom `<author><name>`.
    public var author: String?
    /// `<itunes:image href>`, RSS `<image><url>` or Atom `<logo>`.
    public var imageURL: URL?
    /// The URL the feed was fetched from (after permanent redirects), or nil for a local file.
    public var feedURL: URL?
    /// `<itunes:new-feed-url>`: where the publisher says the feed has moved.
    public var newFeedURL: URL?

    public init(
        title: String,
        link: URL? = nil,
        description: String? = nil,
        author: String? = nil,
        imageURL: URL? = nil,
        feedURL: URL? = nil,
        newFeedURL: URL? = nil
    ) {
        self.title = title
        self.link = link
        self.description = description
        self.author = author
        self.imageURL = imageURL
        self.feedURL = feedURL
        self.newFeedURL = newFeedURL
    }
}
