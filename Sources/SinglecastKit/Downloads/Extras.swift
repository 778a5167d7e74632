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
    /// Why the last attempt failed (the error's description, naming the URL); nil once saved.
    /// A failed extra is tried again on the next download of the episode.
    public var failure: String?

    public init(extra: Extra, file: String, bytes: Int64? = nil, failure: String? = nil) {
        self.extra = extra
        self.file = file
        self.bytes = bytes
        self.failure = failure
    }

    public var isSaved: Bool { failure == nil }
}

/// A failure to save an extra, naming its URL.
public struct ExtraError: LocalizedError, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// The feed's text is not a URL.
        case notAURL
        /// The request failed or the server answered with an unusable status.
        case http(HTTPError)
        /// The server sent an HTML page (an error or login page) instead of the file.
        case htmlPage
        /// The chapters file is not a JSON object.
        case notChapters
        /// Writing the file failed.
        case fileSystem(operation: String, path: String, errno: Int32)
    }

    public var reason: Reason
    /// The extra's URL, as text.
    public var url: String

    public init(_ reason: Reason, url: String) {
        self.reason = reason
        self.url = url
    }

    public var errorDescription: String? {
        let url = self.url.redactingURLPasswords
        switch reason {
        case .notAURL: return "\u{201C}\(url)\u{201D} is not a URL"
        case .http(let error): return error.errorDescription
        case .htmlPage: return "\(url) sent an HTML page instead of the file"
        case .notChapters: return "\(url) is not a chapters file (JSON)"
        case .fileSystem(let operation, let path, let code):
            return "could not \(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}
