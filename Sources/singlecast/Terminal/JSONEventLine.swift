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
        /// A failure as a value: `kind` and its details.
        var error: DownloadError?
        var ownerPID: Int32?
        var extras: [ExtraJSON]?
        var retryReason: String?
        var nextTryAt: Date?
    }

    static func write(_ event: DownloadEvent) {
        var line: Line
        switch event {
        case .alreadyDownloaded(let download): line = make("already-downloaded", download)
        case .ownedElsewhere(let download): line = make("owned-elsewhere", download)
        case .queued(let download): line = make("queued", download)
        case .started(let download): line = make("started", download)
        case .completed(let download): line = make("completed", download)
        case .stopped(let download): line = make("stopped", download)
        case .failed(let download): line = make("failed", download)
        case .retrying(let download): line = make("retrying", download)
        case .deletedByRetention(let download): line = make("deleted-by-retention", download)
        case .extras(let download, let files):
            line = make("extras", download)
            line.extras = files.map(ExtraJSON.init)
        case .progress(let id, let received, let total):
            line = Line(event: "progress", id: id, receivedBytes: received, totalBytes: total)
        }
        guard var data = try? JSONStyle.lines.encode(line) else { return }
        data.append(0x0A)
        StandardStreams.write(data, to: STDOUT_FILENO)
    }

    private static func make(_ name: String, _ download: Download) -> Line {
        Line(
            event: name, id: download.id, title: download.episodeTitle, url: download.enclosureURL.redactingURLPasswords,
            state: download.state, receivedBytes: download.receivedBytes, totalBytes: download.expectedBytes,
            file: download.file, message: download.failure.map(Words.failure), error: download.failure, ownerPID: download.owner?.processID,
            retryReason: download.retryReason?.rawValue, nextTryAt: download.nextTryAt)
    }
}
