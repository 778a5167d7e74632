/// The one home of the rules that move a download between its states.
///
/// ``transition(from:on:)`` is a pure function: every component that changes a download's
/// state (the ownership rules, the engine, pause/resume/cancel, the rebuild at launch) asks it
/// and stores the answer, so a rule changes in one place.
public enum DownloadLifecycle {
    /// Something that happens to a download.
    public enum Event: String, CaseIterable, Sendable {
        /// A process asks to download it (a first request or a resume).
        case claim
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
            (.claim, .retrying):
            return .success(.waiting)
        case (.claim, _):
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
        case (.cancel, .completed), (.cancel, .cancelled):
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
        }
    }

    /// Whether a download in `state` has (or may have) a process working on it.
    public static func isUnderWay(_ state: DownloadState) -> Bool {
        state == .waiting || state == .downloading || state == .retrying
    }
}
