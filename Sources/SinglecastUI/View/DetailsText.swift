import Foundation
import SinglecastKit

/// The details pane's lines for an episode: its podcast, title, date, length, file or URL,
/// then the show notes and their links.
enum DetailsText {
    struct Line: Equatable {
        var text: String
        var style: CellStyle = []
    }

    static func lines(_ entry: EpisodeEntry, podcast: StoredPodcast?, details: EpisodeDetails?, width: Int) -> [Line] {
        var lines: [Line] = []
        func add(_ text: String, style: CellStyle = []) {
            lines += wrapped(text, width: width).map { Line(text: $0, style: style) }
        }
        if let podcast { add(TerminalText.sanitized(podcast.podcast.title), style: .dim) }
        add(TerminalText.sanitized(entry.episode.title), style: .bold)
        let facts = [
            entry.episode.published.map(UIFormat.date),
            entry.episode.duration.map { UIFormat.duration(Double($0)) },
            entry.episode.enclosure?.length.flatMap { $0 > 0 ? UIFormat.bytes($0) : nil },
        ].compactMap { $0 }
        if !facts.isEmpty { add(facts.joined(separator: " · ")) }
        if let download = entry.download, download.state == .completed {
            add("File: " + TerminalText.sanitized(download.file))
        } else if let url = entry.episode.enclosure?.url {
            add("URL: " + TerminalText.sanitized(url.redactingURLPasswords))
        }
        guard let details else { return lines }
        for paragraph in details.notes {
            lines.append(Line(text: ""))
            add(paragraph)
        }
        if !details.chapters.isEmpty {
            lines.append(Line(text: ""))
            add("Chapters:", style: .bold)
            for chapter in details.chapters { add(UIFormat.duration(chapter.start) + " " + TerminalText.sanitized(chapter.title)) }
        }
        if !details.links.isEmpty {
            lines.append(Line(text: ""))
            add("Links:", style: .bold)
            for (index, link) in details.links.enumerated() { add("[\(index + 1)] \(link)") }
        }
        return lines
    }
}
