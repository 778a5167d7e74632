import Foundation

/// A duration as a person types it: `90`, `90s`, `10m`, `24h` or `2d`.
public enum DurationText {
    /// The duration `text` names; nil when it is none of these forms or not positive.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, seconds: Double)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        let unit = units.first { trimmed.hasSuffix($0.suffix) }
        let number = unit.map { String(trimmed.dropLast($0.suffix.count)) } ?? trimmed
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return .milliseconds(Int64((value * (unit?.seconds ?? 1) * 1000).rounded()))
    }
}
