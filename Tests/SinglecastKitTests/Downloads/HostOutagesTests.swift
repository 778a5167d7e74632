import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

/// The retry schedule and the outages shared by the downloads to one host.
@Suite struct HostOutagesTests {
    let policy = FileTransfer.RetryPolicy(baseDelay: .seconds(1), growth: 1.4, maxDelay: .seconds(300), jitter: 0.2)

    @Test func delaysGrowToFiveMinutesAtMost() {
        #expect(policy.delay(beforeRetry: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 2) == .milliseconds(1400))
        #expect(policy.delay(beforeRetry: 3) == .milliseconds(1960))
        #expect(policy.delay(beforeRetry: 30) == .seconds(300))
        #expect(policy.delay(beforeRetry: 10_000) == .seconds(300))
    }

    @Test func jitterOnlyShortensAWaitByItsFraction() {
        #expect(policy.delay(beforeRetry: 1, random: 0.5) == .milliseconds(900))
        #expect(policy.delay(beforeRetry: 30, random: 0.999_999) > .seconds(240))
        #expect(policy.delay(beforeRetry: 30, random: 0.999_999) < .seconds(300))
    }

    @Test func aTwoMinuteOutageIsNoticedWithinAMinute() {
        // The tries of one host during a two-minute outage: the first after the server's
        // return comes less than a minute later.
        var elapsed = Duration.zero
        var retry = 0
        while elapsed < .seconds(120) {
            retry += 1
            elapsed += policy.delay(beforeRetry: retry)
        }
        #expect(elapsed - .seconds(120) < .seconds(60))
    }

    @Test func theDownloadsOfAHostShareItsNextTry() {
        let outages = HostOutages(random: { 0 })
        let first = outages.failed(host: "a:80", reason: .connectionRefused, retryAfter: nil, policy: policy)
        let second = outages.failed(host: "a:80", reason: .connectionRefused, retryAfter: nil, policy: policy)
        #expect(second == first)
        #expect(outages.pendingTry(host: "a:80")?.at == first)
        #expect(outages.pendingTry(host: "a:80")?.reason == .connectionRefused)
        #expect(outages.pendingTry(host: "b:80") == nil)
        outages.recovered(host: "a:80")
        #expect(outages.pendingTry(host: "a:80") == nil)
    }

    @Test func retryAfterPushesTheNextTryBackUpToTheLongestWait() {
        let outages = HostOutages(clock: TestClock(), random: { 0 })
        let now = outages.clock.now
        let minute = outages.failed(host: "a:80", reason: .http(503), retryAfter: .seconds(60), policy: policy)
        #expect(minute - now == .seconds(60))
        let capped = outages.failed(host: "b:80", reason: .http(503), retryAfter: .seconds(3600), policy: policy)
        #expect(capped - now == .seconds(300))
        #expect(outages.pendingTry(host: "a:80")?.reason == .http(503))
    }

    @Test func aFailureAfterThePlannedTryWaitsLonger() async throws {
        let short = FileTransfer.RetryPolicy(baseDelay: .milliseconds(20), growth: 2, jitter: 0)
        let clock = TestClock()
        let outages = HostOutages(clock: clock, random: { 0 })
        let first = outages.failed(host: "a:80", reason: .connectionRefused, retryAfter: nil, policy: short)
        #expect(first - outages.clock.now == .milliseconds(20))
        let waiting = Task { try await outages.wait(host: "a:80", until: first) }
        await clock.advance(by: .milliseconds(20))
        try await waiting.value
        let second = outages.failed(host: "a:80", reason: .connectionRefused, retryAfter: nil, policy: short)
        #expect(second - first == .milliseconds(40))
    }

    @Test func tryNowEndsTheWaitsOfItsHostOnly() async throws {
        // A clock that never moves: only a try-now can end these waits.
        let outages = HostOutages(clock: TestClock())
        let far = outages.clock.now + .seconds(60)
        let done = DoneFlag()
        let woken = Task {
            try await outages.wait(host: "a:80", until: far)
            done.set()
        }
        let other = Task { try await outages.wait(host: "b:80", until: far) }
        // Asked until the wait has begun and ended.
        try await waitUntil {
            outages.tryNow(host: "a:80")
            return done.isSet
        }
        try await woken.value
        // The other host's wait goes on until it is cancelled.
        other.cancel()
        await #expect(throws: CancellationError.self) { try await other.value }
    }

    @Test func retryReasonsComeFromTheFailure() {
        let url = URL(string: "http://h/ep.mp3")!
        func reason(_ http: HTTPError.Reason) -> RetryReason {
            DownloadError(.http(HTTPError(http, url: url)), url: url).retryReason
        }
        #expect(reason(.unreachable(.system(errno: ECONNREFUSED))) == .connectionRefused)
        #expect(reason(.unreachable(.system(errno: ECONNRESET))) == .connectionLost)
        #expect(reason(.unreachable(.nameResolution(code: EAI_NONAME))) == .hostNotFound)
        #expect(reason(.connectTimeout) == .connectTimeout)
        #expect(reason(.readTimeout) == .readTimeout)
        #expect(reason(.status(503)) == .http(503))
        #expect(RetryReason.http(429).httpStatus == 429)
        #expect(DownloadError(.incomplete(received: 1, expected: 2), url: url).retryReason == .connectionLost)
    }
}

/// A flag one task sets and another reads.
final class DoneFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
