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
    public var paragraphs: [String] {
        guard !body.isEmpty else { return [] }
        // Split in UTF-8 bytes: Foundation's `components(separatedBy:)` compares characters, and
        // search splits the notes of every episode it indexes.
        var paragraphs: [String] = []
        var body = body
        body.withUTF8 { bytes in
            var start = 0
            var index = 0
            while index + 1 < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") && bytes[index + 1] == UInt8(ascii: "\n") {
                    paragraphs.append(String(decoding: bytes[start..<index], as: UTF8.self))
                    index += 2
                    start = index
                } else {
                    index += 1
                }
            }
            paragraphs.append(String(decoding: bytes[start...], as: UTF8.self))
        }
        return paragraphs
    }
    /// The http(s) links, each once, in the order of their numbers.
    public private(set) var links: [String]
    /// The paragraphs between blank lines, as the reduction writes them: no paragraph holds a
    /// blank line, so the text needs no second pass.
    private var body: String

    /// Reads show notes written in HTML, or in plain text (paragraphs between blank lines).
    public init(_ notes: String) {
        var entities = EntityNumbers()
        self.init(notes, entities: &entities)
    }

    /// Reads show notes, with the entity names met in notes read before.
    init(_ notes: String, entities: inout EntityNumbers) {
        if notes.utf8.contains(UInt8(ascii: "<")) {
            let reducer = HTMLReducer()
            reducer.read(notes, entities: &entities)
            body = String(decoding: reducer.body, as: UTF8.self)
            links = reducer.links
        } else {
            body = Self.plainParagraphs(notes).joined(separator: "\n\n")
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
        guard !links.isEmpty else { return body }
        let list = links.enumerated().map { "[\($0.offset + 1)] \($0.element)" }.joined(separator: "\n")
        return body.isEmpty ? list : body + "\n\n" + list
    }

    /// The show notes of each of `notes` (nil for nil) put through `transform`, in order, reduced
    /// on every core: a listing or an index reduces thousands.
    static func reduce<T: Sendable>(_ notes: [String?], _ transform: @escaping @Sendable (ShowNotes) -> T) async -> [T?] {
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, notes.count / 64))
        let size = (notes.count + parts - 1) / parts
        return await withTaskGroup(of: (Int, [T?]).self) { group in
            for part in 0..<parts {
                let slice = notes[min(notes.count, part * size)..<min(notes.count, (part + 1) * size)]
                group.addTask {
                    var entities = EntityNumbers()
                    return (part, slice.map { $0.map { transform(ShowNotes($0, entities: &entities)) } })
                }
            }
            var done: [[T?]] = Array(repeating: [], count: parts)
            for await (part, reduced) in group { done[part] = reduced }
            return done.flatMap { $0 }
        }
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

/// A name of at most 8 bytes as one number: element and entity names are looked up without
/// making a `String` of each.
private func packed(_ name: some Collection<UInt8>) -> UInt64 {
    var key: UInt64 = 0
    for (index, byte) in name.enumerated() { key |= UInt64(byte) << (8 * index) }
    return key
}

/// Walks libxml2's HTML SAX events into paragraphs and links. Text is gathered as UTF-8 bytes
/// in one buffer, and element names are told apart by their bytes: a listing reduces
/// thousands of notes, and a `String` per line or per element name was most of the work.
private final class HTMLReducer {
    /// The paragraphs so far, between blank lines, the lines of one between line breaks.
    private(set) var body: [UInt8] = []
    private(set) var links: [String] = []
    /// The line being read, and whether the paragraph being read has a line in `body` already.
    private var line: [UInt8] = []
    private var paragraphHasLine = false
    /// The link being read: its URL and where its text starts in `line`.
    private var openLink: (url: String, start: Int)?
    private var skippedDepth = 0

    /// What an element does to the text.
    private enum Role {
        case block, listItem, lineBreak, link, skipped, inline
    }

    private static let roles: [UInt64: Role] = {
        let blocks = [
            "p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "tr",
            "section", "article", "header", "footer", "dl", "dt", "dd", "figure", "hr",
        ]
        var roles = Dictionary(uniqueKeysWithValues: blocks.map { (packed($0.utf8), Role.block) })
        for name in ["script", "style", "head", "title"] { roles[packed(name.utf8)] = .skipped }
        roles[packed("li".utf8)] = .listItem
        roles[packed("br".utf8)] = .lineBreak
        roles[packed("a".utf8)] = .link
        return roles
    }()
    /// The one name in the lists longer than a key holds.
    private static let blockquote = Array("blockquote\0".utf8)
    private static let bullet = Array("• ".utf8)

    /// The role of the element called `name` (libxml2's HTML parser gives names in lower case).
    private static func role(_ name: UnsafePointer<xmlChar>?) -> Role {
        guard let name else { return .inline }
        var length = 0
        while name[length] != 0 {
            length += 1
            guard length <= 8 else { return xmlStrEqual(name, blockquote) != 0 ? .block : .inline }
        }
        return roles[packed(UnsafeBufferPointer(start: name, count: length))] ?? .inline
    }

    func read(_ html: String, entities: inout EntityNumbers) {
        var handler = Self.makeHandler()
        let unmanaged = Unmanaged.passRetained(self)
        defer { unmanaged.release() }
        guard let context = htmlCreatePushParserCtxt(&handler, unmanaged.toOpaque(), nil, 0, nil, XML_CHAR_ENCODING_UTF8)
        else {
            // Out of memory: the notes as they are, tags and all, rather than nothing.
            body = Array(ShowNotes.collapsingWhitespace(html).utf8)
            return
        }
        defer {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            htmlFreeParserCtxt(context)
        }
        let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue
        htmlCtxtUseOptions(context, Int32(options))
        func parse(_ bytes: UnsafeBufferPointer<UInt8>) {
            bytes.withMemoryRebound(to: CChar.self) { chars in
                _ = htmlParseChunk(context, chars.baseAddress, Int32(chars.count), 1)
            }
        }
        var text = html
        // A few of libxml2's errors bypass the context and go to its generic handler (stderr).
        singlecast_silenceGenericErrors(1)
        defer { singlecast_silenceGenericErrors(0) }
        text.withUTF8 { bytes in
            if let numbered = entities.numbered(bytes) {
                numbered.withUnsafeBufferPointer(parse)
            } else {
                parse(bytes)
            }
        }
        endParagraph()
    }

    private static func makeHandler() -> htmlSAXHandler {
        var handler = htmlSAXHandler()
        handler.startElement = { context, name, attributes in
            HTMLReducer.from(context).start(HTMLReducer.role(name), attributes)
        }
        handler.endElement = { context, name in
            HTMLReducer.from(context).end(HTMLReducer.role(name))
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

    private func start(_ role: Role, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        switch role {
        case .skipped: skippedDepth += 1
        case .lineBreak: endLine()
        case .block: endParagraph()
        case .listItem:
            endParagraph()
            line = Self.bullet
        case .link:
            if let href = Self.webLink(in: attributes) { openLink = (href, line.count) }
        case .inline: break
        }
    }

    private func end(_ role: Role) {
        switch role {
        case .skipped: skippedDepth = max(0, skippedDepth - 1)
        case .block, .listItem: endParagraph()
        case .link:
            guard let link = openLink else { return }
            openLink = nil
            guard Self.trimmed(line[link.start...]).elementsEqual(link.url.utf8) == false else { return }
            let number = (links.firstIndex(of: link.url) ?? { links.append(link.url); return links.count - 1 }()) + 1
            line += Array(" [\(number)]".utf8)
        case .lineBreak, .inline: break
        }
    }

    /// Appends text, every run of white space (a no-break space too) as one space.
    private func characters(_ bytes: UnsafePointer<xmlChar>?, _ count: Int) {
        guard skippedDepth == 0, let bytes else { return }
        // Built in a local buffer: appending to the property checks exclusive access every time.
        var text = line
        line = []
        // The bytes between two runs of white space go in one copy.
        var run = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            let width: Int
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                width = 1
            } else if byte == 0xC2 && index + 1 < count && bytes[index + 1] == 0xA0 {
                width = 2
            } else {
                index += 1
                continue
            }
            text.append(contentsOf: UnsafeBufferPointer(start: bytes + run, count: index - run))
            if let last = text.last, last != 0x20 { text.append(0x20) }
            index += width
            run = index
        }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes + run, count: count - run))
        line = text
    }

    private func endLine() {
        let finished = Self.trimmed(line[...])
        if !finished.isEmpty && !finished.elementsEqual(Self.bullet.dropLast()) {
            if paragraphHasLine {
                body.append(0x0A)
            } else if !body.isEmpty {
                body += [0x0A, 0x0A]
            }
            body += finished
            paragraphHasLine = true
        }
        line.removeAll(keepingCapacity: true)
        openLink = nil
    }

    private func endParagraph() {
        endLine()
        paragraphHasLine = false
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

/// The named entities of libxml2's HTML parser written as character references (`&eacute;` as
/// `&#233;`), which it reads as the same character: libxml2 2.9 finds a name by comparing it
/// with each of its 253 in turn, which took a third of its time on notes full of entities.
struct EntityNumbers {
    /// The character of each name met so far (0 when libxml2 knows no such entity), by the name's
    /// bytes: no name it knows is longer than 8.
    private var characters: [UInt64: UInt32] = [:]

    /// `html` with every named entity libxml2 knows written as a character reference, or nil
    /// when it has none. Only a name of letters and digits ended by `;` is rewritten: libxml2
    /// reads just that name there too, and its other names are not entities.
    mutating func numbered(_ html: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = html.baseAddress else { return nil }
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        while index < html.count, let found = memchr(base + index, Int32(UInt8(ascii: "&")), html.count - index) {
            let ampersand = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            index = ampersand + 1
            var end = index
            while end < html.count, end - index <= 8, Self.isLetterOrDigit(html[end]) { end += 1 }
            guard end < html.count, html[end] == UInt8(ascii: ";"), end - index <= 8, end > index,
                Self.isLetter(html[index])
            else { continue }
            let name = UnsafeBufferPointer(rebasing: html[index..<end])
            let character = character(named: name)
            guard character != 0 else { continue }
            if output.isEmpty { output.reserveCapacity(html.count) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: html[copied..<ampersand]))
            output.append(contentsOf: "&#\(character);".utf8)
            index = end + 1
            copied = index
        }
        guard copied > 0 else { return nil }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: html[copied...]))
        return output
    }

    /// The character libxml2's entity `name` stands for, or 0.
    private mutating func character(named name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let key = packed(name)
        if let known = characters[key] { return known }
        let found = (Array(name) + [0]).withUnsafeBufferPointer { htmlEntityLookup($0.baseAddress)?.pointee.value } ?? 0
        characters[key] = found
        return found
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
