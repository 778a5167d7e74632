import Foundation
import SinglecastKit

/// The table `singlecast downloads` prints, with a total line.
enum DownloadTable {
    /// With an Extras column (`2 saved, 1 failed`) when any download has transcripts or chapters;
    /// fitted to `width` when given (see ``TextTable/render(width:)``), the episode cut first,
    /// then the file's path at its start, then a retry's reason.
    static func render(
        _ downloads: [SinglecastKit.Download], extras: [Int64: [ExtraFile]] = [:], heard: [String: HeardEpisode] = [:],
        now: Date = Date(), width: Int?
    ) -> String {
        let showsExtras = !extras.isEmpty
        let showsHeard = downloads.contains { heard[$0.enclosureURL] != nil }
        let figures = ["ID", "State", "Done", "Bytes", "Speed", "Left"] + (showsHeard ? ["Heard"] : [])
        let episode = figures.count
        var table = TextTable(
            headers: figures + ["Episode", "File"] + (showsExtras ? ["Extras"] : []), rightAligned: [0, 2, 3, 4, 5],
            shrinking: [episode, episode + 1, 1], keepingEnd: [episode + 1])
        for record in downloads {
            let speed: String =
                record.isStalled(at: now)
                ? "stalled" : record.currentBytesPerSecond(at: now).map { Format.bytes(Int64($0)) + "/s" } ?? ""
            var row: [String] = [
                String(record.id),
                stateCell(record, now: now),
                record.fractionCompleted.map { "\(Int($0 * 100))%" } ?? "",
                bytes(record.receivedBytes, of: record.expectedBytes),
                speed,
                record.secondsLeft(at: now).map { Format.duration(seconds: Int($0)) } ?? "",
            ]
            if showsHeard {
                row.append(heard[record.enclosureURL].map { EpisodeTable.heardCell($0.playback, duration: $0.duration) } ?? "")
            }
            row += ["\(record.podcastTitle): \(record.episodeTitle)", record.file]
            if showsExtras { row.append(Self.extras(extras[record.id] ?? [])) }
            table.rows.append(row)
        }
        let unfinished = downloads.filter { DownloadLifecycle.isUnfinished($0.state) }
        let received = unfinished.reduce(0) { $0 + $1.receivedBytes }
        let expected = unfinished.reduce(0) { $0 + ($1.expectedBytes ?? $1.receivedBytes) }
        let speed = unfinished.reduce(0.0) { $0 + ($1.currentBytesPerSecond(at: now) ?? 0) }
        let active = unfinished.filter { DownloadLifecycle.isUnderWay($0.state) }.count
        let deleted = downloads.filter { $0.state == .deleted }.count
        var total = ["Total: \(downloads.filter { $0.state == .completed }.count) completed", "\(active) active"]
        if deleted > 0 { total.append("\(deleted) deleted") }
        if !unfinished.isEmpty {
            let percent = expected > 0 ? " (\(Int(Double(received) / Double(expected) * 100))%)" : ""
            total.append("\(bytes(received, of: expected)) of the unfinished ones\(percent)")
        }
        if speed > 0 {
            total += ["\(Format.bytes(Int64(speed)))/s", "\(Format.duration(seconds: Int(Double(expected - received) / speed))) left"]
        }
        return table.render(width: width) + "\n" + wrapped(total, width: width)
    }

    /// `completed`, `retrying in 4 s: connection refused`, `error: HTTP 404`, …
    private static func stateCell(_ record: SinglecastKit.Download, now: Date) -> String {
        switch record.state {
        case .retrying: Words.retrying(record, now: now)
        case .error: record.failure.map { "error: " + Words.shortFailure($0) } ?? "error"
        default: record.state.rawValue
        }
    }

    /// `parts` joined with `, `, and broken after a comma where a line would be wider than `width`.
    private static func wrapped(_ parts: [String], width: Int?) -> String {
        var lines = [parts[0]]
        for part in parts.dropFirst() {
            if let width, TerminalText.width(lines[lines.count - 1]) + 2 + TerminalText.width(part) > width {
                lines[lines.count - 1] += ","
                lines.append(part)
            } else {
                lines[lines.count - 1] += ", " + part
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func extras(_ files: [ExtraFile]) -> String {
        let saved = files.filter(\.isSaved).count
        let failed = files.count - saved
        return [saved > 0 ? "\(saved) saved" : nil, failed > 0 ? "\(failed) failed" : nil].compactMap { $0 }
            .joined(separator: ", ")
    }

    private static func bytes(_ received: Int64, of expected: Int64?) -> String {
        guard let expected, expected > 0 else { return Format.bytes(received) }
        return "\(Format.bytes(received)) of \(Format.bytes(expected))"
    }
}
