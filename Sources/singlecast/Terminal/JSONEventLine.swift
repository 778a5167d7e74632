import Foundation
import SinglecastKit

/// One download event as a line of JSON, for `--json`.
enum JSONEventLine {
    private struct Line: Encodable {
        var event: String
        var id: Int64?
        var title: String?
        var url: String?
        var state: DownloadState?
        var receivedBytes: Int64?
        var totalBytes: Int64?
        var file: String?
        var message: String?
        var ownerPID: Int32?
    }

    static func write(_ event: DownloadEvent) {
        let line: Line
        switch event {
        case .alreadyDownloaded(let record): line = make("already-downloaded", record)
        case .ownedElsewhere(let record): line = make("owned-elsewhere", record)
        case .queued(let record): line = make("queued", record)
        case .started(let record): line = make("started", record)
        case .completed(let record): line = make("completed", record)
        case .stopped(let record): line = make("stopped", record)
        case .failed(let record, let message):
            var failed = make("failed", record)
            failed.message = message
            line = failed
        case .progress(let id, let received, let total):
            line = Line(event: "progress", id: id, receivedBytes: received, totalBytes: total)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(line) else { return }
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }

    private static func make(_ name: String, _ record: DownloadRecord) -> Line {
        Line(
            event: name, id: record.id, title: record.episodeTitle, url: record.enclosureURL,
            state: record.state, receivedBytes: record.receivedBytes, totalBytes: record.expectedBytes,
            file: record.file, message: record.message, ownerPID: record.ownerPID)
    }
}
