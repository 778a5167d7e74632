import Foundation

/// Pause, resume and cancel for one download, whoever runs it: the daemon's engine, another
/// process (which sees the new state in the progress buffer and stops), or nobody.
struct DownloadControl {
    let engine: DownloadEngine
    let library: Library

    /// Applies `command` to download `id`; returns a line for the user (empty when there is
    /// nothing to say, as for downloads an `--all` does not concern).
    func apply(_ command: ControlRequest.Command, to id: Int64, explicitly: Bool) async throws -> String {
        guard let record = try library.download(id: id) else {
            return explicitly ? "no download has id \(id)" : ""
        }
        let name = "#\(id) \(record.episodeTitle)"
        switch command {
        case .pause:
            guard [.waiting, .downloading, .interrupted, .notStarted].contains(record.state) else {
                return explicitly ? "\(name) is \(record.state.rawValue), not paused" : ""
            }
            if try await !engine.stop(id: id, as: .paused) {
                try library.recordState(id: id, .paused)
            }
            return "paused \(name)"
        case .cancel:
            guard record.state != .completed, record.state != .cancelled else {
                return explicitly ? "\(name) is \(record.state.rawValue), nothing to cancel" : ""
            }
            if try await !engine.stop(id: id, as: .cancelled) {
                try library.recordState(id: id, .cancelled, receivedBytes: 0)
                ProgressBuffer.removePartialFiles(for: URL(fileURLWithPath: record.file))
            }
            return "cancelled \(name)"
        case .resume:
            guard [.paused, .interrupted, .error, .cancelled, .notStarted].contains(record.state) else {
                return explicitly ? "\(name) is \(record.state.rawValue)" : ""
            }
            let claims = try await engine.enqueue([DownloadRequest(ControlRequest.Item(record))], background: true)
            return claims.first.map(\.summary) ?? ""
        case .enqueue, .setJobs, .status:
            return ""
        }
    }
}
