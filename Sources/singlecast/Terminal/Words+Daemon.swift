import Foundation
import SinglecastKit

/// The lines of the daemon's log.
extension Words {
    /// The log lines for what the daemon reported: none for what the log leaves out (progress),
    /// one for each extra of a download.
    static func daemonLog(_ event: DaemonEvent) -> [String] {
        switch event {
        case .listening(let socket, let processID): ["listening on \(socket) (process \(processID))"]
        case .resuming(let count): ["resuming \(count) interrupted download\(count == 1 ? "" : "s")"]
        case .download(let event): daemonLog(event)
        case .hookFailed(let file, let status): ["on-complete hook exited with status \(status) for \(file)"]
        case .hookDidNotStart(let file, let detail): ["on-complete hook could not start for \(file): \(detail)"]
        case .controlSocketClosed(let detail): ["control socket closed: \(detail)"]
        case .idle(let duration): ["idle for \(duration), exiting"]
        case .stopped: ["stopped"]
        }
    }

    private static func daemonLog(_ event: DownloadEvent) -> [String] {
        switch event {
        case .queued(let download):
            ["queued #\(download.id): \(download.episodeTitle)"]
        case .started(let download):
            ["downloading #\(download.id): \(download.episodeTitle) from byte \(download.receivedBytes)"]
        case .completed(let download):
            ["completed #\(download.id): \(download.file)"]
        case .failed(let download):
            ["failed #\(download.id): \(download.failure.map(failure) ?? "")"]
        case .retrying(let download):
            [
                "retrying #\(download.id) at \(download.nextTryAt.map { $0.formatted(.iso8601) } ?? "?")"
                    + (download.retryReason.map { ": " + retryReason($0) } ?? "")
            ]
        case .stopped(let download):
            ["\(download.state.rawValue) #\(download.id): \(download.episodeTitle)"]
        case .alreadyDownloaded(let download):
            ["already downloaded: \(download.file)"]
        case .ownedElsewhere(let download):
            ["owned by process \(download.owner?.processID ?? 0): \(download.episodeTitle)"]
        case .deletedByRetention(let download):
            ["deleted by retention #\(download.id): \(download.file)"]
        case .extras(let download, let files):
            files.map { file in
                file.failure.map { "extra not saved #\(download.id): \(failure($0))" } ?? "extra saved #\(download.id): \(file.file)"
            }
        case .progress:
            []
        }
    }
}
