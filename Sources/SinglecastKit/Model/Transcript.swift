/// Podcasting 2.0 `<podcast:transcript>`: one transcript of an episode. A feed may list several
/// (one per language or format).
///
/// The spec: `url` (required) is the transcript's address; `type` (required) its MIME type,
/// such as `text/vtt`, `application/x-subrip`, `application/json`, `text/html` or `text/plain`;
/// `language` (optional) an RFC 5646 code, else the feed's language; `rel` (optional)
/// `captions` when the file carries time codes.
public struct Transcript: Codable, Equatable, Hashable, Sendable {
    /// The absolute URL, as text (see ``Episode``).
    public var url: String
    public var type: String?
    public var language: String?
    public var rel: String?

    public init(url: String, type: String? = nil, language: String? = nil, rel: String? = nil) {
        self.url = url
        self.type = type
        self.language = language
        self.rel = rel
    }
}
