import Foundation

/// What a pause, resume or cancel did to one download: a value the caller words.
public enum ControlOutcome: Equatable, Sendable {
    /// The download is paused, its partial file kept.
    case paused(Download)
    /// The download is cancelled, its partial file removed.
    case cancelled(Download)
    /// The download was claimed again (queued), or found complete or owned elsewhere.
    case resumed(DownloadClaim)
    /// The download's state does not allow the command (or, for a pause or cancel, its
    /// transfer ended otherwise first: the download is as it says).
    case refused(Download, DownloadLifecycle.Refusal)
    /// A resume that was not carried out: its state allows one, but this caller has no engine
    /// to download it (the daemon has one). The download is left as it was.
    case noDownloader(Download)
    /// No download has this id.
    case unknown(id: Int64)
}

/// The commands users steer downloads with.
public enum ControlCommand: String, Codable, CaseIterable, Sendable {
    case pause, resume, cancel
}

/// Pause, resume and cancel, whoever runs the download: an engine in this process (which
/// stops the transfer), another process (which sees the new state in the progress buffer at
/// its next save and stops), or nobody.
public struct DownloadControl: Sendable {
    public let buffer: ProgressBuffer
    /// The engine of this process, if it has one; resume needs it.
    public let engine: DownloadEngine?

    public init(buffer: ProgressBuffer, engine: DownloadEngine?) {
        self.buffer = buffer
        self.engine = engine
    }

    /// Applies `command` to every download in `ids`, in order.
    public func apply(_ command: ControlCommand, to ids: [Int64], background: Bool = true) async throws -> [ControlOutcome] {
        var outcomes: [ControlOutcome] = []
        for id in ids {
            outcomes.append(try await apply(command, to: id, background: background))
        }
        return outcomes
    }

    /// The downloads an `--all` of `command` concerns (those whose state allows it).
    public func applicable(_ command: ControlCommand) async throws -> [Int64] {
        let event = Self.event(for: command)
        return try await buffer.library.downloads()
            .filter { (try? DownloadLifecycle.transition(from: $0.state, on: event).get()) != nil }
            .map(\.id)
    }

    private func apply(_ command: ControlCommand, to id: Int64, background: Bool) async throws -> ControlOutcome {
        guard let download = try await buffer.library.download(id: id) else { return .unknown(id: id) }
        if case .failure(let refusal) = DownloadLifecycle.transition(from: download.state, on: Self.event(for: command)) {
            return .refused(download, refusal)
        }
        switch command {
        case .pause, .cancel:
            let event = Self.event(for: command)
            if let engine, try await engine.stop(id: id, on: event), let stopped = try await buffer.library.download(id: id) {
                // The transfer may have completed or failed before the stop reached it.
                guard case .success(stopped.state) = DownloadLifecycle.transition(from: download.state, on: event) else {
                    return .refused(stopped, DownloadLifecycle.Refusal(state: stopped.state, event: event))
                }
                return command == .pause ? .paused(stopped) : .cancelled(stopped)
            }
            switch try await buffer.recordStopped(id: id, on: event) {
            case .success(let stopped)?: return command == .pause ? .paused(stopped) : .cancelled(stopped)
            case .failure(let refusal)?: return .refused(download, refusal)
            case nil: return .unknown(id: id)
            }
        case .resume:
            guard let engine else { return .noDownloader(download) }
            let claims = try await engine.enqueue([DownloadRequest(download)], background: background)
            return .resumed(claims[0])
        }
    }

    private static func event(for command: ControlCommand) -> DownloadLifecycle.Event {
        switch command {
        case .pause: .pause
        case .resume: .resume
        case .cancel: .cancel
        }
    }
}

extension DownloadRequest {
    /// The request that downloads an entry of the progress buffer again.
    public init(_ download: Download) {
        self.init(
            podcastTitle: download.podcastTitle, episode: Episode(title: download.episodeTitle),
            enclosure: Enclosure(url: download.enclosureURL, length: download.expectedBytes, type: download.mediaType))
    }
}
