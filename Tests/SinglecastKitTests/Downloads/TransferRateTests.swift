import Foundation
import Testing

@testable import SinglecastKit

/// Honest speed: a sliding window, and a stall after three seconds without a byte.
@Suite struct TransferRateTests {
    let start = ContinuousClock.now

    @Test func speedIsMeasuredOverTheLastFewSeconds() {
        var rate = TransferRate<ContinuousClock.Instant>()
        // 10 MB/s for ten seconds, then 1 MB/s: the window forgets the fast part.
        for tenth in 0...100 { rate.add(Int64(tenth) * 1_000_000, at: start + .milliseconds(tenth * 100)) }
        #expect(abs(rate.bytesPerSecond(at: start + .seconds(10)) - 10_000_000) < 500_000)
        for tenth in 1...80 { rate.add(100_000_000 + Int64(tenth) * 100_000, at: start + .seconds(10) + .milliseconds(tenth * 100)) }
        #expect(abs(rate.bytesPerSecond(at: start + .seconds(18)) - 1_000_000) < 100_000)
    }

    @Test func nothingForMoreThanThreeSecondsIsAStall() {
        var rate = TransferRate<ContinuousClock.Instant>()
        rate.add(0, at: start)
        rate.add(1_000_000, at: start + .seconds(1))
        #expect(!rate.isStalled(at: start + .seconds(3)))
        // Progress reports with no new bytes do not count as bytes.
        rate.add(1_000_000, at: start + .seconds(3))
        #expect(!rate.isStalled(at: start + .seconds(4)))
        #expect(rate.isStalled(at: start + .milliseconds(4100)))
        #expect(rate.bytesPerSecond(at: start + .milliseconds(4100)) == 0)
        rate.add(1_100_000, at: start + .seconds(5))
        #expect(!rate.isStalled(at: start + .seconds(5)))
    }

    @Test func aDownloadShowsASpeedOnlyWhileItRuns() {
        let now = Date()
        var download = Download(
            id: 1, enclosureURL: "http://h/a.mp3", state: .downloading, receivedBytes: 1_000, expectedBytes: 11_000,
            file: "/tmp/a.mp3", podcastTitle: "P", episodeTitle: "E", bytesPerSecond: 1_000, updatedAt: now)
        #expect(download.currentBytesPerSecond(at: now) == 1_000)
        #expect(download.secondsLeft(at: now) == 10)
        #expect(!download.isStalled(at: now))
        // Its owner has not saved progress for a while: stalled, no speed, no time left.
        #expect(download.isStalled(at: now + 3.5))
        #expect(download.currentBytesPerSecond(at: now + 3.5) == nil)
        #expect(download.secondsLeft(at: now + 3.5) == nil)
        for state in DownloadState.allCases where state != .downloading {
            download.state = state
            #expect(download.currentBytesPerSecond(at: now) == nil, "\(state)")
            #expect(download.secondsLeft(at: now) == nil, "\(state)")
            #expect(!download.isStalled(at: now + 10), "\(state)")
        }
    }
}
