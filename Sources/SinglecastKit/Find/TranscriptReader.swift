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
    /// no cue at all. Read as UTF-8 bytes: a one-hour transcript has about a thousand cues.
    private static func timedBlocks(_ text: String) -> [TranscriptCue]? {
        var text = text
        let cues = text.withUTF8 { bytes -> [TranscriptCue] in
            var cues: [TranscriptCue] = []
            var body: [UInt8] = []
            var start: Double?
            var offset = 0
            while offset < bytes.count {
                var end = offset
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                var line = bytes[offset..<end]
                offset = end + 1
                if line.last == 0x0D { line = line.dropLast() }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                    if let cueStart = start { append(&body, at: cueStart, to: &cues) }
                    start = nil
                } else if start != nil {
                    appendText(line, to: &body)
                } else if let arrow = arrow(in: line) {
                    start = timestamp(line[line.startIndex..<arrow])
                }
            }
            if let cueStart = start { append(&body, at: cueStart, to: &cues) }
            return cues
        }
        return cues.isEmpty ? nil : cues
    }

    /// Where `-->` begins in a line, if it holds one.
    private static func arrow(in line: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var index = line.startIndex
        while index + 2 < line.endIndex {
            if line[index] == 0x2D && line[index + 1] == 0x2D && line[index + 2] == 0x3E { return index }
            index += 1
        }
        return nil
    }

    /// Appends a line of a cue's text without its tags, its white space collapsed.
    private static func appendText(_ line: Slice<UnsafeBufferPointer<UInt8>>, to body: inout [UInt8]) {
        var inTag = false
        if !body.isEmpty && body.last != 0x20 { body.append(0x20) }
        // Most lines hold no tag, tab or run of spaces: copied whole.
        var previous: UInt8 = 0x20
        if !line.contains(where: { byte in
            defer { previous = byte }
            return byte == 0x3C || byte == 0x09 || (byte == 0x20 && previous == 0x20)
        }) {
            body.append(contentsOf: line)
            return
        }
        for byte in line {
            if byte == 0x3C {
                inTag = true
            } else if byte == 0x3E && inTag {
                inTag = false
            } else if !inTag {
                if byte == 0x20 || byte == 0x09 {
                    if let last = body.last, last != 0x20 { body.append(0x20) }
                } else {
                    body.append(byte)
                }
            }
        }
    }

    private static func append(_ body: inout [UInt8], at start: Double, to cues: inout [TranscriptCue]) {
        while body.last == 0x20 { body.removeLast() }
        if !body.isEmpty { cues.append(TranscriptCue(start: start, text: String(decoding: body, as: UTF8.self))) }
        body.removeAll(keepingCapacity: true)
    }

    /// `01:02:03,500`, `01:02:03.500` or `02:03.500` in seconds.
    static func timestamp(_ text: Substring) -> Double? {
        timestamp(Array(text.utf8)[...])
    }

    static func timestamp<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Double? {
        var seconds = 0.0
        var parts = 0
        var value = 0.0
        var digits = 0
        var scale: Double?
        for byte in bytes.drop(while: { $0 == 0x20 || $0 == 0x09 }) {
            switch byte {
            case 0x30...0x39:
                let digit = Double(byte - 0x30)
                if let current = scale {
                    value += digit * current
                    scale = current / 10
                } else {
                    value = value * 10 + digit
                }
                digits += 1
            case 0x3A where digits > 0 && scale == nil:
                seconds = seconds * 60 + value
                parts += 1
                (value, digits) = (0, 0)
            case 0x2E, 0x2C:
                guard digits > 0, scale == nil else { return nil }
                scale = 0.1
            case 0x20, 0x09:
                continue
            default:
                return nil
            }
        }
        guard digits > 0, (1...2).contains(parts) else { return nil }
        return seconds * 60 + value
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
