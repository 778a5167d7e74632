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
        if notes.utf8.contains(UInt8(ascii: "<")) {
            let reducer = HTMLReducer()
            reducer.read(notes)
            paragraphs = reducer.paragraphs
            links = reducer.links
        } else {
            paragraphs = Self.plainParagraphs(notes)
            links = []
        }
    }

    /// The paragraphs of plain text: the runs between blank lines, white space collapsed.
    static func plainParagraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map(collapsingWhitespace).filter { !$0.isEmpty }
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                if let last = bytes.last, last != 0x20 { bytes.append(0x20) }
            } else {
                bytes.append(byte)
            }
        }
        if bytes.last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Walks libxml2's HTML SAX events into paragraphs and links. Text is gathered as UTF-8 bytes
/// and made a `String` once a line ends: a listing reduces thousands of notes.
private final class HTMLReducer {
    private(set) var paragraphs: [String] = []
    private(set) var links: [String] = []
    private var lines: [String] = []
    private var line: [UInt8] = []
    /// The link being read: its URL and where its text starts in `line`.
    private var openLink: (url: String, start: Int)?
    private var skippedDepth = 0

    private static let blocks: Set<String> = [
        "p", "div", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "tr",
        "section", "article", "header", "footer", "dl", "dt", "dd", "figure", "hr",
    ]
    private static let skipped: Set<String> = ["script", "style", "head", "title"]
    private static let bullet = Array("• ".utf8)

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
            if name == "li" { line = Self.bullet }
        } else if name == "a", let href = Self.webLink(in: attributes) {
            openLink = (href, line.count)
        }
    }

    private func end(_ name: String) {
        if Self.skipped.contains(name) {
            skippedDepth = max(0, skippedDepth - 1)
        } else if Self.blocks.contains(name) {
            endParagraph()
        } else if name == "a", let link = openLink {
            openLink = nil
            guard Self.trimmed(line[link.start...]).elementsEqual(link.url.utf8) == false else { return }
            let number = (links.firstIndex(of: link.url) ?? { links.append(link.url); return links.count - 1 }()) + 1
            line += Array(" [\(number)]".utf8)
        }
    }

    /// Appends text, every run of white space (a no-break space too) as one space.
    private func characters(_ bytes: UnsafePointer<xmlChar>?, _ count: Int) {
        guard skippedDepth == 0, let bytes else { return }
        // Built in a local buffer: appending to the property byte by byte checks exclusive
        // access every time.
        var text = line
        line = []
        var index = 0
        while index < count {
            let byte = bytes[index]
            let isNoBreakSpace = byte == 0xC2 && index + 1 < count && bytes[index + 1] == 0xA0
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || isNoBreakSpace {
                if let last = text.last, last != 0x20 { text.append(0x20) }
                index += isNoBreakSpace ? 2 : 1
            } else {
                text.append(byte)
                index += 1
            }
        }
        line = text
    }

    private func endLine() {
        let finished = Self.trimmed(line[...])
        if !finished.isEmpty && !finished.elementsEqual(Self.bullet.dropLast()) {
            lines.append(String(decoding: finished, as: UTF8.self))
        }
        line.removeAll(keepingCapacity: true)
        openLink = nil
    }

    private func endParagraph() {
        endLine()
        if !lines.isEmpty { paragraphs.append(lines.joined(separator: "\n")) }
        lines = []
    }

    /// `bytes` without the spaces, tabs and line breaks at either end.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { slice = slice.dropLast() }
        return slice
    }

    /// The `href` of a link's attributes when it is an http(s) URL, trimmed. (libxml2's HTML
    /// parser gives element and attribute names in lower case.)
    private static func webLink(in attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> String? {
        guard var pointer = attributes else { return nil }
        while let name = pointer.pointee {
            if xmlStrEqual(name, href) != 0, let value = pointer.advanced(by: 1).pointee {
                let link = trimmed(ArraySlice(UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value)))))
                let scheme = link.prefix(8).map { $0 | 0x20 }  // lower case, for the letters compared
                guard scheme.starts(with: http) || scheme.starts(with: https) else { return nil }
                return String(decoding: link, as: UTF8.self)
            }
            pointer = pointer.advanced(by: 2)
        }
        return nil
    }

    private static let href = Array("href\0".utf8)
    private static let http = Array("http://".utf8)
    private static let https = Array("https://".utf8)
}
