import ArgumentParser
import SinglecastKit

/// When `play --sleep` stops playing: after a while (`15m`, `1h`, `90s`), or at the end of the
/// episode (`end`).
enum SleepTimer: Equatable, ExpressibleByArgument {
    case after(Duration)
    case endOfEpisode

    init?(argument: String) {
        if argument.lowercased() == "end" {
            self = .endOfEpisode
        } else if let duration = DurationText.parse(argument) {
            self = .after(duration)
        } else {
            return nil
        }
    }

    static var defaultValueDescription: String { "15m, 1h, 90s or end" }
}
