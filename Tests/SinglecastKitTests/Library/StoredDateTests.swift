import Foundation
import GRDB
import Testing

@testable import SinglecastKit

@Suite struct StoredDateTests {
    @Test(arguments: [
        "2026-11-27 03:58:42.123", "1999-12-31 23:59:59.999", "2024-02-29 00:00:00.000", "1969-07-20 20:17:40.000",
        "2026-11-27 03:58:42", "2026-11-27T03:58:42.500",
    ])
    func readsWhatGRDBReadsFromItsOwnText(_ text: String) throws {
        let grdb = try #require(Date.fromDatabaseValue(text.databaseValue))
        let read = try #require(StoredDate.read(text.databaseValue))
        #expect(abs(read.timeIntervalSince1970 - grdb.timeIntervalSince1970) < 1e-6)
    }

    @Test func aDateGRDBWroteComesBackToTheMillisecond() throws {
        let date = Date(timeIntervalSince1970: 1_764_215_922.123)
        let read = try #require(StoredDate.read(date.databaseValue))
        #expect(abs(read.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001)
    }

    /// The text written for a date is GRDB's, to the nearest millisecond: dates around every
    /// boundary a digit or a day turns at, before 1970 too, and thousands of random ones. (Not
    /// before October 1582, whose days ICU counts in the Julian calendar.)
    @Test func writesWhatGRDBWrites() {
        var dates = [
            0, -0.0005, -0.001, -1, -86_400, 0.0005, 0.999, 0.9999, 1_764_215_922.123, 1_764_215_922.1239,
            951_782_399.999, 951_782_400, 4_102_444_800, -2_208_988_800.5, -12_219_292_800,
        ].map(Date.init(timeIntervalSince1970:))
        var generator = SeededRandom(seed: 25)
        for _ in 0..<20_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: -3e9...5e9, using: &generator)))
        }
        dates.append(Date())
        let differing = dates.filter { StoredDate.databaseValue($0) != $0.databaseValue }
        let shown = differing.prefix(3).map { ($0.timeIntervalSince1970, StoredDate.databaseValue($0), $0.databaseValue) }
        #expect(differing.isEmpty, "\(shown)")
    }

    @Test func leavesOtherShapesToGRDB() {
        // A number of seconds, a day alone, minutes without seconds: GRDB's own readings.
        #expect(StoredDate.read(1_000.5.databaseValue) == Date(timeIntervalSince1970: 1_000.5))
        #expect(StoredDate.read("2024-06-01".databaseValue) == Date.fromDatabaseValue("2024-06-01".databaseValue))
        #expect(StoredDate.read("2024-06-01 10:20".databaseValue) == Date.fromDatabaseValue("2024-06-01 10:20".databaseValue))
        #expect(StoredDate.read(DatabaseValue.null) == nil)
        #expect(StoredDate.read("not a date".databaseValue) == nil)
        // Out of range: not read as some other day.
        #expect(StoredDate.read("2024-13-01 00:00:00.000".databaseValue) == Date.fromDatabaseValue("2024-13-01 00:00:00.000".databaseValue))
    }
}
