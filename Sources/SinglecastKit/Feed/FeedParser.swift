import CLibXML2
import Foundation

/// A streaming RSS/Atom parser: bytes in (in chunks of any size), `Feed` out.
///
/// It drives libxml2's SAX2 push parser and never builds a document tree, so memory grows only
/// with the feed's model. Feed it with `parse(_:)` as the bytes arrive, then call `finish()`.
///
/// Ill-formed feeds are read as far as they can be: the input filter settles the encoding, the
/// markup repair (``FeedMarkupRepair``) mends what would cost libxml2 the rest of the document,
/// and libxml2 recovers (`XML_PARSE_RECOVER`) from the rest. The feed then carries one
/// ``FeedWarning`` with the line of the first fault.
///
/// Hostile documents are safe: the parser never records entity declarations (so no entity of
/// the document is ever expanded, which defeats "billion laughs" and quadratic blow-ups; the
/// repair leaves a reference to one as text), never loads an external entity or DTD, and never
/// touches the network. HTML's named entities (`&eacute;`), which feeds use as if they were
/// XML's, are read as their characters.
public final class FeedParser {
    private let source: String
    private let context: xmlParserCtxtPtr
    /// The SAX context: libxml2's callbacks reach the reader through this pointer, with no
    /// retain, release or exclusivity check on each of the million callbacks of a large feed.
    private let reader: UnsafeMutablePointer<FeedReader>
    private let vocabulary: FeedVocabulary
    private let htmlEntities = HTMLEntityTable()
    private var filter = FeedInputFilter()
    private var repair = FeedMarkupRepair()
    private var hasStarted = false
    /// Whether libxml2 converts the document's encoding itself (``FeedInputFilter/Output/asSent``).
    private var isConverting = false

    /// libxml2's global set-up, which must happen once before threads use it.
    private static let initializeLibXML2: Void = xmlInitParser()

    /// libxml2 reads at most this much per call, which keeps it below its 10 MB lookahead limit.
    private static let sliceSize = 64 * 1024

    /// - Parameters:
    ///   - baseURL: The URL of the feed, against which relative links are resolved.
    ///   - source: The URL or file path of the document, named in errors and warnings.
    public init(baseURL: URL?, source: String) {
        Self.initializeLibXML2
        self.source = source
        var handler = Self.makeHandler()
        // Fails only when memory runs out.
        context = xmlCreatePushParserCtxt(&handler, nil, nil, 0, source)!
        vocabulary = FeedVocabulary(dictionary: context.pointee.dict)
        reader = .allocate(capacity: 1)
        reader.initialize(
            to: FeedReader(
                baseURL: baseURL,
                source: source,
                vocabulary: vocabulary,
                htmlEntities: htmlEntities,
                context: context
            )
        )
        context.pointee.userData = UnsafeMutableRawPointer(reader)
    }

    deinit {
        // libxml2 keeps internal-subset entity declarations in a document of its own when SAX
        // builds none ("expat compatibility"); it is not freed with the context.
        if let document = context.pointee.myDoc {
            xmlFreeDoc(document)
        }
        xmlFreeParserCtxt(context)
        reader.deinitialize(count: 1)
        reader.deallocate()
        vocabulary.deallocate()
    }

    /// Parses the next chunk of the document.
    ///
    /// - Throws: `FeedError` as soon as the document is known not to be a feed.
    public func parse(_ chunk: UnsafeRawBufferPointer) throws {
        guard !isHalted else { return }
        try filter.process(chunk, isFinal: false, emit: repairAndPush)
        try throwIfNotAFeed(atEnd: false)
    }

    /// Parses the end of the document and returns the feed.
    ///
    /// An ill-formed feed yields what could be read and one warning; a feed cut off yields the
    /// podcast, the complete episodes and a warning; the episode cut off is kept when what
    /// arrived of it identifies it (see ``FeedReader/keepCutOffEpisode()``).
    ///
    /// - Throws: `FeedError` when the document is empty, is not a feed, or is cut off before
    ///   it names the podcast or holds an episode.
    public func finish() throws -> Feed {
        if !isHalted {
            try filter.process(UnsafeRawBufferPointer(start: nil, count: 0), isFinal: true, emit: repairAndPush)
            try repair.process(
                UnsafeRawBufferPointer(start: nil, count: 0), filterFault: nil, isFinal: true, lineAtEnd: lineAtEnd()
            ) { push($0, .utf8) }
        }
        if filter.isBlank {
            throw FeedError.empty(source: source)
        }
        if !isHalted {
            reader.pointee.hasAllInput = true
            parseChunk(nil, count: 0, terminate: true)
        }
        try throwIfNotAFeed(atEnd: true)
        let cutOff = reader.pointee.cutOff
        if let cutOff {
            reader.pointee.keepCutOffEpisode()
            if reader.pointee.completedEpisodes == 0, !reader.pointee.hasPodcastTitle {
                throw FeedError.invalidXML(source: source, line: cutOff.line, message: cutOff.message)
            }
        }
        var warning: FeedWarning?
        if let line = [repair.firstFaultLine, reader.pointee.firstFaultLine].compactMap({ $0 }).min() {
            warning = FeedWarning(kind: .repaired, source: source, line: line)
        } else if let cutOff {
            warning = FeedWarning(kind: .cutOff(inside: cutOff.element), source: source, line: cutOff.line)
        }
        var feed = reader.pointee.feed()
        feed.warnings = warning.map { [$0] } ?? []
        return feed
    }

    /// Hands over the episodes completed since the last call, so that they can be stored while
    /// the rest of the document is parsed. ``finish()`` then returns only the episodes not taken.
    public func takeEpisodes() -> [Episode] {
        reader.pointee.takeEpisodes()
    }

    /// Parses a whole document.
    public static func parse(_ data: Data, baseURL: URL?, source: String) throws -> Feed {
        let parser = FeedParser(baseURL: baseURL, source: source)
        try data.withUnsafeBytes { try parser.parse($0) }
        return try parser.finish()
    }

    /// Whether libxml2 has stopped for good: at a root that is not a feed's, or at a fault
    /// it cannot recover from (such as nesting deeper than 256 levels).
    private var isHalted: Bool {
        context.pointee.instate == XML_PARSER_EOF || reader.pointee.otherRoot != nil
    }

    /// The line on which what libxml2 has been given ends: the line it has read to, and the
    /// line feeds it holds unread (counted until the first fault).
    private func lineAtEnd() -> Int {
        guard repair.firstFaultLine == nil, let input = context.pointee.input else { return 1 }
        var line = Int(input.pointee.line)
        if let current = input.pointee.cur, let end = input.pointee.end, current < end {
            line += ByteSearch.newlines(in: UnsafeRawBufferPointer(start: current, count: end - current))
        }
        return line
    }

    /// Hands what the filter passes on to libxml2, through the markup repair when it is UTF-8.
    private func repairAndPush(_ bytes: UnsafeRawBufferPointer, _ output: FeedInputFilter.Output, _ fault: Int?) throws {
        switch output {
        case .utf8:
            try repair.process(bytes, filterFault: fault, isFinal: false, lineAtEnd: lineAtEnd()) { push($0, .utf8) }
        case .asSent:
            push(bytes, .asSent)
        }
    }

    private func push(_ bytes: UnsafeRawBufferPointer, _ output: FeedInputFilter.Output) {
        if !hasStarted {
            hasStarted = true
            // Never XML_PARSE_NOENT, XML_PARSE_DTDLOAD or XML_PARSE_HUGE: see the type's comment.
            var options = XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue
            if output == .utf8 {
                options |= XML_PARSE_IGNORE_ENC.rawValue
            } else {
                isConverting = true
                reader.pointee.readsCheckedUTF8 = false
            }
            xmlCtxtUseOptions(context, Int32(options))
        }
        var offset = 0
        while offset < bytes.count, !isHalted {
            let count = min(Self.sliceSize, bytes.count - offset)
            parseChunk(bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), count: count)
            offset += count
        }
    }

    private func parseChunk(_ bytes: UnsafePointer<CChar>?, count: Int, terminate: Bool = false) {
        guard isConverting else {
            xmlParseChunk(context, bytes, Int32(count), terminate ? 1 : 0)
            return
        }
        // The errors of libxml2's encoding conversion ("I/O error : encoder error",
        // "xmlParseChunk: encoder error") are raised without the context, so they go to this
        // thread's handlers, else to stderr: they are dropped (the input filter converts every
        // encoding iconv knows, so this is for those it does not).
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        singlecast_silenceGenericErrors(1)
        xmlParseChunk(context, bytes, Int32(count), terminate ? 1 : 0)
        singlecast_silenceGenericErrors(0)
        xmlSetStructuredErrorFunc(nil, nil)
    }

    /// Throws when the document is known not to be a feed: at its end, or once libxml2 has
    /// stopped.
    private func throwIfNotAFeed(atEnd: Bool) throws {
        if let root = reader.pointee.otherRoot {
            throw FeedError.notAFeed(source: source, document: root.lowercased() == "html" ? .html : .otherXML(root: root))
        }
        guard !reader.pointee.isFeed, atEnd || isHalted else { return }
        // libxml2 found no root element: say what the document is when that is plain.
        let start = String(decoding: filter.leadingBytes, as: UTF8.self)
        let document: FeedError.Document
        if start.lowercased().hasPrefix("<!doctype html") || start.lowercased().hasPrefix("<html") {
            document = .html
        } else if start.hasPrefix("{") || start.hasPrefix("[") {
            document = .json
        } else if !start.hasPrefix("<") {
            document = .text(start: String(start.prefix { !$0.isNewline }.prefix(30)))
        } else if let error = reader.pointee.firstError {
            throw FeedError.invalidXML(source: source, line: error.line, message: error.message)
        } else {
            // Markup without an element (comments, a declaration): nothing to read.
            throw FeedError.empty(source: source)
        }
        throw FeedError.notAFeed(source: source, document: document)
    }

    /// The SAX2 callbacks. Those left nil matter as much as those set: without `entityDecl`,
    /// `getParameterEntity`, `resolveEntity` and `externalSubset`, no declared entity is
    /// recorded or expanded and nothing outside the document is ever loaded.
    private static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { context, localname, prefix, uri, _, _, attributeCount, _, attributes in
            FeedParser.reader(context).pointee.startElement(
                localname: localname, prefix: prefix, uri: uri,
                attributes: attributes, attributeCount: Int(attributeCount)
            )
        }
        handler.endElementNs = { context, _, _, _ in
            FeedParser.reader(context).pointee.endElement()
        }
        handler.characters = { context, bytes, count in
            FeedParser.reader(context).pointee.characters(bytes, count: count)
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        handler.getEntity = { context, name in
            name.flatMap { FeedParser.reader(context).pointee.htmlEntities.entity(named: $0) }
        }
        handler.serror = { context, error in
            guard let error else { return }
            FeedParser.reader(context).pointee.error(error.pointee)
        }
        return handler
    }

    private static func reader(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<FeedReader> {
        context!.assumingMemoryBound(to: FeedReader.self)
    }
}
