/// What a feed document holds: the show and its episodes in document order.
public struct Feed: Equatable, Sendable {
    public var podcast: Podcast
    public var episodes: [Episode]
    /// What the parser repaired, at most one warning per document.
    public var warnings: [FeedWarning]

    public init(podcast: Podcast, episodes: [Episode], warnings: [FeedWarning] = []) {
        self.podcast = podcast
        self.episodes = episodes
        self.warnings = warnings
    }
}

/// A feed that is not well-formed XML, read as far as it could be.
public struct FeedWarning: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Faults such as a bare `&`, an undefined entity, a mismatched tag or a byte invalid in
        /// the encoding were repaired, and everything that could be read was kept.
        case repaired
        /// The document ends early, inside the element named (when known): what came before
        /// was kept, the episode cut off too when what arrived of it identifies it.
        case cutOff(inside: String?)
    }

    /// What happened at the first fault.
    public var kind: Kind
    /// The URL or file path of the document.
    public var source: String
    /// The line of the first fault, from 1.
    public var line: Int

    public init(kind: Kind, source: String, line: Int) {
        self.kind = kind
        self.source = source
        self.line = line
    }
}
