import Foundation

/// Why a document could not be read as a podcast feed, as a value: the reason and the document
/// (its URL or file path); the executable words it.
public struct FeedError: Error, Hashable, Sendable {
    /// What is wrong with the document.
    public enum Reason: Hashable, Sendable {
        /// It has no content (or only whitespace).
        case empty
        /// It is something other than RSS or Atom, and what it is.
        case notAFeed(Document)
        /// libxml2 refused it at `line`, with its message.
        case invalidXML(line: Int, message: String)
        /// The file could not be opened or read, and why.
        case unreadable(detail: String)
    }

    /// What a document that is not a feed is instead.
    public enum Document: Hashable, Sendable {
        /// An HTML page.
        case html
        /// JSON.
        case json
        /// Not markup at all; how its first line starts (at most 30 characters).
        case text(start: String)
        /// XML whose root element is `root`, not `<rss>`, `<rdf:RDF>` or Atom's `<feed>`.
        case otherXML(root: String)
    }

    /// What is wrong with the document.
    public let reason: Reason
    /// The URL or file path of the document, as given to the parser.
    public let source: String

    private init(_ reason: Reason, source: String) {
        self.reason = reason
        self.source = source
    }

    /// The document has no content (or only whitespace).
    public static func empty(source: String) -> FeedError {
        FeedError(.empty, source: source)
    }

    /// The document is something other than RSS or Atom, such as an HTML page or JSON.
    public static func notAFeed(source: String, document: Document) -> FeedError {
        FeedError(.notAFeed(document), source: source)
    }

    /// libxml2 refused the document before any episode could be kept.
    public static func invalidXML(source: String, line: Int, message: String) -> FeedError {
        FeedError(.invalidXML(line: line, message: message), source: source)
    }

    /// The file could not be opened or read.
    public static func unreadableFile(path: String, detail: String) -> FeedError {
        FeedError(.unreadable(detail: detail), source: path)
    }

    /// The line of an XML error, or nil for other errors.
    public var line: Int? {
        if case .invalidXML(let line, _) = reason { return line }
        return nil
    }
}

/// A feed's failure as a value (see ``UpdateFailure``): a `kind` (`empty-feed`, `not-a-feed`,
/// `invalid-xml`, `unreadable-file`) and its details (for `not-a-feed`, `document`: `html`,
/// `json`, `text` with its `start`, or `xml` with its `root`).
extension FeedError: Codable {
    /// The machine-readable kinds, each written here once.
    enum Kind: String, CaseIterable {
        case empty = "empty-feed"
        case notAFeed = "not-a-feed"
        case invalidXML = "invalid-xml"
        case unreadable = "unreadable-file"
    }

    /// The machine-readable kind of the failure.
    public var kind: String {
        switch reason {
        case .empty: Kind.empty.rawValue
        case .notAFeed: Kind.notAFeed.rawValue
        case .invalidXML: Kind.invalidXML.rawValue
        case .unreadable: Kind.unreadable.rawValue
        }
    }

    private enum CodingKeys: String, CodingKey {
        case kind, source, detail, line, document, start, root
    }

    /// A failure stored by an earlier version, which said what the document was in a sentence.
    struct OldSentence: Error {}

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(source.redactingURLPasswords, forKey: .source)
        switch reason {
        case .empty: break
        case .notAFeed(.html): try container.encode("html", forKey: .document)
        case .notAFeed(.json): try container.encode("json", forKey: .document)
        case .notAFeed(.text(let start)):
            try container.encode("text", forKey: .document)
            try container.encode(start, forKey: .start)
        case .notAFeed(.otherXML(let root)):
            try container.encode("xml", forKey: .document)
            try container.encode(root, forKey: .root)
        case .unreadable(let detail): try container.encode(detail, forKey: .detail)
        case .invalidXML(let line, let message):
            try container.encode(line, forKey: .line)
            try container.encode(message, forKey: .detail)
        }
    }

    /// Throws ``OldSentence`` for a `not-a-feed` an earlier version stored as a sentence.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let source = try container.decode(String.self, forKey: .source)
        let detail = try container.decodeIfPresent(String.self, forKey: .detail) ?? ""
        switch Kind(rawValue: try container.decode(String.self, forKey: .kind)) {
        case .empty: self.init(.empty, source: source)
        case .invalidXML: self.init(.invalidXML(line: try container.decode(Int.self, forKey: .line), message: detail), source: source)
        case .unreadable: self.init(.unreadable(detail: detail), source: source)
        case .notAFeed, nil:
            let document: Document =
                switch try container.decodeIfPresent(String.self, forKey: .document) {
                case "html": .html
                case "json": .json
                case "text": .text(start: try container.decode(String.self, forKey: .start))
                case "xml": .otherXML(root: try container.decode(String.self, forKey: .root))
                default: throw OldSentence()
                }
            self.init(.notAFeed(document), source: source)
        }
    }
}
