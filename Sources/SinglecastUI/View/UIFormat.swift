import Foundation
import SinglecastKit

/// How the UI writes times, dates, sizes and speeds.
enum UIFormat {
    /// `1:02:03`, `42:07` or `0:05`.
    static func duration(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.isFinite ? seconds : 0))
        let hours = total / 3600
        let minutes = total / 60 % 60
        let rest = total % 60
        return hours > 0
            ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }

    /// `2024-07-03`, in UTC as the feed's date is stored.
    static func date(_ date: Date) -> String {
        UTCDay(date).description
    }

    /// `300 kB`, `1.2 MB` (decimal units, as the command line's tables).
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }

    /// `1.5×`, `1×`.
    static func speed(_ speed: Double) -> String {
        let rounded = (speed * 100).rounded() / 100
        return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + "×"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
