import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct New: AsyncParsableCommand, BriefLibraryCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "List the new episodes of every subscription, newest first.",
            discussion: "`singlecast download --new [N…]` downloads them; `singlecast mark-old` clears them.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the new episodes as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let listed = try await library.newEpisodes()
            if json {
                try printJSON(listed.enumerated().map { ListedEpisodeJSON(number: $0.offset + 1, podcast: $0.element.podcast, entry: $0.element.entry) })
            } else if listed.isEmpty {
                print("No new episodes.")
            } else {
                let rows = listed.enumerated().map { (number: $0.offset + 1, podcast: $0.element.podcast, entry: $0.element.entry) }
                print(EpisodeTable.render(rows, showsLength: false, width: TTY.outputWidth))
            }
        }
    }

    struct MarkOld: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mark-old", abstract: "Clear the new mark of episodes, numbered as `singlecast new` lists them.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Numbers or ranges from `singlecast new`.")
        var episodes: [String] = []

        @Flag(help: "Every new episode.")
        var all = false

        @Flag(help: "Print the episodes marked old as JSON, numbered as `new` listed them.")
        var json = false

        func validate() throws {
            _ = try EpisodeNumbers.parse(episodes)
            guard all != !episodes.isEmpty else { throw ValidationError("Give episode numbers, or --all.") }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let listed = try await library.newEpisodes()
            let numbers = all ? Array(listed.indices.map { $0 + 1 }) : try EpisodeNumbers.parse(episodes)
            let marked = try numbers.map { number in
                guard listed.indices.contains(number - 1) else { throw LibraryError.noSuchNewEpisode(number: number, count: listed.count) }
                return ListedEpisodeJSON(number: number, podcast: listed[number - 1].podcast, entry: listed[number - 1].entry)
            }
            try await library.markOld(episodeIDs: numbers.map { listed[$0 - 1].entry.id })
            if json {
                try printJSON(marked)
            } else {
                print("\(marked.count) episode\(marked.count == 1 ? "" : "s") marked old")
            }
        }
    }
}

/// The `--json` shape of an episode listed with its podcast (`new`, `queue`).
struct ListedEpisodeJSON: Encodable {
    var number: Int
    var podcast: String
    var title: String
    var published: Date?
    /// The length the feed gives, in seconds.
    var duration: Int?
    var url: String?
    var state: String
    /// Why its download failed, in words, and as a value (`error.kind` and its details), as
    /// `downloads --json` has them.
    var message: String?
    var error: DownloadError?
    var playback: PlaybackJSON

    init(number: Int, podcast: StoredPodcast, entry: EpisodeEntry) {
        self.number = number
        self.podcast = podcast.podcast.title
        title = entry.episode.title
        published = entry.episode.published
        duration = entry.episode.duration
        url = entry.episode.enclosure?.url.redactingURLPasswords
        state = (entry.download?.state ?? .notStarted).rawValue
        message = entry.download?.failure.map(Words.failure)
        error = entry.download?.failure
        playback = PlaybackJSON(entry.playback)
    }

    func encode(to encoder: any Encoder) throws {
        // Absent values as before; the listening keys always, null included.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(podcast, forKey: .podcast)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(published, forKey: .published)
        try container.encodeIfPresent(duration, forKey: .duration)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(error, forKey: .error)
        try playback.encode(to: encoder)
    }

    private enum CodingKeys: String, CodingKey {
        case number, podcast, title, published, duration, url, state, message, error
    }
}
