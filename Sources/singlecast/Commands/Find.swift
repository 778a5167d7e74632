import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find",
            abstract: "Search the titles, show notes and saved transcripts of every episode in the library.",
            discussion: """
                Every word must match, in any order; case and accents are ignored. "a phrase" in \
                quotes matches those words in a row, word* is a prefix, and OR between two words (or \
                phrases) matches either. A match in a title counts more than in the notes, more than \
                in a transcript; ties go to the newest. `singlecast play --found N` plays result N from \
                the moment it was said. Transcripts are those saved with --with-extras. No network.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The words to find.")
        var words: [String]

        @Option(help: "Only this podcast (@N, feed URL or part of the title).")
        var feed: String?

        @Option(name: .customLong("in"), help: "Where to look: title, notes, transcript, or several with commas.")
        var places: FindPlaces?

        @Option(help: "Show at most N results.")
        var limit = 20

        @Flag(help: "Print the results as JSON.")
        var json = false

        func validate() throws {
            if limit < 1 { throw ValidationError("--limit must be at least 1.") }
            do {
                _ = try FindQuery(words)
            } catch {
                printError("Error: \(Words.findQuery(error))")
                throw ExitCode(64)
            }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let query = try FindQuery(words)
            let podcastID = if let feed { try await library.podcast(matching: FeedReference(feed)).id } else { nil as Int64? }
            let line = TTY.isTerminal(stdout: false) ? IndexingLine() : nil
            let unreadable = try await library.updateFindIndex { line?.show($0) }
            line?.clear()
            for transcript in unreadable { printError(Words.unreadable(transcript)) }
            let found = try await library.find(query, podcastID: podcastID, in: places?.set ?? Set(FindPlace.allCases), limit: limit)
            if json {
                try printJSON(found.results.enumerated().map { FoundEpisodeJSON(number: $0.offset + 1, $0.element) })
            } else {
                // Written as it is: its bold is the only control sequence, the text is sanitized cell by cell.
                let table = FindTable.render(found, width: TTY.outputWidth, bold: TTY.isTerminal(stdout: true))
                StandardStreams.write(table + "\n", to: STDOUT_FILENO)
            }
        }
    }
}

/// `--in title,notes`: the places a search looks in.
struct FindPlaces: ExpressibleByArgument {
    var set: Set<FindPlace>

    init?(argument: String) {
        let places = argument.split(separator: ",").map { FindPlace(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        guard !places.isEmpty, places.allSatisfy({ $0 != nil }) else { return nil }
        set = Set(places.compactMap { $0 })
    }

    static var allValueStrings: [String] { FindPlace.allCases.map(\.rawValue) }
}

/// The progress line of a first indexing on a terminal (standard error), drawn over itself.
private final class IndexingLine: Sendable {
    /// Below this many episodes and transcripts, indexing is too quick to need a line.
    private static let shownFrom = 2000

    func show(_ progress: FindIndexProgress) {
        guard progress.total >= Self.shownFrom else { return }
        StandardStreams.write("\r\u{1B}[K" + Words.indexing(progress), to: STDERR_FILENO)
    }

    func clear() {
        StandardStreams.write("\r\u{1B}[K", to: STDERR_FILENO)
    }
}

/// The results of `find` on a terminal or in a pipe: a numbered row per episode (podcast, date,
/// title, where it matched) with its snippet on the line below, then a total line.
enum FindTable {
    static func render(_ found: FindResults, width: Int?, bold: Bool) -> String {
        guard !found.results.isEmpty else { return Words.foundTotal(shown: 0, of: 0) }
        let headers = ["#", "Podcast", "Date", "Title", "Where"]
        // On a terminal the titles are cut first, then the podcasts' names.
        var table = TextTable(headers: headers, rightAligned: [0], shrinking: [3, 1])
        for (index, result) in found.results.enumerated() {
            table.rows.append([
                String(index + 1), result.podcast.podcast.title, result.entry.episode.published.map(Format.day) ?? "",
                result.entry.episode.title, Words.place(result),
            ])
        }
        let lines = table.render(width: width).split(separator: "\n", omittingEmptySubsequences: false)
        let indent = String(repeating: " ", count: String(found.results.count).count + 2)
        var text = String(lines[0])
        for (index, result) in found.results.enumerated() {
            text += "\n" + lines[index + 1]
            text += "\n" + indent + snippetLine(result.snippet, width: width.map { $0 - indent.count }, bold: bold)
        }
        return text + "\n" + Words.foundTotal(shown: found.results.count, of: found.total)
    }

    /// A snippet on one line, cut to `width` cells, the matched words in bold when `bold`.
    static func snippetLine(_ snippet: FindSnippet, width: Int?, bold: Bool) -> String {
        let runs = snippet.runs.map { (text: TerminalText.sanitized($0.text), isMatch: $0.isMatch) }
        let whole = runs.map(\.text).joined()
        let cut = width.map { TerminalText.truncated(whole, toWidth: max(1, $0)) } ?? whole
        let isCut = cut != whole
        guard bold else { return cut }
        var left = cut.unicodeScalars.count - (isCut ? 1 : 0)
        var line = ""
        for run in runs where left > 0 {
            let kept = String(String.UnicodeScalarView(run.text.unicodeScalars.prefix(left)))
            left -= kept.unicodeScalars.count
            line += run.isMatch ? "\u{1B}[1m" + kept + "\u{1B}[22m" : kept
        }
        return line + (isCut ? "…" : "")
    }
}

/// The `--json` shape of a result: the episode's identity as `episodes --json` gives it, where
/// it matched, the snippet's text, the moment (`at`, seconds or null) and the score.
struct FoundEpisodeJSON: Encodable {
    var number: Int
    var result: FoundEpisode

    init(number: Int, _ result: FoundEpisode) {
        self.number = number
        self.result = result
    }

    private struct EnclosureJSON: Encodable {
        var url: String
        var length: Int64?
        var type: String?
    }

    private enum CodingKeys: String, CodingKey {
        case number, podcast, feedURL, title, guid, published, enclosure, matchedIn, snippet, at, score
    }

    func encode(to encoder: any Encoder) throws {
        let episode = result.entry.episode
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(result.podcast.podcast.title, forKey: .podcast)
        try container.encode(result.podcast.podcast.feedURL?.redacted, forKey: .feedURL)
        try container.encode(episode.title, forKey: .title)
        try container.encode(episode.guid, forKey: .guid)
        try container.encode(episode.published, forKey: .published)
        try container.encode(
            episode.enclosure.map { EnclosureJSON(url: $0.url.redactingURLPasswords, length: $0.length, type: $0.type) },
            forKey: .enclosure)
        try container.encode(result.matchedIn.rawValue, forKey: .matchedIn)
        try container.encode(result.snippet.text, forKey: .snippet)
        try container.encode(result.at, forKey: .at)
        try container.encode(result.score, forKey: .score)
    }
}
