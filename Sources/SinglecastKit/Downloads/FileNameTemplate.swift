import Foundation

/// Where in the episodes folder a download goes, as the `file-name` setting says it:
/// `{podcast}/{date} {title}`. The last part names the file (its extension is added, and it is
/// made safe as ``FileNaming/safeName(forTitle:url:announcedType:)`` makes a title); the parts
/// before it name folders, which may use only `{podcast}` so that a podcast's files share one
/// folder (the clash rules and the rebuild after a lost database work folder by folder).
public struct FileNameTemplate: Hashable, Sendable {
    /// The template as written.
    public let text: String
    private let folders: [[Piece]]
    private let name: [Piece]

    /// The placeholders a template may use.
    public enum Placeholder: String, CaseIterable, Sendable {
        case podcast
        case title
        /// The episode's date, `2024-07-03` (UTC); nothing when the feed gives none.
        case date
        /// Six hex digits of a stable hash of the episode's guid (else its link or enclosure URL).
        case guidHash = "guid-hash"
    }

    /// Why a template was refused.
    public enum Problem: Error, Hashable, Sendable {
        /// `{name}` is no placeholder.
        case unknownPlaceholder(String)
        /// A `{` without its `}`, or the reverse.
        case unbalancedBrace
        /// A part between slashes is empty (`a//b`, a leading or trailing `/`).
        case emptyPart
        /// A folder part uses a placeholder other than `{podcast}`.
        case episodePlaceholderInFolder(Placeholder)
    }

    private enum Piece: Hashable, Sendable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// `{podcast}/{title}`: the layout Singlecast has always used.
    public static let standard = try! FileNameTemplate("{podcast}/{title}")

    public init(_ text: String) throws(Problem) {
        self.text = text
        var parts: [[Piece]] = []
        for part in text.split(separator: "/", omittingEmptySubsequences: false) {
            guard !part.trimmingCharacters(in: .whitespaces).isEmpty else { throw .emptyPart }
            parts.append(try Self.pieces(of: String(part)))
        }
        name = parts.removeLast()
        for part in parts {
            for case .placeholder(let placeholder) in part where placeholder != .podcast {
                throw .episodePlaceholderInFolder(placeholder)
            }
        }
        folders = parts
    }

    private static func pieces(of part: String) throws(Problem) -> [Piece] {
        var pieces: [Piece] = []
        var rest = part[...]
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else { throw .unbalancedBrace }
            if open > rest.startIndex { pieces.append(.literal(String(rest[..<open]))) }
            let word = String(rest[rest.index(after: open)..<close])
            guard let placeholder = Placeholder(rawValue: word) else { throw .unknownPlaceholder(word) }
            pieces.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        return pieces
    }

    /// The folders (relative to the episodes folder) a podcast's files go in, each made safe.
    func folderComponents(podcastTitle: String) -> [String] {
        folders.map { part in
            FileNaming.safeName(forTitle: Self.render(part, podcastTitle: podcastTitle, episode: nil), url: nil, announcedType: nil)
        }
    }

    /// The file's name before it is made safe and given its extension.
    func unsafeName(podcastTitle: String, episode: Episode) -> String {
        Self.render(name, podcastTitle: podcastTitle, episode: episode)
    }

    private static func render(_ pieces: [Piece], podcastTitle: String, episode: Episode?) -> String {
        pieces.map { piece in
            switch piece {
            case .literal(let text): text
            case .placeholder(.podcast): podcastTitle
            case .placeholder(.title): episode?.title ?? ""
            case .placeholder(.date): episode?.published.map(dayFormat.format) ?? ""
            case .placeholder(.guidHash): FileNaming.stableHash(episode?.identity ?? "")
            }
        }.joined()
    }

    private static let dayFormat = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
}
