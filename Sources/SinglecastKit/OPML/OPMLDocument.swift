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
        /// The outline refers to an entity that is never expanded (one the file's DTD
        /// defines, or none does), so its title or URL cannot be read as meant.
        case undefinedEntity(name: String)
    }

    public var kind: Kind
    public var line: Int
    /// The outline's title or text.
    public var title: String?
    /// The URL as written, when there is one (never for ``Kind/undefinedEntity(name:)``, whose
    /// URL lacks what the entity stood for).
    public var url: String?
}

/// Why a file could not be read as OPML; the message names the file.
public struct OPMLError: LocalizedError, Equatable, Sendable {
    private enum Code: Equatable, Sendable {
        case empty
        case notOPML(root: String)
        case invalidXML(line: Int, message: String)
        case unreadable(detail: String)
    }

    private let code: Code
    /// The file (or other source) named in the message.
    public let source: String

    static func empty(source: String) -> OPMLError { OPMLError(code: .empty, source: source) }
    static func notOPML(source: String, root: String) -> OPMLError { OPMLError(code: .notOPML(root: root), source: source) }
    static func invalidXML(source: String, line: Int, message: String) -> OPMLError {
        OPMLError(code: .invalidXML(line: line, message: message), source: source)
    }
    public static func unreadable(source: String, detail: String) -> OPMLError {
        OPMLError(code: .unreadable(detail: detail), source: source)
    }

    public var errorDescription: String? {
        switch code {
        case .empty: "\(source) is empty, not an OPML file"
        case .notOPML(let root): "\(source) is not an OPML file: its root element is <\(root)>, not <opml>"
        case .invalidXML(let line, let message): "\(source) is not well-formed XML (line \(line): \(message))"
        case .unreadable(let detail): "cannot read \(source): \(detail)"
        }
    }
}
