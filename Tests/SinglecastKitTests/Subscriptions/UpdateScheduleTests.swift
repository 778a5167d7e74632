import Foundation
import Testing

@testable import SinglecastKit

@Suite struct UpdateScheduleTests {
    @Test(arguments: [
        ("hourly", 3600), ("daily", 86_400), ("weekly", 604_800), (" Daily ", 86_400), ("30m", 1800), ("6h", 21_600),
        ("2d", 172_800), ("90", 90),
    ])
    func everyIsAWordOrADuration(text: String, seconds: Int64) {
        #expect(UpdateSchedule(every: text)?.every == .seconds(seconds))
    }

    @Test(arguments: ["", "soon", "*:0/30", "-1h", "0m", "hourly!", "1 hour"])
    func anythingElseIsNoEvery(text: String) {
        #expect(UpdateSchedule(every: text) == nil)
    }

    static let last = Date(timeIntervalSince1970: 1_750_000_000)

    /// Minutes since the last timed update, and whether the next is due.
    @Test(arguments: [
        ("hourly", 0.0, false), ("hourly", 52.0, false), ("hourly", 53.0, true), ("hourly", 59.9, true), ("hourly", 60.0, true),
        ("hourly", 600.0, true), ("daily", 1380.0, false), ("daily", 1435.0, true), ("30m", 15.0, false), ("30m", 29.0, true),
        ("5m", 0.0, true), ("hourly", -10.0, true),
    ])
    func dueOnceEveryHasPassedLessHalfAWake(every: String, minutes: Double, due: Bool) throws {
        let schedule = try #require(UpdateSchedule(every: every))
        #expect(schedule.isDue(now: Self.last.addingTimeInterval(minutes * 60), last: Self.last) == due)
    }

    @Test func theFirstTimedUpdateIsDue() {
        #expect(UpdateSchedule.hourly.isDue(now: Self.last, last: nil))
    }

    @Test func anUpdateCountsUnlessEveryFeedFailed() {
        let failed = UpdateStatus.failed(UpdateFailure.stored("connection refused"))
        #expect(UpdateSchedule.counts([]))
        #expect(UpdateSchedule.counts([.notModified, failed]))
        #expect(UpdateSchedule.counts([.ok]))
        #expect(!UpdateSchedule.counts([failed, failed]))
    }

    @Test func theLibraryKeepsTheLastTimedUpdate() async throws {
        let library = try Library.inMemory()
        #expect(try await library.lastTimedUpdate() == nil)
        try await library.recordTimedUpdate(at: Self.last)
        #expect(try await library.lastTimedUpdate() == Self.last)
    }
}
