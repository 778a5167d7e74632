import Testing
import TestSupport

@testable import SinglecastKit

/// When a transfer's progress is reported and saved, on a clock the test advances.
@Suite struct ProgressThrottleTests {
    @Test func reportsTenTimesASecondAndSavesTwiceASecond() async {
        let testClock = TestClock()
        let clock = ErasedClock(testClock)
        var throttle = ProgressThrottle(now: clock.now)
        var reports = 0
        var saves = 0
        // A chunk every 10 ms for one second.
        for chunk in 1...100 {
            await testClock.advance(by: .milliseconds(10))
            let due = throttle.due(at: clock.now, receivedBytes: Int64(chunk) * 10_000)
            if due.report { reports += 1 }
            if due.save {
                saves += 1
                #expect(abs((due.bytesPerSecond ?? 0) - 1_000_000) < 1)
            }
            #expect(!due.resumed)
        }
        #expect(reports == 10)  // the first chunk (at 10 ms), then one every 100 ms
        #expect(saves == 2)  // at 0.5 s and at 1 s
    }

    @Test func theFirstProgressAfterAWaitIsSavedAndReportedAsAResume() async {
        let testClock = TestClock()
        let clock = ErasedClock(testClock)
        var throttle = ProgressThrottle(now: clock.now)
        _ = throttle.due(at: clock.now, receivedBytes: 1_000)
        throttle.waitForRetry()
        await testClock.advance(by: .milliseconds(1))
        let due = throttle.due(at: clock.now, receivedBytes: 2_000)
        #expect(due.resumed && due.report && due.save)
        #expect(due.bytesPerSecond == nil, "the speed is measured afresh")
    }
}
