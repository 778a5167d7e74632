import Foundation
import GRDB

/// Reads the dates GRDB stored as UTC text, `yyyy-MM-dd HH:mm:ss.SSS`, by arithmetic: GRDB
/// reads them back through Foundation's `Calendar`, some microseconds a date, and `podcasts`
/// reads three a subscription. Any other shape (a number, another text) is left to GRDB.
enum StoredDate {
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
