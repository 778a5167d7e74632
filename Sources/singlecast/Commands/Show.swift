import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one episode's details and show notes.",
            discussion: """
                N numbers episodes as `singlecast episodes` lists them (with --new, as `singlecast new` does). \
                The show notes are printed as text, their links listed at the end; chapters and transcripts \
                are listed when they were saved (download --with-extras).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: EpisodeSelection

        @Argument(help: "The episode's number.")
        var episode: Int

        @Flag(help: "Print the details as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let chosen = try await selection.episodes([episode], library: library)[0]
            let details = try await EpisodeDetails.load(chosen.entry, library: library)
            if json {
                try printJSON(EpisodeDetailsJSON(chosen, details))
            } else {
                print(EpisodeDetailsText.render(chosen, details))
            }
        }
    }
}

/// The text `singlecast show` prints: a field a line, then the notes, links, chapters and transcripts.
enum EpisodeDetailsText {
    static func render(_ chosen: ChosenEpisode, _ details: EpisodeDetails) -> String {
        let entry = chosen.entry
        let episode = entry.episode
        var fields: [(String, String)] = [("Podcast", chosen.podcast.podcast.title), ("Title", episode.title)]
        if let published = episode.published { fields.append(("Date", Format.day(published))) }
        if let duration = episode.duration { fields.append(("Length", Format.duration(seconds: duration))) }
        if let download = entry.download, download.state == .completed {
            fields.append(("File", download.file))
        } else if let enclosure = episode.enclosure {
            fields.append(("URL", enclosure.url.redactingURLPasswords))
        } else {
            fields.append(("Audio", "none"))
        }
        fields.append(("State", EpisodeTable.stateCell(entry.download)))
        let heard = EpisodeTable.heardCell(entry.playback, duration: episode.duration)
        if !heard.isEmpty { fields.append(("Heard", heard)) }
        let width = fields.map(\.0.count).max() ?? 0
        var blocks = [
            fields.map { name, value in
                name + ":" + String(repeating: " ", count: width - name.count + 1) + TerminalText.sanitized(value)
            }.joined(separator: "\n")
        ]
        let notes = details.notes.text
        if !notes.isEmpty { blocks.append(notes.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.sanitized(String($0)) }.joined(separator: "\n")) }
        if !details.chapters.isEmpty {
            blocks.append(
                "Chapters:\n"
                    + details.chapters.map { "  \(Format.duration(seconds: Int($0.start)))  \(TerminalText.sanitized($0.title))" }
                    .joined(separator: "\n"))
        }
        if !details.transcripts.isEmpty {
            blocks.append("Transcripts:\n" + details.transcripts.map { "  \($0.file)" }.joined(separator: "\n"))
        }
        return blocks.joined(separator: "\n\n")
    }
}

/// The `--json` shape of `singlecast show`.
struct EpisodeDetailsJSON: Encodable {
    struct Chapter: Encodable {
        var title: String
        var start: Double
    }

    var podcast: String
    var feedURL: String
    var number: Int
    var title: String
    var guid: String?
    var published: Date?
    var duration: Int?
    var enclosure: String?
    var state: String
    var file: String?
    var playback: PlaybackJSON
    /// The show notes as text (``ShowNotes/text``), as `episodes --json` gives them.
    var description: String
    var links: [String]
    var chapters: [Chapter]
    var transcripts: [String]

    init(_ chosen: ChosenEpisode, _ details: EpisodeDetails) {
        let entry = chosen.entry
        podcast = chosen.podcast.podcast.title
        feedURL = chosen.podcast.feedKey.redactingURLPasswords
        number = entry.number
        title = entry.episode.title
        guid = entry.episode.guid
        published = entry.episode.published
        duration = entry.episode.duration
        enclosure = entry.episode.enclosure?.url.redactingURLPasswords
        state = (entry.download?.state ?? .notStarted).rawValue
        file = entry.download?.state == .completed ? entry.download?.file : nil
        playback = PlaybackJSON(entry.playback)
        description = details.notes.text
        links = details.notes.links
        chapters = details.chapters.map { Chapter(title: $0.title, start: $0.start) }
        transcripts = details.transcripts.map(\.file)
    }

    private enum CodingKeys: String, CodingKey {
        case podcast, feedURL, number, title, guid, published, duration, enclosure, state, file, description, links, chapters,
            transcripts
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(podcast, forKey: .podcast)
        try container.encode(feedURL, forKey: .feedURL)
        try container.encode(number, forKey: .number)
        try container.encode(title, forKey: .title)
        try container.encode(guid, forKey: .guid)
        try container.encode(published, forKey: .published)
        try container.encode(duration, forKey: .duration)
        try container.encode(enclosure, forKey: .enclosure)
        try container.encode(state, forKey: .state)
        try container.encode(file, forKey: .file)
        try playback.encode(to: encoder)
        try container.encode(description, forKey: .description)
        try container.encode(links, forKey: .links)
        try container.encode(chapters, forKey: .chapters)
        try container.encode(transcripts, forKey: .transcripts)
    }
}
