import Foundation

/// The rules of remembering where a listener stopped, in one place: how often a position is
/// saved while playing, where playing resumes, and what counts as heard to the end.
public enum ListeningRules {
    /// A position is saved at least this often while playing (so a killed process loses at
    /// most this much), besides at once on a pause, a seek, a speed change and the end.
    public static let saveInterval: Duration = .seconds(4)

    /// Playing resumes this far before the saved position, to pick up the thread.
    public static let resumeLead: Double = 5

    /// Stopping within this many seconds of the end counts as heard to the end…
    public static let finishWindow: Double = 30
    /// …and so does stopping within this fraction of the end.
    public static let finishFraction: Double = 0.02

    /// Where to start an episode: `requested` when the listener asked for a place; the
    /// beginning for a played episode or one never heard; else a little before where it stopped.
    public static func startPosition(for playback: Playback, requested: Double? = nil) -> Double {
        if let requested { return max(0, requested) }
        guard !playback.isPlayed, let position = playback.position else { return 0 }
        return startPosition(forMomentAt: position)
    }

    /// Where to start playing at a moment of an episode (where it stopped, or where `find`
    /// matched words in its transcript): a little before it, to pick up the thread.
    public static func startPosition(forMomentAt moment: Double) -> Double {
        max(0, moment - resumeLead)
    }

    /// Whether stopping at `position` of an episode `duration` long is hearing it to the end.
    public static func isFinished(position: Double, duration: Double?) -> Bool {
        guard let duration, duration > 0 else { return false }
        return position >= duration - finishWindow || position >= duration * (1 - finishFraction)
    }

    /// Whether listening that ended so takes its episode out of the queue: it was heard to its
    /// end (the finish rule marked it played). A stop before the end keeps it queued.
    public static func leavesQueue(after end: ListeningEnd) -> Bool {
        end.played && end.position != nil
    }

    /// Whether the queue's next episode starts after listening ended so: when the audio played to
    /// its end, or the listener asked the player for the next; never after a stop, a quit or a failure.
    public static func startsNextInQueue(after end: ListeningEnd) -> Bool {
        end.reason == .end || end.reason == .next
    }

    /// Whether a position is due to be saved, `elapsed` after the last save (nil: none yet).
    public static func isSaveDue(elapsed: Duration?) -> Bool {
        guard let elapsed else { return true }
        return elapsed >= saveInterval
    }
}
