/// What a feed document holds: the show and its episodes in document order.
public struct Feed: Equatable, Sendable {
    public var podcast: Podcast
    public var episodes: [Episode]
    /// Problems the parser recovered from, such as a document cut off after complete items.
    public var warnings: [String]

    public init(podcast: Podcast, episodes: [Episode], warnings: [String] = []) {
        self.podcast = podcast
        self.episodes = episodes
        self.warnings = warnings
    }
}
