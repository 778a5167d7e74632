import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Played: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "played",
            abstract: "Mark episodes played: their saved positions are cleared and they leave `new`.",
            discussion: "Episodes are numbered as `singlecast episodes` lists them; with --new, as `singlecast new` does.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var marked: MarkedEpisodes

        func run() async throws {
            let library = try await global.openLibrary()
            let chosen = try await marked.chosen(library: library)
            let playbacks = try await library.recordPlayback(
                chosen.map { ($0.entry.id, .played(total: $0.entry.episode.duration.map(Double.init))) })
            try PlaybackMarks.report(chosen, playbacks, marked: "played", json: marked.json)
        }
    }

    struct Unplayed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unplayed",
            abstract: "Mark episodes unplayed, without a saved position.",
            discussion: "Episodes are numbered as `singlecast episodes` lists them; with --new, as `singlecast new` does.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var marked: MarkedEpisodes

        func run() async throws {
            let library = try await global.openLibrary()
            let chosen = try await marked.chosen(library: library)
            let playbacks = try await library.recordPlayback(chosen.map { ($0.entry.id, .unplayed) })
            try PlaybackMarks.report(chosen, playbacks, marked: "unplayed", json: marked.json)
        }
    }
}

/// The episodes `played` and `unplayed` mark: numbers and ranges, or all of them.
struct MarkedEpisodes: ParsableArguments {
    @OptionGroup var selection: EpisodeSelection

    @Argument(help: "Episode numbers or ranges, such as 3 5 7 or 1-10.")
    var episodes: [String] = []

    @Flag(help: "Every episode of the podcast (with --new, every new episode).")
    var all = false

    @Flag(help: "Print the episodes marked as JSON.")
    var json = false

    func validate() throws {
        _ = try EpisodeNumbers.parse(episodes)
        guard all != !episodes.isEmpty else { throw ValidationError("Give episode numbers, or --all.") }
    }

    func chosen(library: Library) async throws -> [ChosenEpisode] {
        try await selection.episodes(all ? nil : try EpisodeNumbers.parse(episodes), library: library)
    }
}

/// What `played` and `unplayed` print.
enum PlaybackMarks {
    static func report(_ chosen: [ChosenEpisode], _ playbacks: [Playback], marked: String, json: Bool) throws {
        if json {
            try printJSON(zip(chosen, playbacks).map { PlaybackMarkJSON($0, playback: $1) })
        } else {
            print("\(chosen.count) episode\(chosen.count == 1 ? "" : "s") marked \(marked)")
        }
    }
}

/// The `--json` shape of an episode marked by hand.
struct PlaybackMarkJSON: Encodable {
    var number: Int
    var podcast: String
    var title: String
    var playback: PlaybackJSON

    init(_ chosen: ChosenEpisode, playback: Playback) {
        number = chosen.entry.number
        podcast = chosen.podcast.podcast.title
        title = chosen.entry.episode.title
        self.playback = PlaybackJSON(playback)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(podcast, forKey: .podcast)
        try container.encode(title, forKey: .title)
        try playback.encode(to: encoder)
    }

    private enum CodingKeys: String, CodingKey {
        case number, podcast, title
    }
}
