import Foundation

/// One stretch of a transcript: its text and, for a format with time codes, when it begins
/// (seconds into the episode).
public struct TranscriptCue: Equatable, Sendable {
    /// Seconds into the episode; nil in a format without times.
    public var start: Double?
    /// The words, on one line.
    public var text: String

    public init(start: Double?, text: String) {
        self.start = start
        self.text = text
    }
}

/// A saved transcript that could not be read, as a value (the executable words it).
public struct UnreadableTranscript: Error, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// The file is gone or cannot be opened (its `errno`).
        case file(errno: Int32)
        /// The bytes are not UTF-8 text.
        case notText
        /// The text is not in the format the transcript announced, named by its extension
        /// (`vtt`, `srt`, `json`): no cue at all, or JSON that is not a Podcasting 2.0 transcript.
        case notFormat(String)
    }

    /// The transcript's file.
    public var file: String
    public var reason: Reason

    public init(file: String, reason: Reason) {
        self.file = file
        self.reason = reason
    }
}

/// Reads the transcripts `--with-extras` saves into cues: SRT, WebVTT and the Podcasting 2.0
/// JSON with their times; HTML (reduced as show notes are) and plain text without times, a
/// paragraph a cue.
enum TranscriptReader {
    /// The cues of a transcript file in `format`; throws ``UnreadableTranscript``.
    static func cues(file: String, format: TranscriptFormat) throws(UnreadableTranscript) -> [TranscriptCue] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw UnreadableTranscript(file: file, reason: .file(errno: Self.errno(of: error)))
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw UnreadableTranscript(file: file, reason: .notText)
        }
        guard let cues = cues(text: text, format: format) else {
            throw UnreadableTranscript(file: file, reason: .notFormat(format.fileExtension))
        }
        return cues
    }

    /// The cues of a transcript's text; nil when the text is not in `format`.
    static func cues(text: String, format: TranscriptFormat) -> [TranscriptCue]? {
        switch format {
        case .vtt:
            guard text.trimmingPrefix("\u{FEFF}").hasPrefix("WEBVTT") else { return nil }
            return timedBlocks(text)
        case .srt: return timedBlocks(text)
        case .json: return jsonSegments(text)
        case .html: return ShowNotes(text).paragraphs.map { TranscriptCue(start: nil, text: $0) }
        case .text: return ShowNotes.plainParagraphs(text).map { TranscriptCue(start: nil, text: $0) }
        }
    }

    /// The cues of SRT or WebVTT: blocks between blank lines whose time line holds `-->`; the
    /// lines after it are the text, with WebVTT's tags (`<v Host>`) left out. Nil when there is
    /// no cue at all.
    private static func timedBlocks(_ text: String) -> [TranscriptCue]? {
        var cues: [TranscriptCue] = []
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard let arrow = line.range(of: "-->"), let start = timestamp(line[..<arrow.lowerBound]) else { continue }
            var body: [String] = []
            while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) {
                body.append(withoutTags(lines[index]))
                index += 1
            }
            let cue = ShowNotes.collapsingWhitespace(body.joined(separator: " "))
            if !cue.isEmpty { cues.append(TranscriptCue(start: start, text: cue)) }
        }
        return cues.isEmpty ? nil : cues
    }

    /// `01:02:03,500`, `01:02:03.500` or `02:03.500` in seconds.
    static func timestamp(_ text: Substring) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".").split(separator: ":")
        guard (2...3).contains(parts.count) else { return nil }
        var seconds = 0.0
        for (offset, part) in parts.enumerated() {
            let isLast = offset == parts.count - 1
            guard let value = isLast ? Double(part) : Double(Int(part) ?? -1), value >= 0, value.isFinite else { return nil }
            seconds = seconds * 60 + value
        }
        return seconds
    }

    private static func withoutTags(_ line: Substring) -> String {
        guard line.contains("<") else { return String(line) }
        var text = ""
        var inTag = false
        for character in line {
            if character == "<" {
                inTag = true
            } else if character == ">" && inTag {
                inTag = false
            } else if !inTag {
                text.append(character)
            }
        }
        return text
    }

    /// The Podcasting 2.0 JSON transcript: `{"segments": [{"startTime": 0.5, "body": "…"}]}`.
    private struct JSONTranscript: Decodable {
        struct Segment: Decodable {
            var startTime: Double?
            var body: String?
        }
        var segments: [Segment]
    }

    private static func jsonSegments(_ text: String) -> [TranscriptCue]? {
        guard let transcript = try? JSONDecoder().decode(JSONTranscript.self, from: Data(text.utf8)) else { return nil }
        let cues = transcript.segments.compactMap { segment -> TranscriptCue? in
            let body = ShowNotes.collapsingWhitespace(segment.body ?? "")
            return body.isEmpty ? nil : TranscriptCue(start: segment.startTime, text: body)
        }
        return transcript.segments.isEmpty ? nil : cues
    }

    private static func errno(of error: any Error) -> Int32 {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain { return Int32(underlying.code) }
        if (error as NSError).code == NSFileReadNoSuchFileError { return ENOENT }
        return EIO
    }
}
