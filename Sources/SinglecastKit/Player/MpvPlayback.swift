import Foundation

/// What mpv has said about one playback, and the ``PlayerEvent``s its messages mean: a pure
/// state machine, fed every message read from the IPC socket, asked for the ``PlaybackEnd``
/// once the process is gone.
struct MpvPlayback: Sendable, Equatable {
    /// The properties ``MpvSession`` observes; their changes arrive as
    /// ``MpvMessage/propertyChange(name:value:)``. mpv sends the changes it has gathered in this
    /// order, so the length and the chapters come before the first position: a start that waits
    /// for its position (see `playback-restart`) then knows them.
    static let observedProperties = ["duration", "chapter-list", "time-pos", "pause", "speed", "chapter"]

    struct EndFile: Sendable, Equatable {
        /// `eof`, `stop`, `quit` or `error`.
        var reason: String
        var fileError: String?
    }

    /// The request offers a next episode: mpv has ``MpvPlayer/nextEntry`` after the file.
    let offersNext: Bool
    private(set) var started = false
    private(set) var position: Double?
    private(set) var duration: Double?
    private(set) var paused = false
    private(set) var speed: Double?
    private(set) var chapters: [PlaybackChapter] = []
    private(set) var chapter: Int?
    /// mpv's `end-file`, once it came (a `redirect` does not count: another file follows).
    private(set) var endFile: EndFile?
    private(set) var shutDown = false
    /// mpv began another entry after the file stopped: the listener's "next" (playlist-next).
    private(set) var movedToNext = false
    /// mpv went idle after the file ended (its `stop` command, which empties the playlist).
    private var idleAfterEnd = false
    /// ``PlaybackSession/stop()`` was called before the file ended.
    private(set) var stopRequested = false
    /// A `seek` event came and its `playback-restart` has not.
    private var seeking = false
    /// The file's first `playback-restart` came before the `time-pos` it restarted at.
    private var awaitingStartPosition = false
    /// Whether mpv reported a `time-pos` since the file was loaded or last seeked.
    private var positionSinceSeek = false
    /// Playing restarted after a seek, and mpv has not reported the new `time-pos` yet (it may
    /// come before or after `playback-restart`): ``PlayerEvent/seeked(_:)`` waits for it.
    private var awaitingSeekPosition = false
    /// The last error lines mpv logged, and the HTTP status one of them named.
    private(set) var errorMessages: [String] = []
    private(set) var httpStatus: Int?

    init(offersNext: Bool = false) {
        self.offersNext = offersNext
    }

    /// Whether the file is over and mpv can be told to quit: once it ended, but a stop of a file
    /// followed by a next entry waits to learn whether mpv moves on to that entry (a "next") or
    /// goes idle.
    var isOver: Bool {
        guard let endFile else { return false }
        return !(offersNext && endFile.reason == "stop") || movedToNext || idleAfterEnd
    }

    /// Takes in one message; returns the events it means, in order.
    mutating func handle(_ message: MpvMessage) -> [PlayerEvent] {
        switch message {
        case .reply:
            return []
        case .propertyChange(let name, let value):
            return propertyChanged(name, value)
        case .event("playback-restart"):
            guard endFile == nil else { return [] }
            if !started && !awaitingStartPosition {
                seeking = false
                // The position where playing begins: reported already, or (on a busy machine,
                // where mpv's property changes lag its events) with the next time-pos, by which
                // time the length has come too when there is one.
                if positionSinceSeek, duration != nil { return start(at: position ?? 0) }
                awaitingStartPosition = true
                return []
            }
            guard started else { return [] }
            guard seeking else { return [] }
            seeking = false
            if positionSinceSeek { return [.seeked(position ?? 0)] }
            awaitingSeekPosition = true
            return []
        case .event("seek"), .event("file-loaded"):
            if case .event("seek") = message { seeking = true }
            positionSinceSeek = false
            return []
        case .event("shutdown"):
            shutDown = true
            return []
        case .event("start-file"):
            if offersNext, endFile?.reason == "stop" { movedToNext = true }
            return []
        case .event("idle"):
            if endFile != nil { idleAfterEnd = true }
            return []
        case .event:
            return []
        case .endFile(let reason, let fileError):
            guard reason != "redirect", endFile == nil else { return [] }
            endFile = EndFile(reason: reason, fileError: fileError)
            guard started, seeking || awaitingSeekPosition else { return [] }
            // A seek near the end: its position may have come before mpv's seek event, or not
            // at all before the end of the file. It ends at the last position mpv reported.
            seeking = false
            awaitingSeekPosition = false
            return [.seeked(position ?? 0)]
        case .log(let level, _, let text):
            logged(level: level, text: text)
            return []
        }
    }

    /// Sound began at `position`: the start, and the chapter playing.
    private mutating func start(at position: Double) -> [PlayerEvent] {
        started = true
        awaitingStartPosition = false
        var events: [PlayerEvent] = [.started(position: position, duration: duration)]
        if let event = chapterEvent() { events.append(event) }
        return events
    }

    /// The stream's server answered with `status` (asked after mpv failed to load it).
    mutating func learnedHTTPStatus(_ status: Int) {
        httpStatus = status
    }

    /// ``PlaybackSession/stop()`` was called; it counts unless the file had already ended.
    mutating func requestStop() {
        if endFile == nil { stopRequested = true }
    }

    /// How the playback ended, once mpv's process is gone.
    func end() -> PlaybackEnd {
        PlaybackEnd(position: position, duration: duration, reason: endReason())
    }

    private func endReason() -> PlaybackEnd.Reason {
        guard let endFile else {
            if stopRequested { return .stopped }
            return shutDown ? .quit : .playerDied
        }
        switch endFile.reason {
        case "eof": return .endOfFile
        case "error": return .failed(failure(fileError: endFile.fileError))
        default: return stopRequested ? .stopped : movedToNext ? .next : .quit  // "quit", "stop"
        }
    }

    private func failure(fileError: String?) -> PlayerFailure {
        let kind: PlayerFailure.Kind
        if let httpStatus {
            kind = .httpStatus(httpStatus)
        } else {
            switch fileError {
            case "unrecognized file format", "no audio or video data played", "nothing to play":
                kind = .notAudio
            case "loading failed":
                kind = .loadingFailed
            case "audio output initialization failed":
                kind = .audioOutputFailed
            default:
                kind = .other
            }
        }
        return PlayerFailure(kind: kind, playerError: fileError, messages: errorMessages)
    }

    private mutating func propertyChanged(_ name: String, _ value: MpvValue?) -> [PlayerEvent] {
        switch name {
        case "time-pos":
            guard let seconds = value?.double else { return [] }
            position = seconds
            positionSinceSeek = true
            guard endFile == nil else { return [] }
            if awaitingStartPosition { return start(at: seconds) }
            guard started else { return [] }
            if awaitingSeekPosition {
                awaitingSeekPosition = false
                return [.seeked(seconds)]
            }
            return [.position(seconds)]
        case "duration":
            if let seconds = value?.double { duration = seconds }
            return []
        case "pause":
            guard let now = value?.bool, now != paused else { return [] }
            paused = now
            guard started, endFile == nil else { return [] }
            return [now ? .paused(position ?? 0) : .resumed(position ?? 0)]
        case "speed":
            guard let now = value?.double, now != speed else { return [] }
            let before = speed
            speed = now
            return started && before != nil && endFile == nil ? [.speedChanged(now)] : []
        case "chapter-list":
            guard case .array(let list) = value else { return [] }
            chapters = list.map { PlaybackChapter(title: $0["title"]?.string ?? "", start: $0["time"]?.double ?? 0) }
            return []
        case "chapter":
            let now = value?.double.map { Int($0) }
            guard now != chapter else { return [] }
            chapter = now
            guard started, endFile == nil, let event = chapterEvent() else { return [] }
            return [event]
        default:
            return []
        }
    }

    private func chapterEvent() -> PlayerEvent? {
        guard let chapter, chapters.indices.contains(chapter) else { return nil }
        let title = chapters[chapter].title
        return .chapter(index: chapter, title: title.isEmpty ? nil : title, start: chapters[chapter].start)
    }

    /// Keeps error lines (at most the last 10), and the status of ffmpeg's
    /// `HTTP error 404 Not Found` warning.
    private mutating func logged(level: String, text: String) {
        // The next entry's lines are not the file's.
        guard !movedToNext else { return }
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines).redactingURLPasswords
        if let match = line.firstMatch(of: #/HTTP error (\d{3})/#), let status = Int(match.output.1) {
            httpStatus = status
            errorMessages.append(line)
        } else if level == "error" || level == "fatal" {
            errorMessages.append(line)
        }
        if errorMessages.count > 10 { errorMessages.removeFirst(errorMessages.count - 10) }
    }
}
