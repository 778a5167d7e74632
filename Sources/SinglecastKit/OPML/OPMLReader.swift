import CLibXML2
import Foundation

/// Reads OPML subscription lists (gPodder's, newsboat's, most podcast apps') with libxml2's
/// SAX2 parser and the feed parser's protections: no entity is ever declared or expanded, no
/// DTD or external entity is loaded, the network is never touched, and libxml2 never prints.
///
/// A file with an internal DTD is read all the same, in time and memory linear in its size
/// ("billion laughs" included): the entities it defines are never expanded, so an outline
/// that uses one (in its title or its URL, which would then be read wrong) is reported by line
/// as unusable, and the others are imported.
public enum OPMLReader {
    /// The largest file accepted.
    public static let maximumSize = 64 * 1_048_576

    /// Parses an OPML document; `source` names it in errors.
    public static func parse(_ data: Data, source: String) throws -> OPMLDocument {
        guard data.count <= maximumSize else {
            throw OPMLError(reason: .tooLarge(limit: maximumSize), source: source)
        }
        guard data.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw OPMLError.empty(source: source)
        }
        let collector = OPMLCollector()
        var handler = makeHandler()
        let unmanaged = Unmanaged.passRetained(collector)
        defer { unmanaged.release() }
        guard let context = xmlCreatePushParserCtxt(&handler, unmanaged.toOpaque(), nil, 0, source) else {
            throw OPMLError(reason: .outOfMemory, source: source)
        }
        defer {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            xmlFreeParserCtxt(context)
        }
        collector.context = context
        // Recovering from the references to entities that are never declared; any other
        // fatal error still stops the parse (see OPMLCollector.error).
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue))
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count, collector.firstError == nil, !collector.isOtherRoot {
                let count = min(65_536, bytes.count - offset)
                xmlParseChunk(context, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(count), 0)
                offset += count
            }
            if collector.firstError == nil, !collector.isOtherRoot { xmlParseChunk(context, nil, 0, 1) }
        }
        if let root = collector.root, root != "opml" { throw OPMLError.notOPML(source: source, root: root) }
        if let error = collector.firstError {
            throw OPMLError.invalidXML(source: source, line: error.line, message: error.message)
        }
        guard collector.root != nil else { throw OPMLError.empty(source: source) }
        return OPMLDocument(title: collector.title, entries: collector.entries, problems: collector.problems)
    }

    /// The SAX2 callbacks. Those left nil matter as much as those set: without `entityDecl`,
    /// `getEntity`, `resolveEntity` and `externalSubset`, no entity is recorded or expanded and
    /// nothing outside the document is loaded.
    private static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { context, localname, _, _, _, _, attributeCount, _, attributes in
            OPMLCollector.from(context).start(localname, attributes, Int(attributeCount))
        }
        handler.endElementNs = { context, _, _, _ in
            OPMLCollector.from(context).end()
        }
        handler.characters = { context, bytes, count in
            OPMLCollector.from(context).characters(bytes, Int(count))
        }
        handler.serror = { context, error in
            guard let error else { return }
            OPMLCollector.from(context).error(error.pointee)
        }
        return handler
    }
}

/// Gathers an OPML document's feeds as libxml2 reports its elements.
private final class OPMLCollector {
    struct XMLError {
        var line: Int
        var message: String
    }

    private struct Outline {
        var isFeed: Bool
        var hasChildren = false
        var title: String?
        var line: Int
    }

    var context: xmlParserCtxtPtr?
    var root: String?
    var title: String?
    var entries: [OPMLEntry] = []
    var problems: [OPMLProblem] = []
    var firstError: XMLError?
    private var outlines: [Outline] = []
    private var path: [String] = []
    private var text: [UInt8] = []
    private var seen: [String: Int] = [:]
    /// The entity never declared that an attribute value of the start tag being read refers to.
    private var undefinedEntityInTag: String?

    var isOtherRoot: Bool { root.map { $0 != "opml" } ?? false }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> OPMLCollector {
        Unmanaged<OPMLCollector>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private var line: Int { context.map { Int(xmlSAX2GetLineNumber(UnsafeMutableRawPointer($0))) } ?? 0 }

    func start(_ localname: UnsafePointer<xmlChar>?, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, _ count: Int) {
        keepReadingReferences()
        let undefined = undefinedEntityInTag
        undefinedEntityInTag = nil
        let name = localname.map { String(cString: $0) } ?? ""
        if root == nil { root = name }
        path.append(name)
        text.removeAll()
        guard name == "outline" else { return }
        if !outlines.isEmpty { outlines[outlines.count - 1].hasChildren = true }
        var values: [String: String] = [:]
        if let attributes {
            for index in stride(from: 0, to: count * 5, by: 5) {
                guard let key = attributes[index], let start = attributes[index + 3], let end = attributes[index + 4] else { continue }
                values[String(cString: key).lowercased()] = XMLAttributeText.decode(UnsafeBufferPointer(start: start, count: end - start))
            }
        }
        let title = [values["title"], values["text"]].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
            .first { !$0.isEmpty }
        let type = values["type"]?.lowercased()
        let url = (values["xmlurl"] ?? values["url"])?.trimmingCharacters(in: .whitespacesAndNewlines)
        let isFeed = url != nil || ["rss", "atom", "podcast"].contains(type ?? "")
        outlines.append(Outline(isFeed: isFeed, title: title, line: line))
        if let undefined, urlAttributeUses(entity: undefined) != false {
            // Its URL lacks what the entity stood for: not the one written, so not shown.
            problems.append(OPMLProblem(kind: .undefinedEntity(name: undefined), line: line, title: title, url: nil))
        } else if let url, !url.isEmpty {
            if let undefined {
                // The title lacks what the entity stood for; the URL, the subscription, is whole
                // (the podcast's title comes from its feed).
                problems.append(OPMLProblem(kind: .unreadableTitle(entity: undefined), line: line, title: nil, url: url))
                offer(url, title: nil)
            } else {
                offer(url, title: title)
            }
        }
    }

    func end() {
        keepReadingReferences()
        if path.last == "title", path.dropLast().last == "head" {
            let value = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !value.isEmpty { title = value }
        }
        if path.last == "outline", let outline = outlines.popLast(), outline.isFeed, !outline.hasChildren,
            !entries.contains(where: { $0.line == outline.line }),
            !problems.contains(where: { $0.line == outline.line })
        {
            problems.append(OPMLProblem(kind: .missingURL, line: outline.line, title: outline.title, url: nil))
        }
        path.removeLast()
    }

    func characters(_ bytes: UnsafePointer<xmlChar>?, _ count: Int) {
        keepReadingReferences()
        guard let bytes, path.last == "title" else { return }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Whether the raw `xmlUrl` (or `url`) of the start tag just read refers to `entity`; nil
    /// when the tag cannot be seen in libxml2's input buffer. The attribute values libxml2
    /// hands over have such a reference dropped, so the tag is read as written, from its `<`
    /// (which no attribute value may hold) to where the parser stands.
    private func urlAttributeUses(entity: String) -> Bool? {
        guard let input = context?.pointee.input?.pointee, let base = input.base, let cur = input.cur, cur > base else { return nil }
        var start = cur
        while start > base, start.pointee != UInt8(ascii: "<") { start -= 1 }
        guard start.pointee == UInt8(ascii: "<") else { return nil }
        let tag = String(decoding: UnsafeBufferPointer(start: start, count: cur - start), as: UTF8.self)
        let reference = "&" + entity + ";"
        var rest = tag[...]
        // name = "value" pairs, in either quote.
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].split(whereSeparator: { $0.isWhitespace }).last.map { $0.lowercased() } ?? ""
            let afterEquals = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = afterEquals.first, quote == "\"" || quote == "'" else { return nil }
            let valueStart = afterEquals.index(after: afterEquals.startIndex)
            guard let valueEnd = afterEquals[valueStart...].firstIndex(of: quote) else { return nil }
            if name == "xmlurl" || name == "url", afterEquals[valueStart..<valueEnd].contains(reference) { return true }
            rest = afterEquals[afterEquals.index(after: valueEnd)...]
        }
        return false
    }

    /// Once a document has had an error, libxml2 (2.9) drops every entity reference in text,
    /// `&amp;` too; it is told again that all is well after each one it recovered from.
    private func keepReadingReferences() {
        if let context, context.pointee.wellFormed == 0 { context.pointee.wellFormed = 1 }
    }

    /// Records the first fatal error, which stops the parse, except a reference to an entity
    /// that is never declared (any the document defines), which costs only the outline whose
    /// attribute value holds it (in text, it costs only itself).
    func error(_ error: xmlError) {
        let code = xmlParserErrors(UInt32(error.code))
        if code == XML_ERR_UNDECLARED_ENTITY || code == XML_WAR_UNDECLARED_ENTITY {
            if context?.pointee.instate == XML_PARSER_ATTRIBUTE_VALUE, undefinedEntityInTag == nil {
                undefinedEntityInTag = error.str1.map { String(cString: $0) } ?? "?"
            }
            return
        }
        guard error.level == XML_ERR_FATAL, firstError == nil else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code)"
        firstError = XMLError(line: Int(error.line), message: message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Records a feed URL, or the problem with it.
    private func offer(_ text: String, title: String?) {
        let line = self.line
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            let kind: OPMLProblem.Kind = URL(string: text)?.scheme == nil ? .relativeURL : .unsupportedScheme
            problems.append(OPMLProblem(kind: kind, line: line, title: title, url: text))
            return
        }
        guard scheme == "http" || scheme == "https" else {
            problems.append(OPMLProblem(kind: .unsupportedScheme, line: line, title: title, url: text))
            return
        }
        // The same feed: scheme and host in any case, with or without a trailing slash.
        var key = scheme + "://" + host.lowercased() + (url.port.map { ":\($0)" } ?? "") + url.path
        if key.hasSuffix("/") { key.removeLast() }
        if let query = url.query { key += "?" + query }
        if let first = seen[key] {
            problems.append(OPMLProblem(kind: .duplicate(firstLine: first), line: line, title: title, url: text))
            return
        }
        seen[key] = line
        entries.append(OPMLEntry(title: title, feedURL: url, line: line))
    }
}
