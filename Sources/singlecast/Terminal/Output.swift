import Foundation
import SinglecastKit

/// Writes `value` as pretty JSON with ISO 8601 dates to standard output.
func printJSON<Value: Encodable>(_ value: Value) throws {
    var data = try JSONStyle.pretty.encode(value)
    data.append(0x0A)
    StandardStreams.write(data, to: STDOUT_FILENO)
}

/// The JSON configurations of `--json`: ISO 8601 dates, sorted keys, slashes unescaped.
enum JSONStyle {
    /// Pretty-printed, for whole documents.
    static let pretty = encoder([.prettyPrinted])
    /// One object a line, for event streams.
    static let lines = encoder([])

    private static func encoder(_ extra: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = extra.union([.sortedKeys, .withoutEscapingSlashes])
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// Writes a line to standard output at once, unbuffered (for output that follows events).
func printNow(_ line: String) {
    StandardStreams.write(words: line + "\n", to: STDOUT_FILENO)
}

/// Writes a line to standard error.
func printError(_ line: String) {
    StandardStreams.write(words: line + "\n", to: STDERR_FILENO)
}

/// Human-readable figures for tables and progress lines.
enum Format {
    /// `12.3 MB`, `950 kB`, `512 B` (decimal units, as file managers show sizes): one decimal
    /// below 10, rounded half up. Integer arithmetic, not `String(format:)`, whose cost every
    /// row of a listing would pay.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var unit = 0
        var divisor: Int64 = 1
        while count / divisor >= 1000, unit < units.count - 1 {
            divisor *= 1000
            unit += 1
        }
        guard unit > 0 else { return "\(count) B" }
        if count / divisor < 10 {
            let tenths = (count / divisor) * 10 + ((count % divisor) * 10 + divisor / 2) / divisor
            return "\(tenths / 10).\(tenths % 10) \(units[unit])"
        }
        return "\(count / divisor + (count % divisor + divisor / 2) / divisor) \(units[unit])"
    }

    /// `1:02:03` or `42:07`.
    static func duration(seconds: Int) -> String {
        let hours = seconds / 3600, minutes = seconds % 3600 / 60, rest = seconds % 60
        return hours > 0
            ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))"
            : "\(minutes):\(twoDigits(rest))"
    }

    /// `2024-06-01` in UTC.
    static func day(_ date: Date) -> String {
        UTCDay(date).description
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}

/// The listening keys of an episode in `--json` listings: `position` (seconds or null),
/// `played` and `playedAt` (ISO 8601 or null), encoded into the episode's own object.
struct PlaybackJSON: Encodable {
    var position: Double?
    var played: Bool
    var playedAt: Date?

    init(_ playback: Playback) {
        position = playback.position
        played = playback.isPlayed
        playedAt = playback.playedAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(played, forKey: .played)
        try container.encode(playedAt, forKey: .playedAt)
    }

    private enum CodingKeys: String, CodingKey {
        case position, played, playedAt
    }
}

/// Writes `value` as one line of compact JSON to standard output, at once.
func printJSONLine<Value: Encodable>(_ value: Value) {
    guard var data = try? JSONStyle.lines.encode(value) else { return }
    data.append(0x0A)
    FileHandle.standardOutput.write(data)
}
