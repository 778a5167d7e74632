import Foundation
import SinglecastKit

/// Show notes (HTML or plain text) as paragraphs of plain text and the links they hold.
enum ShowNotes {
    static func details(episodeID: Int64, description: String?, chapters: [PlaybackChapter] = []) -> EpisodeDetails {
        let (notes, links) = plainText(description ?? "")
        return EpisodeDetails(episodeID: episodeID, notes: notes, links: links, chapters: chapters)
    }

    /// Tags that end a paragraph or a line.
    private static let breaks: Set<String> = ["p", "br", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "blockquote"]

    static func plainText(_ html: String) -> (paragraphs: [String], links: [String]) {
        var paragraphs: [String] = []
        var links: [String] = []
        var current = ""
        func endParagraph() {
            let text = TerminalText.sanitized(decodeEntities(current))
                .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            if !text.isEmpty { paragraphs.append(text) }
            current = ""
        }
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            current += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else {
                rest = rest[open...]
                break
            }
            let tag = rest[rest.index(after: open)..<close]
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            if breaks.contains(name) { endParagraph() }
            if name == "a", !tag.hasPrefix("/"), let href = attribute("href", of: tag) {
                let link = TerminalText.sanitized(decodeEntities(href))
                if !link.isEmpty && !links.contains(link) { links.append(link) }
            }
            rest = rest[rest.index(after: close)...]
        }
        current += rest
        endParagraph()
        return (paragraphs, links)
    }

    private static func attribute(_ name: String, of tag: Substring) -> String? {
        guard let range = tag.range(of: name + "=", options: .caseInsensitive) else { return nil }
        var value = tag[range.upperBound...]
        if let quote = value.first, quote == "\"" || quote == "'" {
            value = value.dropFirst()
            return String(value.prefix { $0 != quote })
        }
        return String(value.prefix { !$0.isWhitespace && $0 != ">" })
    }

    private static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "hellip": "…", "mdash": "—",
        "ndash": "–", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“",
    ]

    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            guard let semicolon = after.prefix(10).firstIndex(of: ";") else {
                result += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            if let known = entities[String(name)] {
                result += known
            } else if name.hasPrefix("#"), let scalar = numericEntity(name.dropFirst()) {
                result.unicodeScalars.append(scalar)
            } else {
                result += "&" + name + ";"
            }
            rest = after[after.index(after: semicolon)...]
        }
        return result + rest
    }

    private static func numericEntity(_ digits: Substring) -> Unicode.Scalar? {
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init)
    }
}
