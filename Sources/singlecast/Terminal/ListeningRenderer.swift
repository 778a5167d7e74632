import Foundation
import SinglecastKit
import SinglecastWords

/// Shows what happens while an episode plays: a line per event, or with `--json` one JSON
/// object per line on standard output (and nothing else there).
struct ListeningRenderer {
    var json: Bool
    var episode: ChosenEpisode
    var source: EpisodeListening.Source

    /// One line of `play --json`.
    private struct Line: Encodable {
        var event: String
        var episode: Int?
        var title: String?
        var podcast: String?
        var source: String?
        var position: Double?
        var duration: Double?
        var speed: Double?
        var start: Double?
        var played: Bool?
        var reason: String?
        var error: String?
    }

    /// Shows `event`; an end `stoppedBySleepTimer` says so (`sleep` as its JSON reason).
    func render(_ event: ListeningEvent, stoppedBySleepTimer: Bool = false) {
        let bySleepTimer: Bool
        if case .ended(let end) = event, end.reason == .stopped, stoppedBySleepTimer { bySleepTimer = true } else { bySleepTimer = false }
        if json {
            var line = line(event)
            if bySleepTimer { line.reason = "sleep" }
            printJSONLine(line)
        } else if let text = text(event) {
            printNow(bySleepTimer ? "sleep timer: \(text)" : text)
        }
    }

    private func line(_ event: ListeningEvent) -> Line {
        switch event {
        case .started(let position, let duration, let speed):
            let source: String =
                switch self.source {
                case .file(let path): path
                case .stream(let url): url.removingUserInfo.absoluteString
                }
            return Line(
                event: "started", episode: episode.entry.number, title: episode.entry.episode.title,
                podcast: episode.podcast.podcast.title, source: source, position: position, duration: duration, speed: speed)
        case .position(let position): return Line(event: "position", position: position)
        case .paused(let position): return Line(event: "paused", position: position)
        case .resumed(let position): return Line(event: "resumed", position: position)
        case .speedChanged(let speed): return Line(event: "speed", speed: speed)
        case .chapter(let title, let start): return Line(event: "chapter", title: title, start: start)
        case .ended(let end):
            var line = Line(event: "ended", position: end.position, played: end.played, reason: Words.reason(end.reason))
            if case .failed(let failure) = end.reason { line.error = PlayerWords.failure(failure) }
            return line
        }
    }

    private func text(_ event: ListeningEvent) -> String? {
        let duration = episode.entry.episode.duration.map(Double.init)
        switch event {
        case .started(let position, let known, let speed):
            let speedText = speed == 1 ? "" : " at \(Words.speed(speed))"
            return "playing: \(episode.podcast.podcast.title): \(episode.entry.episode.title) from "
                + Words.position(position, of: known ?? duration) + speedText
        case .chapter(let title, _):
            return title.map { "chapter: \($0)" }
        case .ended(let end):
            switch end.reason {
            case .failed: return nil
            default:
                if end.played { return "played to the end: marked played" }
                return end.position.map { "stopped at \(Words.position($0, of: end.duration ?? duration))" }
            }
        case .position, .paused, .resumed, .speedChanged:
            return nil
        }
    }
}
