import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Episodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the episodes of a podcast, and make it the current one.",
            discussion: "FEED is a result number of the last search, a feed URL, or a local feed file."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A search result number, a feed URL, or a feed file.")
        var feed: String

        @Flag(help: "Print the podcast and its episodes as JSON.")
        var json = false

        func run() async throws {
            let library = try global.openLibrary()
            let (_, stored) = try await FeedArgument(feed).load(library: library, global: global)
            _ = try global.progressBuffer(library)
            let entries = try library.episodes(podcastID: stored.id)
            if json {
                try printJSON(PodcastJSON(stored, entries))
            } else if entries.isEmpty {
                print("\(stored.podcast.title) has no episodes.")
            } else {
                print(stored.podcast.title)
                print(EpisodeTable.render(entries))
            }
        }
    }
}

/// The `--json` shape of `singlecast episodes`.
struct PodcastJSON: Encodable {
    var title: String
    var link: String?
    var feedURL: String?
    var episodes: [EpisodeJSON]

    init(_ stored: StoredPodcast, _ entries: [EpisodeEntry]) {
        title = stored.podcast.title
        link = stored.podcast.link?.absoluteString
        feedURL = stored.podcast.feedURL?.absoluteString
        episodes = entries.map(EpisodeJSON.init)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(link, forKey: .link)
        try container.encode(feedURL, forKey: .feedURL)
        try container.encode(episodes, forKey: .episodes)
    }

    private enum CodingKeys: String, CodingKey { case title, link, feedURL, episodes }
}

struct EpisodeJSON: Encodable {
    struct EnclosureJSON: Encodable {
        var url: String
        var length: Int64?
        var type: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(length, forKey: .length)
            try container.encode(type, forKey: .type)
        }

        private enum CodingKeys: String, CodingKey { case url, length, type }
    }

    var number: Int
    var title: String
    var guid: String?
    var published: Date?
    var duration: Int?
    var enclosure: EnclosureJSON?
    var state: DownloadState
    var progress: Double?
    var file: String?

    init(_ entry: EpisodeEntry) {
        let episode = entry.episode
        number = entry.number
        title = episode.title
        guid = episode.guid
        published = episode.published
        duration = episode.duration
        enclosure = episode.enclosure.map {
            EnclosureJSON(url: $0.url.absoluteString, length: $0.length, type: $0.type)
        }
        state = entry.download?.state ?? .notStarted
        progress = entry.download?.fractionCompleted
        file = entry.download?.file
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(title, forKey: .title)
        try container.encode(guid, forKey: .guid)
        try container.encode(published, forKey: .published)
        try container.encode(duration, forKey: .duration)
        try container.encode(enclosure, forKey: .enclosure)
        try container.encode(state, forKey: .state)
        try container.encode(progress, forKey: .progress)
        try container.encode(file, forKey: .file)
    }

    private enum CodingKeys: String, CodingKey {
        case number, title, guid, published, duration, enclosure, state, progress, file
    }
}
