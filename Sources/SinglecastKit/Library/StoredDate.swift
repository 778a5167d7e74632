import Foundation
import GRDB

/// Reads and writes the dates GRDB stores as UTC text, `yyyy-MM-dd HH:mm:ss.SSS`, by
/// arithmetic: GRDB reads them back through Foundation's `Calendar`, some microseconds a date,
/// and `podcasts` reads three a subscription; it writes them with a `DateFormatter`, whose
/// first use loads ICU's data (a millisecond or two of a feed's commit). Any other shape (a
/// number, another text) is left to GRDB.
enum StoredDate {
    /// The text GRDB would store for `date`, to the nearest millisecond (GRDB's formatter,
    /// ICU, counts the days before October 1582 in the Julian calendar; no date the library
    /// writes is that old).
    static func databaseValue(_ date: Date) -> DatabaseValue {
        // Half a millisecond rounds up, as in GRDB's text (negative dates too).
        let milliseconds = Int((date.timeIntervalSince1970 * 1_000 + 0.5).rounded(.down))
        let (seconds, millisecond) = floorDivision(milliseconds, 1_000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        var text = Array(UTCDay(Date(timeIntervalSince1970: Double(days) * 86_400)).description.utf8)
        text.append(UInt8(ascii: " "))
        append(secondOfDay / 3_600, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: "."))
        append(millisecond, digits: 3, to: &text)
        return String(decoding: text, as: UTF8.self).databaseValue
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Appends `value` (not negative) with at least `digits` digits, zeros first.
    private static func append(_ value: Int, digits: Int, to text: inout [UInt8]) {
        let written = String(value).utf8
        text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, digits - written.count)))
        text.append(contentsOf: written)
    }

    /// The date `value` holds; nil for NULL.
    static func read(_ value: DatabaseValue) -> Date? {
        guard case .string(var text) = value.storage else { return Date.fromDatabaseValue(value) }
        return text.withUTF8(parse) ?? Date.fromDatabaseValue(value)
    }

    /// `yyyy-MM-dd HH:mm:ss` with `.SSS` or without, `T` or a space between day and time.
    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 19 || text.count == 23,
            text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            text[10] == UInt8(ascii: " ") || text[10] == UInt8(ascii: "T"),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            text.count == 19 || text[19] == UInt8(ascii: "."),
            let year = number(text, 0, 4), let month = number(text, 5, 2), let day = number(text, 8, 2),
            let hour = number(text, 11, 2), let minute = number(text, 14, 2), let second = number(text, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds = 0
        if text.count == 23 {
            guard let value = number(text, 20, 3) else { return nil }
            milliseconds = value
        }
        let days = UTCDay(year: year, month: month, day: day).daysSince1970
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1_000)
    }

    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for byte in text[start..<start + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
