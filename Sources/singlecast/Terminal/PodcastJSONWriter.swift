import Foundation
import SinglecastKit

/// Writes `singlecast episodes --json` straight to standard output, one episode at a time:
/// a 20,000-episode feed is printed without building its whole JSON in memory.
///
/// `{"title","link","feedURL","episodes":[{"number","title","guid","published","duration",
/// "enclosure":{"url","length","type"},"state","progress","file"}]}`, dates in ISO 8601 UTC.
enum PodcastJSONWriter {
    static func write(_ stored: StoredPodcast, _ entries: [EpisodeEntry]) {
        var out = JSONOutput()
        out.raw("{\n  \"title\": ")
        out.string(stored.podcast.title)
        out.raw(",\n  \"link\": ")
        out.string(stored.podcast.link?.absoluteString)
        out.raw(",\n  \"feedURL\": ")
        out.string(stored.podcast.feedURL?.absoluteString)
        out.raw(",\n  \"episodes\": [")
        for (index, entry) in entries.enumerated() {
            out.raw(index == 0 ? "\n    " : ",\n    ")
            episode(entry, to: &out)
        }
        out.raw(entries.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        out.flush()
    }

    private static func episode(_ entry: EpisodeEntry, to out: inout JSONOutput) {
        let episode = entry.episode
        out.raw("{\"number\": \(entry.number), \"title\": ")
        out.string(episode.title)
        out.raw(", \"guid\": ")
        out.string(episode.guid)
        out.raw(", \"published\": ")
        out.string(episode.published.map(Format.iso8601))
        out.raw(", \"duration\": ")
        out.raw(episode.duration.map(String.init) ?? "null")
        out.raw(", \"enclosure\": ")
        if let enclosure = episode.enclosure {
            out.raw("{\"url\": ")
            out.string(enclosure.url.absoluteString)
            out.raw(", \"length\": \(enclosure.length.map(String.init) ?? "null"), \"type\": ")
            out.string(enclosure.type)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.raw(", \"state\": ")
        out.string((entry.download?.state ?? .notStarted).rawValue)
        out.raw(", \"progress\": ")
        out.raw(entry.download?.fractionCompleted.map { String($0) } ?? "null")
        out.raw(", \"file\": ")
        out.string(entry.download?.file)
        out.raw("}")
    }
}

/// A buffered writer of JSON text to standard output.
struct JSONOutput {
    private var buffer: [UInt8] = []

    init() {
        buffer.reserveCapacity(1 << 16)
    }

    mutating func raw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// A JSON string with the escapes RFC 8259 requires, or `null`.
    mutating func string(_ text: String?) {
        guard let text else { return raw("null") }
        buffer.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20: buffer.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
            default: buffer.append(byte)
            }
        }
        buffer.append(0x22)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
