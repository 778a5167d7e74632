import Foundation

/// Why a document could not be read as a podcast feed.
///
/// Every message names the document (its URL or file path) and, for XML errors, the line.
public struct FeedError: LocalizedError, Equatable, Sendable {
    private enum Code: Equatable, Sendable {
        case empty
        case notAFeed(reason: String)
        case invalidXML(line: Int, message: String)
        case unreadable(detail: String)
    }

    private let code: Code
    /// The URL or file path of the document, as given to the parser.
    public let source: String

    private init(_ code: Code, source: String) {
        self.code = code
        self.source = source
    }

    /// The document has no content (or only whitespace).
    public static func empty(source: String) -> FeedError {
        FeedError(.empty, source: source)
    }

    /// The document is something other than RSS or Atom, such as an HTML page or JSON.
    public static func notAFeed(source: String, reason: String) -> FeedError {
        FeedError(.notAFeed(reason: reason), source: source)
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
        if case .invalidXML(let line, _) = code { return line }
        return nil
    }

    public var errorDescription: String? {
        switch code {
        case .empty:
            "\(source) is empty"
        case .notAFeed(let reason):
            "\(source) is not a podcast feed: \(reason)"
        case .invalidXML(let line, let message):
            "\(source): XML error at line \(line): \(message)"
        case .unreadable(let detail):
            "cannot read \(source): \(detail)"
        }
    }
}
