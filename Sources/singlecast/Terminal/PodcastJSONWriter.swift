import Foundation
import SinglecastKit
import Synchronization

/// Writes `singlecast episodes --json` straight to standard output, a page of episodes at a time:
/// a 20,000-episode feed is printed without building its whole JSON in memory.
///
/// `{"title","link","feedURL","episodes":[{"number","title","guid","published","duration","description",
/// "enclosure":{"url","length","type"},"state","progress","file","message","error","position","played","playedAt",
/// "transcripts":[{"url","type","language","rel"}],"chapters","extras":[{"kind","file","saved","message","error"}]}]}`,
/// dates in ISO 8601 UTC; a failed download's (or extra's) `message` and `error` as `downloads --json` has them.
enum PodcastJSONWriter {
    /// Writes the podcast and its episodes as the library hands them over, a page at a time:
    /// each page is written on a queue of its own while the next is read (a slow pipe holds that
    /// queue, not a thread that runs tasks); `extras` holds the transcripts and chapters saved or
    /// failing, by download id.
    static func write(_ stored: StoredPodcast, library: Library, extras: [Int64: [ExtraFile]]) async throws {
        let state = Mutex((out: JSONOutput(), count: 0))
        state.withLock { writeHeader(stored, to: &$0.out) }
        try await library.forEachEpisodePage(podcastID: stored.id, showNotes: true) { entries in
            await withCheckedContinuation { done in
                output.async {
                    state.withLock { state in
                        // Through pointers: a `for in` loop, or the array's subscript, copies each
                        // entry, retaining every string it holds.
                        entries.withUnsafeBufferPointer { entries in
                            for index in entries.indices {
                                state.out.raw(state.count == 0 ? "\n    " : ",\n    ")
                                let entry = entries.baseAddress! + index
                                episode(entry, extras: entry.pointee.download.flatMap { extras[$0.id] } ?? [], to: &state.out)
                                state.count += 1
                            }
                        }
                    }
                    done.resume()
                }
            }
        }
        state.withLock { state in
            state.out.raw(state.count == 0 ? "]\n}\n" : "\n  ]\n}\n")
            state.out.flush()
        }
    }

    private static let output = DispatchQueue(label: "singlecast.json")

    private static func writeHeader(_ stored: StoredPodcast, to out: inout JSONOutput) {
        out.raw("{\n  \"title\": ")
        out.string(stored.podcast.title)
        out.raw(",\n  \"link\": ")
        out.string(stored.podcast.link?.redacted)
        out.raw(",\n  \"feedURL\": ")
        out.string(stored.podcast.feedURL?.redacted)
        out.raw(",\n  \"episodes\": [")
    }

    private static func episode(_ entry: UnsafePointer<EpisodeEntry>, extras: [ExtraFile], to out: inout JSONOutput) {
        out.raw("{\"number\": ")
        out.integer(Int64(entry.pointee.number))
        out.raw(", \"title\": ")
        out.string(entry.pointee.episode.title)
        out.raw(", \"guid\": ")
        out.string(entry.pointee.episode.guid)
        out.raw(", \"published\": ")
        out.date(entry.pointee.episode.published)
        out.raw(", \"duration\": ")
        out.integer(entry.pointee.episode.duration.map(Int64.init))
        out.raw(", \"description\": ")
        out.string(entry.pointee.episode.description)
        out.raw(", \"enclosure\": ")
        if let enclosure = entry.pointee.episode.enclosure {
            out.raw("{\"url\": ")
            out.string(enclosure.url.redactingURLPasswords)
            out.raw(", \"length\": ")
            out.integer(enclosure.length)
            out.raw(", \"type\": ")
            out.string(enclosure.type)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.raw(", \"state\": ")
        out.string((entry.pointee.download?.state ?? .notStarted).rawValue)
        out.raw(", \"progress\": ")
        out.number(entry.pointee.download?.fractionCompleted)
        out.raw(", \"file\": ")
        out.string(entry.pointee.download?.file)
        out.raw(", \"message\": ")
        out.string(entry.pointee.download?.failure.map(Words.failure))
        out.raw(", \"error\": ")
        out.value(entry.pointee.download?.failure)
        out.raw(", \"position\": ")
        out.number(entry.pointee.playback.position)
        out.raw(", \"played\": ")
        out.bool(entry.pointee.playback.isPlayed)
        out.raw(", \"playedAt\": ")
        out.date(entry.pointee.playback.playedAt)
        out.raw(", \"transcripts\": [")
        for (index, transcript) in entry.pointee.episode.transcripts.enumerated() {
            out.raw(index == 0 ? "{\"url\": " : ", {\"url\": ")
            out.string(transcript.url.redactingURLPasswords)
            out.raw(", \"type\": ")
            out.string(transcript.type)
            out.raw(", \"language\": ")
            out.string(transcript.language)
            out.raw(", \"rel\": ")
            out.string(transcript.rel)
            out.raw("}")
        }
        out.raw("], \"chapters\": ")
        out.string(entry.pointee.episode.chaptersURL?.redactingURLPasswords)
        out.raw(", \"extras\": [")
        for (index, extra) in extras.enumerated() {
            out.raw(index == 0 ? "{\"kind\": " : ", {\"kind\": ")
            out.string(extra.extra.kind.rawValue)
            out.raw(", \"file\": ")
            out.string(extra.file)
            out.raw(", \"saved\": ")
            out.bool(extra.isSaved)
            out.raw(", \"message\": ")
            out.string(extra.failure.map(Words.failure))
            out.raw(", \"error\": ")
            out.value(extra.failure)
            out.raw("}")
        }
        out.raw("]}")
    }
}

/// A buffered writer of JSON text to standard output (through ``StandardStreams``).
struct JSONOutput {
    private var buffer: [UInt8] = []

    init() {
        buffer.reserveCapacity(1 << 16)
    }

    /// Text written as it is: JSON's punctuation and keys.
    mutating func raw(_ text: StaticString) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A number as Swift writes a `Double` (`0.5`, `120.0`), or `null`.
    mutating func number(_ value: Double?) {
        guard let value else { return raw("null") }
        buffer.append(contentsOf: value.description.utf8)
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    /// A JSON string (``JSONString``), or `null`.
    mutating func string(_ text: String?) {
        guard let text else { return raw("null") }
        JSONString.append(text, to: &buffer)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A value as compact `--json` encodes it (``JSONStyle/lines``), or `null`.
    mutating func value(_ value: (some Encodable)?) {
        guard let value, let data = try? JSONStyle.lines.encode(value) else { return raw("null") }
        buffer.append(contentsOf: data)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A whole number, or `null`.
    mutating func integer(_ value: Int64?) {
        guard let value else { return raw("null") }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumCount: 1)
    }

    /// A date as an ISO 8601 string in UTC (`"2024-06-01T12:00:00Z"`), or `null`.
    mutating func date(_ date: Date?) {
        guard let date else { return raw("null") }
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        buffer.append(0x22)
        appendDigits(UInt64(parts.tm_year + 1900), minimumCount: 4)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(UInt64(parts.tm_mon + 1), minimumCount: 2)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(UInt64(parts.tm_mday), minimumCount: 2)
        buffer.append(UInt8(ascii: "T"))
        appendDigits(UInt64(parts.tm_hour), minimumCount: 2)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(UInt64(parts.tm_min), minimumCount: 2)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(UInt64(parts.tm_sec), minimumCount: 2)
        buffer.append(contentsOf: [UInt8(ascii: "Z"), 0x22])
    }

    /// The decimal digits of `value`, zero-padded to `minimumCount` (at most 20).
    private mutating func appendDigits(_ value: UInt64, minimumCount: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for the 20 digits of UInt64.max
        withUnsafeMutableBytes(of: &digits) { digits in
            var start = digits.count
            var rest = value
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            while digits.count - start < minimumCount {
                start -= 1
                digits[start] = UInt8(ascii: "0")
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func flush() {
        buffer.withUnsafeBytes { StandardStreams.write($0, to: STDOUT_FILENO) }
        buffer.removeAll(keepingCapacity: true)
    }
}
