import Foundation

/// A file saved beside an episode's: one of its transcripts, or its chapters (Podcasting 2.0).
public struct Extra: Equatable, Hashable, Sendable {
    public enum Kind: String, Sendable {
        /// A `<podcast:transcript>`.
        case transcript
        /// The `<podcast:chapters>` JSON.
        case chapters
    }

    public var kind: Kind
    /// The absolute URL, as text.
    public var url: String
    /// The MIME type the feed announced.
    public var type: String?
    /// The transcript's language, as the feed wrote it.
    public var language: String?

    public init(kind: Kind, url: String, type: String? = nil, language: String? = nil) {
        self.kind = kind
        self.url = url
        self.type = type
        self.language = language
    }

    /// The extras an episode offers: its chapters, and its transcripts, one per language
    /// (the preferred format where a language has several: VTT, SRT, JSON, HTML, text).
    /// Transcripts in a format none of these are left out.
    public static func offered(by episode: Episode) -> [Extra] {
        var chosen: [String: (transcript: Transcript, format: TranscriptFormat)] = [:]
        var languages: [String] = []
        for transcript in episode.transcripts {
            guard let format = TranscriptFormat(transcript) else { continue }
            let language = transcript.language?.lowercased() ?? ""
            if let current = chosen[language] {
                if format < current.format { chosen[language] = (transcript, format) }
            } else {
                chosen[language] = (transcript, format)
                languages.append(language)
            }
        }
        var extras = languages.map { language in
            let transcript = chosen[language]!.transcript
            return Extra(kind: .transcript, url: transcript.url, type: transcript.type, language: transcript.language)
        }
        if let chapters = episode.chaptersURL {
            extras.insert(Extra(kind: .chapters, url: chapters, type: "application/json+chapters"), at: 0)
        }
        return extras
    }

    /// Whether the file is an HTML document by design (an HTML transcript).
    var isHTML: Bool {
        kind == .transcript && TranscriptFormat(Transcript(url: url, type: type)) == .html
    }
}

/// The transcript formats Singlecast saves, in order of preference.
enum TranscriptFormat: Int, Comparable {
    case vtt, srt, json, html, text

    /// The format of a transcript: from its type, else from its URL's extension.
    init?(_ transcript: Transcript) {
        let essence = transcript.type.map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
        switch essence {
        case "text/vtt": self = .vtt
        case "application/x-subrip", "application/srt", "text/srt", "application/x-srt": self = .srt
        case "application/json": self = .json
        case "text/html": self = .html
        case "text/plain": self = .text
        case nil:
            let ext = URL(string: transcript.url)?.pathExtension.lowercased() ?? ""
            guard let format = Self.byExtension[ext] else { return nil }
            self = format
        default: return nil
        }
    }

    private static let byExtension: [String: TranscriptFormat] = [
        "vtt": .vtt, "srt": .srt, "json": .json, "html": .html, "htm": .html, "txt": .text,
    ]

    /// The extension of a saved transcript.
    var fileExtension: String {
        switch self {
        case .vtt: "vtt"
        case .srt: "srt"
        case .json: "json"
        case .html: "html"
        case .text: "txt"
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An extra of a download and where it stands: saved beside the episode, or failing.
public struct ExtraFile: Equatable, Sendable {
    public var extra: Extra
    /// Its path, beside the episode's file.
    public var file: String
    /// Its size once saved.
    public var bytes: Int64?
    /// Why the last attempt failed, as a value (a kind and its details); nil once saved.
    /// A failed extra is tried again on the next download of the episode.
    public var failure: ExtraError?

    public init(extra: Extra, file: String, bytes: Int64? = nil, failure: ExtraError? = nil) {
        self.extra = extra
        self.file = file
        self.bytes = bytes
        self.failure = failure
    }

    public var isSaved: Bool { failure == nil }
}

/// A failure to save an extra, as a value: what went wrong and the extra's URL (the executable
/// words it).
public struct ExtraError: Error, Hashable, Sendable {
    public enum Reason: Hashable, Sendable {
        /// The feed's text is not a URL.
        case notAURL
        /// The request failed or the server answered with an unusable status.
        case http(HTTPError)
        /// The server sent an HTML page (an error or login page) instead of the file.
        case htmlPage
        /// The chapters file is not a JSON object.
        case notChapters
        /// Writing the file failed.
        case fileSystem(operation: FileOperation, path: String, errno: Int32)
        /// Anything else (or a failure stored as a sentence by an earlier version), described.
        case unexpected(String)
    }

    public var reason: Reason
    /// The extra's URL, as text.
    public var url: String

    public init(_ reason: Reason, url: String) {
        self.reason = reason
        self.url = url
    }
}

/// An extra's failure as a stored value, as a download's is (see ``DownloadError``): a `kind`
/// (`not-a-url`, `html-instead-of-media`, `not-chapters`, `file-system`, an HTTP kind such as
/// `http-status`, or `unexpected`) and its details.
extension ExtraError: Codable {
    /// The machine-readable kind of the failure.
    public var kind: String {
        switch reason {
        case .notAURL: "not-a-url"
        case .http(let error): error.kind
        case .htmlPage: "html-instead-of-media"
        case .notChapters: "not-chapters"
        case .fileSystem: "file-system"
        case .unexpected: "unexpected"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FailureKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(url.redactingURLPasswords, forKey: .url)
        switch reason {
        case .notAURL, .htmlPage, .notChapters: break
        case .http(let error): try error.encodeDetails(to: &container)
        case .fileSystem(let operation, let path, let code):
            try container.encode(operation, forKey: .operation)
            try container.encode(path, forKey: .path)
            try container.encode(code, forKey: .errno)
        case .unexpected(let detail): try container.encode(detail, forKey: .detail)
        }
    }

    /// Reads a stored failure; a kind this build does not know reads as `unexpected`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FailureKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let url = try container.decode(String.self, forKey: .url)
        switch kind {
        case "not-a-url": self.init(.notAURL, url: url)
        case "html-instead-of-media": self.init(.htmlPage, url: url)
        case "not-chapters": self.init(.notChapters, url: url)
        case "file-system":
            self.init(
                .fileSystem(
                    operation: try container.decode(FileOperation.self, forKey: .operation),
                    path: try container.decode(String.self, forKey: .path),
                    errno: try container.decode(Int32.self, forKey: .errno)),
                url: url)
        default:
            if let http = try HTTPError.stored(kind: kind, url: url, from: container) {
                self.init(.http(http), url: url)
            } else {
                self.init(.unexpected(try container.decodeIfPresent(String.self, forKey: .detail) ?? kind), url: url)
            }
        }
    }

    /// The failure an extra's row holds: a value, or a sentence an earlier version stored.
    static func stored(_ text: String, url: String) -> ExtraError {
        (try? JSONDecoder().decode(ExtraError.self, from: Data(text.utf8))) ?? ExtraError(.unexpected(text), url: url)
    }

    /// The text an extra's row holds for the failure: its value as JSON.
    var storedText: String { failureJSON(self) }
}

extension ExtraError: CustomStringConvertible {
    /// The failure as JSON, for logs (the executable words it for people).
    public var description: String { failureJSON(self) }
}
