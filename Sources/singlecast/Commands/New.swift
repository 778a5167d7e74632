import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct New: AsyncParsableCommand {
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
                try printJSON(listed.enumerated().map { NewEpisodeJSON(number: $0.offset + 1, $0.element) })
            } else if listed.isEmpty {
                print("No new episodes.")
            } else {
                let showsHeard = listed.contains { EpisodeTable.hasBeenHeard($0.entry.playback) }
                let headers = ["#", "Date", "Podcast", "State"] + (showsHeard ? ["Heard"] : []) + ["Title"]
                // On a terminal the titles are cut first, then the podcasts' names.
                var table = TextTable(headers: headers, rightAligned: [0], shrinking: [headers.count - 1, 2])
                for (index, item) in listed.enumerated() {
                    let entry = item.entry
                    var row = [
                        String(index + 1), entry.episode.published.map(Format.day) ?? "",
                        item.podcast.podcast.title, EpisodeTable.stateCell(entry.download),
                    ]
                    if showsHeard { row.append(EpisodeTable.heardCell(entry.playback, duration: entry.episode.duration)) }
                    row.append(entry.episode.title)
                    table.rows.append(row)
                }
                print(table.render(width: TTY.outputWidth))
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
                return NewEpisodeJSON(number: number, listed[number - 1])
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

/// The `--json` shape of a new episode.
struct NewEpisodeJSON: Encodable {
    var number: Int
    var podcast: String
    var title: String
    var published: Date?
    var url: String?
    var state: String
    /// Why its download failed, in words, and as a value (`error.kind` and its details), as
    /// `downloads --json` has them.
    var message: String?
    var error: DownloadError?
    var playback: PlaybackJSON

    init(number: Int, _ item: NewEpisode) {
        self.number = number
        podcast = item.podcast.podcast.title
        title = item.entry.episode.title
        published = item.entry.episode.published
        url = item.entry.episode.enclosure?.url.redactingURLPasswords
        state = (item.entry.download?.state ?? .notStarted).rawValue
        message = item.entry.download?.failure.map(Words.failure)
        error = item.entry.download?.failure
        playback = PlaybackJSON(item.entry.playback)
    }

    func encode(to encoder: any Encoder) throws {
        // Absent values as before; the listening keys always, null included.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(podcast, forKey: .podcast)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(published, forKey: .published)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(error, forKey: .error)
        try playback.encode(to: encoder)
    }

    private enum CodingKeys: String, CodingKey {
        case number, podcast, title, published, url, state, message, error
    }
}
