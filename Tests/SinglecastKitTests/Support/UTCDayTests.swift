import Foundation
import Testing

@testable import SinglecastKit

@Suite struct UTCDayTests {
    /// Foundation's Gregorian calendar in UTC: what the arithmetic must agree with.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    @Test func everyDayFrom1900To2200AgreesWithFoundationsCalendar() {
        // Noon of each day, and the last second before midnight: a day's two ends.
        let first = Self.calendar.date(from: DateComponents(year: 1900, month: 1, day: 1))!
        var mismatches: [String] = []
        for offset in 0..<(300 * 366) {
            for second in [12 * 3600.0, 86_399.5] {
                let date = first.addingTimeInterval(Double(offset) * 86_400 + second)
                let parts = Self.calendar.dateComponents([.year, .month, .day], from: date)
                let day = UTCDay(date)
                if [day.year, day.month, day.day] != [parts.year, parts.month, parts.day] {
                    mismatches.append("\(date): \(day)")
                }
            }
            let parts = Self.calendar.dateComponents([.year, .month, .day], from: first.addingTimeInterval(Double(offset) * 86_400))
            let day = UTCDay(year: parts.year!, month: parts.month!, day: parts.day!)
            if Double(day.daysSince1970) * 86_400 != first.addingTimeInterval(Double(offset) * 86_400).timeIntervalSince1970 {
                mismatches.append("days of \(day)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func writesTheDayAsISO8601() {
        #expect(UTCDay(Date(timeIntervalSince1970: 0)).description == "1970-01-01")
        #expect(UTCDay(Date(timeIntervalSince1970: -1)).description == "1969-12-31")
        #expect(UTCDay(year: 2024, month: 2, day: 29).description == "2024-02-29")
        #expect(UTCDay(year: 812, month: 7, day: 3).description == "0812-07-03")
        #expect(UTCDay(year: 2000, month: 3, day: 1).daysSince1970 == 11_017)
    }
}
