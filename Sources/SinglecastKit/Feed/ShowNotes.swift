import CLibXML2
import Foundation

/// An episode's show notes as plain text: the feed's HTML (`description`, `content:encoded`,
/// `itunes:summary`) read with libxml2's HTML parser, reduced to paragraphs with its entities
/// decoded, and its links numbered and listed at the end.
///
/// What `show`, `episodes --json` and the terminal UI's details pane show, and what search
/// indexes. Scripts and styles are dropped; nothing is fetched; libxml2 never prints.
public struct ShowNotes: Equatable, Sendable {
    /// The paragraphs, each on one line (a `<br>` inside one is a line break); list items
    /// start with `• `; a link whose text is not its URL is followed by its number, `[1]`.
    public var paragraphs: [String]
    /// The http(s) links, each once, in the order of their numbers.
    public var links: [String]

    /// Reads show notes written in HTML, or in plain text (paragraphs between blank lines).
    public init(_ notes: String) {
        if notes.contains("<") {
            let reducer = HTMLReducer()
            reducer.read(notes)
            paragraphs = reducer.paragraphs
            links = reducer.links
        } else {
            paragraphs = notes.components(separatedBy: "\n\n").map(Self.collapsingWhitespace).filter { !$0.isEmpty }
            links = []
        }
    }

    /// The notes as one text: the paragraphs between blank lines, then the links, one a line
    /// (`[1] https://…`).
    public var text: String {
        var blocks = paragraphs
        if !links.isEmpty {
            blocks.append(links.enumerated().map { "[\($0.offset + 1)] \($0.element)" }.joined(separator: "\n"))
        }
        return blocks.joined(separator: "\n\n")
    }

    static func collapsingWhitespace(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// Walks libxml2's HTML SAX events into paragraphs and links.
private final class HTMLReducer {
    private(set) var paragraphs: [String] = []
    private(set) var links: [String] = []
    private var lines: [String] = []
    private var line = ""
    /// The link being read: its URL and where its text starts in `line`, in characters.
    private var openLink: (url: String, start: Int)?
    private var skippedDepth = 0

    private static let blocks: Set<String> = [
        "p", "div", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "tr",
        "section", "article", "header", "footer", "dl", "dt", "dd", "figure", "hr",
    ]
    private static let skipped: Set<String> = ["script", "style", "head", "title"]

    func read(_ html: String) {
        var handler = Self.makeHandler()
        let unmanaged = Unmanaged.passRetained(self)
        defer { unmanaged.release() }
        guard let context = htmlCreatePushParserCtxt(&handler, unmanaged.toOpaque(), nil, 0, nil, XML_CHAR_ENCODING_UTF8)
        else {
            // Out of memory: the notes as they are, tags and all, rather than nothing.
            paragraphs = [ShowNotes.collapsingWhitespace(html)]
            return
        }
        defer {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            htmlFreeParserCtxt(context)
        }
        let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue
        htmlCtxtUseOptions(context, Int32(options))
        var bytes = Array(html.utf8)
        // A few of libxml2's errors bypass the context and go to its generic handler (stderr).
        singlecast_silenceGenericErrors(1)
        defer { singlecast_silenceGenericErrors(0) }
        bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                _ = htmlParseChunk(context, chars.baseAddress, Int32(chars.count), 1)
            }
        }
        endParagraph()
    }

    private static func makeHandler() -> htmlSAXHandler {
        var handler = htmlSAXHandler()
        handler.startElement = { context, name, attributes in
            HTMLReducer.from(context).start(name.map { String(cString: $0) } ?? "", attributes)
        }
        handler.endElement = { context, name in
            HTMLReducer.from(context).end(name.map { String(cString: $0) } ?? "")
        }
        handler.characters = { context, bytes, count in
            HTMLReducer.from(context).characters(bytes, Int(count))
        }
        handler.cdataBlock = handler.characters
        handler.serror = { _, _ in }
        return handler
    }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> HTMLReducer {
        Unmanaged<HTMLReducer>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private func start(_ name: String, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        if Self.skipped.contains(name) {
            skippedDepth += 1
            return
        }
        if name == "br" {
            endLine()
        } else if Self.blocks.contains(name) {
            endParagraph()
            if name == "li" { line = "• " }
        } else if name == "a", let href = Self.attribute("href", in: attributes), Self.isWebLink(href) {
            openLink = (href.trimmingCharacters(in: .whitespaces), line.count)
        }
    }

    private func end(_ name: String) {
        if Self.skipped.contains(name) {
            skippedDepth = max(0, skippedDepth - 1)
        } else if Self.blocks.contains(name) {
            endParagraph()
        } else if name == "a", let link = openLink {
            openLink = nil
            let text = line.dropFirst(link.start).trimmingCharacters(in: .whitespaces)
            guard text != link.url else { return }
            let number = (links.firstIndex(of: link.url) ?? { links.append(link.url); return links.count - 1 }()) + 1
            line += " [\(number)]"
        }
    }

    private func characters(_ bytes: UnsafePointer<xmlChar>?, _ count: Int) {
        guard skippedDepth == 0, let bytes else { return }
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        for character in text {
            if character.isWhitespace {
                if !line.isEmpty && line.last != " " { line.append(" ") }
            } else {
                line.append(character)
            }
        }
    }

    private func endLine() {
        let finished = line.trimmingCharacters(in: .whitespaces)
        if !finished.isEmpty && finished != "•" { lines.append(finished) }
        line = ""
        openLink = nil
    }

    private func endParagraph() {
        endLine()
        if !lines.isEmpty { paragraphs.append(lines.joined(separator: "\n")) }
        lines = []
    }

    private static func attribute(_ wanted: String, in attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> String? {
        guard var pointer = attributes else { return nil }
        while let name = pointer.pointee {
            let value = pointer.advanced(by: 1).pointee
            if String(cString: name).lowercased() == wanted { return value.map { String(cString: $0) } }
            pointer = pointer.advanced(by: 2)
        }
        return nil
    }

    private static func isWebLink(_ href: String) -> Bool {
        let lowered = href.trimmingCharacters(in: .whitespaces).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }
}
