import Foundation

/// What an OPML subscription list holds: its feeds in document order, and the outlines that
/// could not be used.
public struct OPMLDocument: Equatable, Sendable {
    /// `<head><title>`.
    public var title: String?
    /// Every usable feed, at any depth (category outlines are walked into), each once.
    public var entries: [OPMLEntry]
    /// Outlines skipped, with why.
    public var problems: [OPMLProblem]
}

/// One feed of an OPML file: an `<outline>` with an `xmlUrl` (or `url`).
public struct OPMLEntry: Equatable, Sendable {
    /// The outline's `title`, else its `text`.
    public var title: String?
    public var feedURL: URL
    /// The line of the outline in the file.
    public var line: Int
}

/// An outline of an OPML file that is not imported.
public struct OPMLProblem: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The same feed appeared on an earlier line.
        case duplicate(firstLine: Int)
        /// The URL has no scheme and host (`feed.xml`).
        case relativeURL
        /// The URL is not http or https (`ftp:`, `javascript:`, `file:`).
        case unsupportedScheme
        /// A feed outline (`type="rss"`) without `xmlUrl` or `url`.
        case missingURL
        /// The outline's URL refers to an entity that is never expanded (one the file's DTD
        /// defines, or none does), so it cannot be read as meant.
        case undefinedEntity(name: String)
        /// The outline's title refers to an entity that is never expanded: the feed is imported
        /// all the same (its title is the feed's own), and the title is reported.
        case unreadableTitle(entity: String)
    }

    public var kind: Kind
    public var line: Int
    /// The outline's title or text.
    public var title: String?
    /// The URL as written, when there is one (never for ``Kind/undefinedEntity(name:)``, whose
    /// URL lacks what the entity stood for).
    public var url: String?
}

/// Why a file could not be read as OPML, as a value: the reason and the file; the executable
/// words it.
public struct OPMLError: Error, Equatable, Sendable {
    /// What is wrong with the file.
    public enum Reason: Equatable, Sendable {
        /// It has no content.
        case empty
        /// Its root element is `root`, not `opml`.
        case notOPML(root: String)
        /// It is not well-formed XML: libxml2's message for `line`.
        case invalidXML(line: Int, message: String)
        /// It could not be opened or read: the system's error number.
        case unreadable(errno: Int32)
        /// It is larger than the reader takes (`limit` bytes).
        case tooLarge(limit: Int)
        /// libxml2 could not allocate a parser.
        case outOfMemory
    }

    /// What is wrong with the file.
    public let reason: Reason
    /// The file (or other source).
    public let source: String

    static func empty(source: String) -> OPMLError { OPMLError(reason: .empty, source: source) }
    static func notOPML(source: String, root: String) -> OPMLError { OPMLError(reason: .notOPML(root: root), source: source) }
    static func invalidXML(source: String, line: Int, message: String) -> OPMLError {
        OPMLError(reason: .invalidXML(line: line, message: message), source: source)
    }
    /// A file that could not be opened or read, and the system's error number.
    public static func unreadable(source: String, errno: Int32) -> OPMLError {
        OPMLError(reason: .unreadable(errno: errno), source: source)
    }
}
