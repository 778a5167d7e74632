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
