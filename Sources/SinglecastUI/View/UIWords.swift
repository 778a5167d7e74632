import Foundation
import SinglecastKit
import SinglecastWords

/// Every sentence the terminal UI shows (the library composes none).
enum UIWords {
    static let tooSmall = "The window is too small: make it at least 60×15."
    static let refreshed = "Refreshed."
    static let noURL = "Nothing selected has a URL."
    static let sleepTimerPaused = "Sleep timer: paused."
    static let nothingNextInQueue = "Nothing to play next in the queue."

    static func queued(_ title: String, _ addition: QueueAddition) -> String {
        switch addition {
        case .added(let number): "Added \(TerminalText.sanitized(title)) to the queue (\(number))."
        case .alreadyQueued(let number): "\(TerminalText.sanitized(title)) is in the queue already (\(number))."
        }
    }

    static func queueCleared(count: Int) -> String {
        count == 0 ? "The queue was empty." : "Cleared the queue (\(count) episode\(count == 1 ? "" : "s"))."
    }

    static func refreshing(count: Int) -> String {
        "Refreshing \(count) podcast\(count == 1 ? "" : "s")…"
    }

    static func searching(_ term: String) -> String { "Searching the directory for “\(term)”…" }
    static func noResults(_ term: String) -> String { "Nothing found for “\(term)”." }
    static func subscribed(_ title: String) -> String { "Subscribed to \(TerminalText.sanitized(title))." }
    static func unsubscribed(_ title: String) -> String { "Unsubscribed from \(title); its files are kept." }
    static func stillSubscribed(_ title: String) -> String { "Still subscribed to \(title)." }
    static func noAudio(_ title: String) -> String { "\(TerminalText.sanitized(title)) has no audio file." }
    static func noFeed(_ title: String) -> String { "\(TerminalText.sanitized(title)) has no feed to subscribe to." }

    static func downloadQueued(_ title: String, toDaemon: Bool) -> String {
        "Downloading \(TerminalText.sanitized(title))" + (toDaemon ? " in the background daemon." : ".")
    }

    static func fileDeleted(_ title: String, deleted: Bool) -> String {
        deleted
            ? "Deleted the file of \(TerminalText.sanitized(title))."
            : "\(TerminalText.sanitized(title)) has no downloaded file."
    }

    static func sleepTimer(_ timer: SleepTimer) -> String {
        switch timer {
        case .off: "Sleep timer off."
        case .after(let minutes, _): "Sleep timer: pausing in \(minutes) minutes."
        case .endOfEpisode: "Sleep timer: pausing at the end of the episode."
        }
    }

    /// The line after playing ended.
    static func ended(_ title: String, _ end: ListeningEnd) -> StatusLine? {
        switch end.reason {
        case .end: StatusLine("Finished \(title).")
        case .quit, .next, .stopped: nil
        case .playerDied:
            StatusLine(
                "mpv stopped unexpectedly" + (end.position.map { "; the position is saved at \(UIFormat.duration($0))" } ?? "")
                    + ".", isFailure: true)
        case .failed(let failure):
            StatusLine("Cannot play \(title): \(TerminalText.sanitized(PlayerWords.failure(failure))); its saved position is unchanged.", isFailure: true)
        }
    }

    /// An action that failed, and why as far as the UI can say it in a line.
    static func failure(_ action: UIAction, _ error: any Error) -> String {
        let what: String
        switch action {
        case .play(let title): what = "Cannot play \(TerminalText.sanitized(title))"
        case .control: what = "The player did not answer"
        case .download(let title): what = "Cannot download \(TerminalText.sanitized(title))"
        case .delete(let title): what = "Cannot delete the file of \(TerminalText.sanitized(title))"
        case .mark(let title): what = "Cannot mark \(TerminalText.sanitized(title))"
        case .queue: what = "Cannot change the queue"
        case .refresh: what = "The refresh failed"
        case .subscribe(let url): what = "Cannot subscribe to \(TerminalText.sanitized(url.redactingURLPasswords))"
        case .unsubscribe(let title): what = "Cannot unsubscribe from \(title)"
        case .search(let term): what = "The directory search for “\(TerminalText.sanitized(term))” failed"
        case .read: what = "Cannot read the library"
        }
        return "\(what): \(reason(error))."
    }

    /// Why, for the failures the UI meets most; the others by their value's name.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case PlayerError.playerNotFound:
            "mpv was not found on PATH: install it (sudo apt install mpv), or set SINGLECAST_PLAYER to a player's path"
        case PlayerError.configuredPlayerMissing(let path):
            "SINGLECAST_PLAYER names \(path), which does not exist or cannot be run"
        case ListeningError.noAudio: "it has no audio file"
        default: TerminalText.sanitized(String(describing: error).redactingURLPasswords)
        }
    }
}
