import Foundation

/// One show found by the iTunes Search API.
public struct SearchResult: Codable, Equatable, Hashable, Sendable {
    /// The position in the result list, from 1.
    public var number: Int
    public var collectionId: Int?
    public var title: String
    public var artist: String?
    /// The show's RSS feed; nil when Apple lists no feed (such a result cannot be opened).
    public var feedURL: URL?
    public var episodeCount: Int?
    public var genre: String?
    public var artworkURL: URL?
    public var releaseDate: Date?

    public init(
        number: Int, collectionId: Int? = nil, title: String, artist: String? = nil,
        feedURL: URL? = nil, episodeCount: Int? = nil, genre: String? = nil,
        artworkURL: URL? = nil, releaseDate: Date? = nil
    ) {
        self.number = number
        self.collectionId = collectionId
        self.title = title
        self.artist = artist
        self.feedURL = feedURL
        self.episodeCount = episodeCount
        self.genre = genre
        self.artworkURL = artworkURL
        self.releaseDate = releaseDate
    }
}
