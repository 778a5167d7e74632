import Foundation

/// The one home of the rules that move a download between its states.
///
/// ``transition(from:on:)`` is a pure function: every component that changes a download's
/// state (the ownership rules, the engine, pause/resume/cancel, the rebuild at launch) asks it
/// and stores the answer, so a rule changes in one place. Beside it, ``ownerIsGone(_:)``: when
/// a download under way has nobody working on it.
public enum DownloadLifecycle {
    /// Something that happens to a download.
    public enum Event: String, CaseIterable, Sendable {
        /// A process asks to download it (a first request, a request by episode, a resume).
        case claim
        /// The user asks for a stopped download to go on: one paused, interrupted, failed, or
        /// waiting to retry (which then tries at once). A download never begun, cancelled or
        /// deleted is over; only asking for its episode again starts it.
        case resume
        /// Its owner's transfer begins or makes progress.
        case transfer
        /// The file is whole and in place.
        case complete
        /// A try failed transiently: the owner waits for the next one.
        case retryLater
        /// The transfer failed for good.
        case fail
        /// The user pauses it; the partial file is kept.
        case pause
        /// The user cancels it; the partial file is removed.
        case cancel
        /// Its owner stopped (Ctrl-C, shutdown) or died; the partial file is kept.
        case interrupt
        /// A complete file was found at its path.
        case fileFound
        /// Its complete file is gone, and no partial file is left.
        case fileLost
        /// Its complete file is gone, but a partial file is left to resume from.
        case fileLostKeepingPart
        /// Its file (or partial file) was deleted on purpose, by the user or by retention.
        case delete
    }

    /// Why an event does not apply to a download in a given state.
    public struct Refusal: Error, Equatable, Sendable {
        /// The state the download is in.
        public var state: DownloadState
        /// The event refused.
        public var event: Event
    }

    /// The state a download in `state` moves to on `event`, or a refusal.
    public static func transition(from state: DownloadState, on event: Event) -> Result<DownloadState, Refusal> {
        let refused = Result<DownloadState, Refusal>.failure(Refusal(state: state, event: event))
        switch (event, state) {
        // A retrying download may be claimed: a resume asks for a try at once.
        case (.claim, .notStarted), (.claim, .paused), (.claim, .cancelled), (.claim, .interrupted), (.claim, .error),
            (.claim, .retrying), (.claim, .deleted):
            return .success(.waiting)
        case (.resume, .paused), (.resume, .interrupted), (.resume, .error), (.resume, .retrying):
            return .success(.waiting)
        case (.claim, _), (.resume, _):
            return refused
        case (.transfer, .waiting), (.transfer, .downloading), (.transfer, .retrying):
            return .success(.downloading)
        case (.retryLater, .waiting), (.retryLater, .downloading), (.retryLater, .retrying):
            return .success(.retrying)
        case (.complete, .waiting), (.complete, .downloading), (.complete, .retrying):
            return .success(.completed)
        case (.fail, .waiting), (.fail, .downloading), (.fail, .retrying):
            return .success(.error)
        case (.interrupt, .waiting), (.interrupt, .downloading), (.interrupt, .retrying):
            return .success(.interrupted)
        case (.transfer, _), (.retryLater, _), (.complete, _), (.fail, _), (.interrupt, _):
            return refused
        case (.pause, .notStarted), (.pause, .waiting), (.pause, .downloading), (.pause, .retrying), (.pause, .interrupted):
            return .success(.paused)
        case (.pause, _):
            return refused
        case (.cancel, .completed), (.cancel, .cancelled), (.cancel, .deleted):
            return refused
        case (.cancel, _):
            return .success(.cancelled)
        case (.fileFound, .completed):
            return refused
        case (.fileFound, _):
            return .success(.completed)
        case (.fileLost, .completed):
            return .success(.notStarted)
        case (.fileLostKeepingPart, .completed):
            return .success(.interrupted)
        case (.fileLost, _), (.fileLostKeepingPart, _):
            return refused
        case (.delete, .waiting), (.delete, .downloading), (.delete, .retrying), (.delete, .deleted):
            return refused
        case (.delete, _):
            return .success(.deleted)
        }
    }

    /// Whether a download in `state` still has bytes to fetch that it may fetch: not complete,
    /// not cancelled and not deleted (the `downloads` total counts these as unfinished).
    public static func isUnfinished(_ state: DownloadState) -> Bool {
        state != .completed && state != .cancelled && state != .deleted
    }

    /// Whether a download in `state` has (or may have) a process working on it.
    public static func isUnderWay(_ state: DownloadState) -> Bool {
        state == .waiting || state == .downloading || state == .retrying
    }
}

// MARK: - Applying an event

extension DownloadLifecycle {
    /// Moves `download` on `event` when the lifecycle allows it (see ``enter(_:_:)``); returns
    /// false, leaving it unchanged, when it refuses.
    @discardableResult
    public static func apply(_ event: Event, to download: inout Download) -> Bool {
        guard case .success(let state) = transition(from: download.state, on: event) else { return false }
        enter(state, &download)
        return true
    }

    /// Puts `download` in `state`, which ``transition(from:on:)`` gave, now: the owner is
    /// released once it is no longer under way, a speed is kept only while downloading and a
    /// next try only while retrying.
    static func enter(_ state: DownloadState, _ download: inout Download) {
        download.state = state
        if !isUnderWay(state) { download.owner = nil }
        if state != .downloading { download.bytesPerSecond = nil }
        if state != .retrying {
            download.retryReason = nil
            download.nextTryAt = nil
        }
        download.updatedAt = Date()
    }
}

// MARK: - A dead owner

extension DownloadLifecycle {
    /// The dead-owner rule: a download under way whose owner is gone (none is recorded, or its
    /// process no longer runs) has nobody working on it, and ``Event/interrupt`` applies to it;
    /// until then, nobody else may claim it. False for a download not under way.
    public static func ownerIsGone(_ download: Download) -> Bool {
        isUnderWay(download.state) && download.owner?.isAlive != true
    }
}

extension DownloadOwner {
    /// This process.
    public static let current = DownloadOwner(processID: getpid(), startTime: ProcessIdentity.startTime(of: getpid()))

    /// Whether the owner still runs: a process with its id exists and, where the start time
    /// is known, started at that time.
    public var isAlive: Bool {
        guard kill(processID, 0) == 0 || errno == EPERM else { return false }
        guard let startTime else { return true }
        return ProcessIdentity.startTime(of: processID).map { $0 == startTime } ?? true
    }
}

/// Reads what identifies a process beyond its id.
enum ProcessIdentity {
    /// Field 22 of `/proc/PID/stat` (the start time in clock ticks since boot); nil where there
    /// is no `/proc` or the process is gone.
    static func startTime(of processID: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
            let closing = stat.lastIndex(of: ")")
        else { return nil }
        // The command name (field 2) may hold spaces and parentheses: count fields after its end.
        let fields = stat[stat.index(after: closing)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
