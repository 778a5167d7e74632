import Foundation

/// Something that plays an episode: ``MpvPlayer`` in Singlecast, a stand-in in tests of a
/// front end.
public protocol Player: Sendable {
    /// Starts playing `request`. The session's ``PlaybackSession/events`` end with
    /// ``PlayerEvent/ended(_:)``, also when the episode cannot be played (see ``PlayerFailure``).
    /// Throws a ``PlayerError`` when the player itself cannot be started.
    func play(_ request: PlaybackRequest) async throws -> any PlaybackSession
}

/// One episode being played.
///
/// Whatever way it ends, the player's process is gone once ``events`` has delivered
/// ``PlayerEvent/ended(_:)``. Cancelling the task that iterates ``events`` stops the playback
/// as ``stop()`` does; a session nobody stops plays to its end.
public protocol PlaybackSession: Sendable {
    /// What happens while playing, ending with ``PlayerEvent/ended(_:)``. Iterate it once.
    var events: AsyncStream<PlayerEvent> { get }
    /// Jumps to `seconds` from the start; ``PlayerEvent/seeked(_:)`` follows once playing resumes there.
    func seek(to seconds: Double) async throws
    /// Pauses or resumes; ``PlayerEvent/paused(_:)`` or ``PlayerEvent/resumed(_:)`` follows.
    func setPaused(_ paused: Bool) async throws
    /// Changes the speed (within ``PlaybackRequest/speeds``); ``PlayerEvent/speedChanged(_:)`` follows.
    func setSpeed(_ speed: Double) async throws
    /// The position in seconds as the player has it now; nil before it is known.
    func currentPosition() async -> Double?
    /// Stops playing: asks the player to quit, waits for it to exit (killing it when it has
    /// not after about 2 seconds), and returns once ``PlayerEvent/ended(_:)`` has been emitted,
    /// with ``PlaybackEnd/Reason/stopped`` unless the playback had already ended otherwise.
    func stop() async
}

/// What to play, and how.
public struct PlaybackRequest: Sendable, Equatable {
    /// Where the audio comes from.
    public enum Source: Sendable, Equatable {
        /// A file on disk, by path.
        case file(String)
        /// An `http(s)` URL. User name and password in it (or the netrc entry for its host)
        /// are sent to the server, but never shown on the player's command line.
        case stream(URL)
    }

    /// The speeds a player accepts.
    public static let speeds: ClosedRange<Double> = 0.25...4

    public var source: Source
    /// Seconds from the start of the audio to begin at.
    public var start: Double
    /// 1 is normal; within ``speeds``. The pitch is kept.
    public var speed: Double
    /// What the player shows as the title (on its status line, in the desktop's media controls).
    public var title: String?
    /// The episode's chapters, in order; the player's chapter keys jump between them.
    /// Empty: the audio's own chapters, if any.
    public var chapters: [PlaybackChapter]
    /// True when the user is at a terminal (standard input is one): the player's own keys work
    /// (space, arrows, `q`, chapter keys). False: the player reads no keys.
    public var interactive: Bool
    /// Whether the player offers a next episode: its "next" (the desktop's Next media key and
    /// control, through MPRIS; mpv's `>` key) then ends the playback with
    /// ``PlaybackEnd/Reason/next``. False: "next" does nothing.
    public var offersNext: Bool

    public init(
        source: Source, start: Double = 0, speed: Double = 1, title: String? = nil,
        chapters: [PlaybackChapter] = [], interactive: Bool = false, offersNext: Bool = false
    ) {
        self.offersNext = offersNext
        self.source = source
        self.start = start
        self.speed = speed
        self.title = title
        self.chapters = chapters
        self.interactive = interactive
    }
}

/// A chapter: its title and where it starts.
public struct PlaybackChapter: Sendable, Equatable, Hashable {
    public var title: String
    /// Seconds from the start of the audio.
    public var start: Double

    public init(title: String, start: Double) {
        self.title = title
        self.start = start
    }
}

/// What happens while an episode plays. Positions are seconds of audio from its start.
public enum PlayerEvent: Sendable, Equatable {
    /// Sound began: the first event of a playback that works. `duration` is nil while unknown
    /// (some streams).
    case started(position: Double, duration: Double?)
    /// The position as the player reports it, several times a second while playing: a consumer
    /// that saves or shows it chooses its own pace.
    case position(Double)
    case paused(Double)
    case resumed(Double)
    /// Playing resumed at this position after a seek (by ``PlaybackSession/seek(to:)`` or the user's keys).
    case seeked(Double)
    case speedChanged(Double)
    /// The chapter playing now (also right after ``started(position:duration:)``); `index` counts from 0.
    case chapter(index: Int, title: String?, start: Double)
    /// The last event: the player's process is gone.
    case ended(PlaybackEnd)
}

/// How a playback ended.
public struct PlaybackEnd: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The audio played to its end.
        case endOfFile
        /// The user quit the player (its `q` key, closing it).
        case quit
        /// The user asked for the next episode (see ``PlaybackRequest/offersNext``).
        case next
        /// ``PlaybackSession/stop()`` was called, or the consumer stopped listening to the events.
        case stopped
        /// The player's process exited without saying why (it crashed, or was killed).
        case playerDied
        /// The audio could not be played. A file or stream that cannot be opened or is not audio
        /// ends so before any ``PlayerEvent/started(position:duration:)``; an audio output that
        /// cannot be opened (``PlayerFailure/Kind/audioOutputFailed``) may end so just after it.
        case failed(PlayerFailure)
    }

    /// The last position the player reported; nil when none was.
    public var position: Double?
    /// The length of the audio; nil when the player did not know it.
    public var duration: Double?
    public var reason: Reason

    public init(position: Double?, duration: Double?, reason: Reason) {
        self.position = position
        self.duration = duration
        self.reason = reason
    }
}

/// Why the player could not play the audio.
public struct PlayerFailure: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The data is not audio the player knows (an HTML page, a text file), or holds no audio track.
        case notAudio
        /// The server answered with this HTTP status (401, 403, 404, …).
        case httpStatus(Int)
        /// The file or URL could not be opened (missing file, refused connection, …).
        case loadingFailed
        /// The player could not open an audio output.
        case audioOutputFailed
        /// Another reason: see ``PlayerFailure/playerError`` and ``PlayerFailure/messages``.
        case other
    }

    public var kind: Kind
    /// The player's own name for the error (mpv's `file_error`, such as `"unrecognized file format"`).
    public var playerError: String?
    /// The player's error messages about it, URL passwords hidden.
    public var messages: [String]

    public init(kind: Kind, playerError: String? = nil, messages: [String] = []) {
        self.kind = kind
        self.playerError = playerError
        self.messages = messages
    }
}
