import Foundation

/// When a timed update runs. The systemd timer wakes `singlecast update --if-due` every
/// ``wakeInterval`` (and after boot for a wake missed while the machine was off); the update runs
/// only once `[update] every` has passed since the last timed update the library recorded, so a
/// change of `every` in the config file takes effect at the next wake, without reinstalling the timer.
public struct UpdateSchedule: Sendable, Equatable {
    /// How often the timer wakes: its `OnCalendar=*:0/15`, the finest `every` can be.
    public static let wakeInterval: Duration = .seconds(15 * 60)

    /// The time between timed updates.
    public var every: Duration

    public init(every: Duration) {
        self.every = every
    }

    /// Once an hour, when the config file says nothing.
    public static let hourly = UpdateSchedule(every: .seconds(3600))

    /// `every` as the config file writes it: `hourly`, `daily`, `weekly`, or a duration
    /// (`30m`, `6h`, `2d`, or seconds); nil for anything else.
    public init?(every text: String) {
        let words: [String: Duration] = ["hourly": Self.hourly.every, "daily": .seconds(86_400), "weekly": .seconds(7 * 86_400)]
        guard let every = words[text.trimmingCharacters(in: .whitespaces).lowercased()] ?? DurationText.parse(text) else { return nil }
        self.every = every
    }

    /// Whether a timed update is due at `now`, the last one having started at `last` (nil: none
    /// yet). A wake up to half a wake early counts: the timer's wakes drift by its accuracy, and an
    /// hourly update must not wait for the wake after the hour. A last update in the future (the
    /// clock was set back) makes one due.
    public func isDue(now: Date, last: Date?) -> Bool {
        guard let last else { return true }
        let elapsed = now.timeIntervalSince(last)
        guard elapsed >= 0 else { return true }
        let slack = Double(Self.wakeInterval.components.seconds) / 2
        return elapsed >= Double(every.components.seconds) - slack
    }

    /// Whether a timed update whose feeds ended so counts as the last one, so that the next waits
    /// `every`: unless every feed failed (the network was away), when the next wake tries again.
    public static func counts(_ statuses: [UpdateStatus]) -> Bool {
        statuses.isEmpty || statuses.contains { if case .failed = $0 { false } else { true } }
    }
}
