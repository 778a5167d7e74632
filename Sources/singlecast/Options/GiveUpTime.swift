import Foundation
import ArgumentParser
import SinglecastKit

/// How long a download waits for the network without receiving a byte before it stops:
/// `--give-up-after`, else `SINGLECAST_GIVE_UP_AFTER`, else the caller's default.
enum GiveUpTime {
    static let environmentName = "SINGLECAST_GIVE_UP_AFTER"

    /// `90`, `90s`, `10m`, `24h` or `2d`; nil when the text is none of these or not positive.
    static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, seconds: Double)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        let unit = units.first { trimmed.hasSuffix($0.suffix) }
        let number = unit.map { String(trimmed.dropLast($0.suffix.count)) } ?? trimmed
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return .milliseconds(Int64((value * (unit?.seconds ?? 1) * 1000).rounded()))
    }

    /// The give-up time `option` or the environment sets, else `fallback`.
    /// Throws a `ValidationError` naming the option or the variable when it cannot be read.
    static func resolve(option: String?, environment: [String: String], fallback: Duration) throws -> Duration {
        if let option {
            guard let duration = parse(option) else {
                throw ValidationError("--give-up-after must be a duration such as 90s, 10m or 24h, not \u{201C}\(option)\u{201D}.")
            }
            return duration
        }
        if let text = environment[environmentName], !text.isEmpty {
            guard let duration = parse(text) else {
                throw ValidationError("\(environmentName) must be a duration such as 90s, 10m or 24h, not \u{201C}\(text)\u{201D}.")
            }
            return duration
        }
        return fallback
    }
}
