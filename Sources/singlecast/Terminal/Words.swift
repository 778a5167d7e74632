import Foundation
import SinglecastKit
import SinglecastWords

/// The sentences for the values the library returns: one place for each wording.
enum Words {
    /// `queued #3: Podcast: Title`, `already downloaded: PATH`, …
    static func claim(_ claim: DownloadClaim) -> String {
        switch claim {
        case .claimed(let download): "queued #\(download.id): \(episode(download))"
        case .alreadyDownloaded(let download): alreadyDownloaded(download)
        case .ownedElsewhere(let download): ownedElsewhere(download)
        }
    }

    /// The one line said when opening the library took others' access to it away.
    static func madePrivate(_ paths: [String]) -> String {
        "made private to you (it holds private feeds' addresses and the sync account): " + paths.joined(separator: ", ")
    }

    /// `another update is running (process 123): try again when it has finished`.
    static func anotherUpdateIsRunning(_ running: AnotherUpdateIsRunning) -> String {
        "another update is running" + (running.processID.map { " (process \($0))" } ?? "") + ": try again when it has finished"
    }

    static func alreadyDownloaded(_ download: Download) -> String {
        "already downloaded: \(download.file)"
    }

    static func ownedElsewhere(_ download: Download) -> String {
        let percent = download.fractionCompleted.map { " (\(Int($0 * 100))%)" } ?? ""
        let owner = download.owner.map { String($0.processID) } ?? "?"
        return "already being downloaded by process \(owner): \(download.episodeTitle)\(percent)"
    }

    /// `chapters`, `transcript (en, text/vtt)`, `transcript (text/plain)`.
    static func extra(_ extra: Extra) -> String {
        switch extra.kind {
        case .chapters: return "chapters"
        case .transcript:
            let details = [extra.language, extra.type].compactMap { $0 }
            return details.isEmpty ? "transcript" : "transcript (\(details.joined(separator: ", ")))"
        }
    }

    /// `saved chapters: PATH`, or a warning for an extra that failed (it is tried again).
    static func extraOutcome(_ file: ExtraFile, of download: Download) -> String {
        guard let failure = file.failure else { return "saved \(extra(file.extra)): \(file.file)" }
        return "warning: \(download.episodeTitle): \(extra(file.extra)) not saved: \(Self.failure(failure)) "
            + "(tried again on the next download)"
    }

    /// `paused #3 Title`, `#3 Title is completed, not paused`, …
    static func outcome(_ outcome: ControlOutcome) -> String {
        switch outcome {
        case .paused(let download): "paused #\(download.id) \(download.episodeTitle)"
        case .cancelled(let download): "cancelled #\(download.id) \(download.episodeTitle)"
        case .resumed(let resumed): Self.claim(resumed)
        case .refused(let download, let refusal): "#\(download.id) \(download.episodeTitle) " + refused(refusal)
        case .noDownloader(let download):
            "#\(download.id) \(download.episodeTitle) is \(download.state.rawValue), not resumed: no downloader here (the daemon resumes it)"
        case .unknown(let id): "no download has id \(id)"
        }
    }

    static func refused(_ refusal: DownloadLifecycle.Refusal) -> String {
        let state = refusal.state.rawValue
        switch refusal.event {
        case .pause: return "is \(state), not paused"
        case .cancel: return "is \(state), nothing to cancel"
        case .claim, .resume: return "is \(state), nothing to resume"
        default: return "is \(state)"
        }
    }

    /// `connection refused`, `HTTP 503`, …
    static func retryReason(_ reason: RetryReason) -> String {
        if let status = reason.httpStatus { return "HTTP \(status)" }
        switch reason {
        case .connectionRefused: return "connection refused"
        case .connectionLost: return "connection lost"
        case .hostNotFound: return "host not found"
        case .connectTimeout: return "connect timeout"
        case .readTimeout: return "read timeout"
        case .tlsHandshake: return "TLS handshake interrupted"
        default: return "host unreachable"
        }
    }

    /// `Podcast: Title`: a download's episode named with its podcast, as every line about one
    /// names it (the current podcast may be another).
    static func episode(_ download: Download) -> String {
        episode(podcastTitle: download.podcastTitle, title: download.episodeTitle)
    }

    /// `Podcast: Title`: an episode named with its podcast.
    static func episode(_ podcast: StoredPodcast, _ entry: EpisodeEntry) -> String {
        episode(podcastTitle: podcast.podcast.title, title: entry.episode.title)
    }

    private static func episode(podcastTitle: String, title: String) -> String {
        "\(podcastTitle): \(title)"
    }

    /// `added to the queue as 3: Podcast: Title`, or where it was already.
    static func queueAddition(_ addition: QueueAddition, podcast: StoredPodcast, entry: EpisodeEntry) -> String {
        switch addition {
        case .added(let number): "added to the queue as \(number): \(episode(podcast, entry))"
        case .alreadyQueued(let number): "already in the queue as \(number): \(episode(podcast, entry))"
        }
    }

    /// `HTTP 404`, `host not found`, `no space`: why a download ended in the error state, short
    /// enough for a table's cell (the whole sentence is ``failure(_:)``).
    static func shortFailure(_ failure: DownloadError) -> String {
        switch failure.reason {
        case .http(let error):
            switch error.reason {
            case .unauthorized: return "HTTP 401"
            case .certificateNotTrusted, .certificateExpired, .certificateWrongHost: return "certificate"
            case .redirect: return "redirect"
            case .unsupportedURL: return "not http(s)"
            case .bodyTooLarge: return "too large"
            default: return retryReason(failure.retryReason)
            }
        case .notAURL: return "not a URL"
        case .htmlInsteadOfMedia: return "HTML page"
        case .incomplete: return "incomplete"
        case .oversized: return "larger than announced"
        case .unusableRange: return "unusable range"
        case .serverKeepsEnding: return "server keeps ending"
        case .noSpace: return "no space"
        case .fileSystem: return "file system"
        case .unexpected: return "failed"
        }
    }

    /// `retrying in 40 s: connection refused` for a download waiting for its next try.
    static func retrying(_ download: Download, now: Date = Date()) -> String {
        let reason = download.retryReason.map { ": " + retryReason($0) } ?? ""
        guard let next = download.nextTryAt else { return "retrying\(reason)" }
        let seconds = Int(next.timeIntervalSince(now).rounded(.up))
        return seconds > 0 ? "retrying in \(wait(seconds: seconds))\(reason)" : "retrying now\(reason)"
    }

    /// `40 s`, `3 min`, `2 h`.
    static func wait(seconds: Int) -> String {
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        return "\(seconds / 3600) h"
    }

    /// The lines for a stopped download: `paused: Title, 3 MB kept`; for one interrupted because
    /// the network did not come back, why and how to resume it.
    static func stopped(_ download: Download) -> String {
        let kept = download.receivedBytes > 0 ? ", \(Format.bytes(download.receivedBytes)) kept" : ""
        let line = "\(download.state.rawValue): \(download.episodeTitle)\(kept)"
        guard download.state == .interrupted, let failure = download.failure else { return line }
        return line + ": " + Self.failure(failure) + "\n"
            + "  resume it with `singlecast resume \(download.id)` (in the background), or run this download again"
    }

    /// `line 12 (Title): duplicate of line 4, skipped`, …
    static func problem(_ problem: OPMLProblem) -> String {
        let title = problem.title.map { " (\($0))" } ?? ""
        let url = problem.url.map { " \($0.redactingURLPasswords)" } ?? ""
        let what =
            switch problem.kind {
            case .duplicate(let firstLine): "\(url.isEmpty ? "" : url + ":") the same feed as line \(firstLine), skipped"
            case .relativeURL: "\(url) is not an absolute URL, skipped"
            case .unsupportedScheme: "\(url) is not an http or https URL, skipped"
            case .missingURL: " a feed outline without xmlUrl, skipped"
            case .undefinedEntity(let name): " uses the entity &\(name);, which is never expanded, skipped"
            case .unreadableTitle(let name):
                "\(url): its title uses the entity &\(name);, which is never expanded; imported with the feed's own title"
            }
        return "line \(problem.line)\(title):" + what
    }

    /// `feed.xml was repaired (not well-formed XML; first fault at line 12)`, or where a
    /// cut-off feed ends.
    static func warning(_ warning: FeedWarning) -> String {
        let source = warning.source.redactingURLPasswords
        switch warning.kind {
        case .repaired:
            return "\(source) was repaired (not well-formed XML; first fault at line \(warning.line))"
        case .cutOff(let element):
            let inside = element.map { " (inside <\($0)>)" } ?? ""
            return "\(source) ends early at line \(warning.line)\(inside); what came before it was kept"
        }
    }

    /// `Error: cannot write to standard output: No space left on device`.
    static func outputFailed(errno: Int32) -> String {
        "Error: cannot write to standard output: \(String(cString: strerror(errno)))"
    }

    /// `ok`, `not modified`, `moved to URL`, `gone (410)`, or the error.
    static func status(_ status: UpdateStatus) -> String {
        switch status {
        case .ok: "ok"
        case .notModified: "not modified"
        case .moved(_, let to): "moved to \(to.redactingURLPasswords)"
        case .gone: "gone (the server answered 410: no longer fetched)"
        case .failed(let failure): Self.failure(failure)
        }
    }

    /// `23:10 of 1:02:03`, or `23:10` when the length is unknown.
    static func position(_ seconds: Double, of duration: Double?) -> String {
        let position = Format.duration(seconds: Int(seconds))
        guard let duration, duration > 0 else { return position }
        return "\(position) of \(Format.duration(seconds: Int(duration.rounded())))"
    }

    /// `1.5×`.
    static func speed(_ speed: Double) -> String {
        (speed == speed.rounded() ? String(Int(speed)) : String(speed)) + "\u{D7}"
    }

    /// How `play --json` names the way listening ended.
    static func reason(_ reason: ListeningEnd.Reason) -> String {
        switch reason {
        case .end: "end"
        case .quit: "quit"
        case .next: "next"
        case .stopped: "signal"
        case .playerDied: "player-died"
        case .failed: "failed"
        }
    }

    /// An episode that could not be played.
    static func cannotPlay(_ entry: EpisodeEntry, _ failure: PlayerFailure) -> String {
        "cannot play episode \(entry.number) (\(entry.episode.title)): \(PlayerWords.failure(failure)); its saved position is unchanged"
    }

    /// The player went away while playing.
    static func playerDied(_ end: ListeningEnd) -> String {
        "mpv stopped unexpectedly" + (end.position.map { "; the position was saved at \(Format.duration(seconds: Int($0)))" } ?? "")
    }
}
