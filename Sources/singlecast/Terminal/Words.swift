import SinglecastKit

/// The sentences for the values the library returns: one place for each wording.
enum Words {
    /// `queued #3: Title`, `already downloaded: PATH`, …
    static func claim(_ claim: DownloadClaim) -> String {
        switch claim {
        case .claimed(let download): "queued #\(download.id): \(download.episodeTitle)"
        case .alreadyDownloaded(let download): alreadyDownloaded(download)
        case .ownedElsewhere(let download): ownedElsewhere(download)
        }
    }

    static func alreadyDownloaded(_ download: Download) -> String {
        "already downloaded: \(download.file)"
    }

    static func ownedElsewhere(_ download: Download) -> String {
        let percent = download.fractionCompleted.map { " (\(Int($0 * 100))%)" } ?? ""
        let owner = download.owner.map { String($0.processID) } ?? "?"
        return "already being downloaded by process \(owner): \(download.episodeTitle)\(percent)"
    }

    /// `paused #3 Title`, `#3 Title is completed, not paused`, …
    static func outcome(_ outcome: ControlOutcome) -> String {
        switch outcome {
        case .paused(let download): "paused #\(download.id) \(download.episodeTitle)"
        case .cancelled(let download): "cancelled #\(download.id) \(download.episodeTitle)"
        case .resumed(let resumed): Self.claim(resumed)
        case .refused(let download, let refusal): "#\(download.id) \(download.episodeTitle) " + refused(refusal)
        case .unknown(let id): "no download has id \(id)"
        }
    }

    static func refused(_ refusal: DownloadLifecycle.Refusal) -> String {
        let state = refusal.state.rawValue
        switch refusal.event {
        case .pause: return "is \(state), not paused"
        case .cancel: return "is \(state), nothing to cancel"
        case .claim: return "is \(state), nothing to resume"
        default: return "is \(state)"
        }
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
            return "\(source) ends early at line \(warning.line)\(inside); the episodes before it were kept"
        }
    }

    /// `ok`, `not modified`, `moved to URL`, `gone (410)`, or the error.
    static func status(_ status: UpdateStatus) -> String {
        switch status {
        case .ok: "ok"
        case .notModified: "not modified"
        case .moved(_, let to): "moved to \(to.redactingURLPasswords)"
        case .gone: "gone (the server answered 410: no longer fetched)"
        case .failed(let message): message
        }
    }
}
