import Foundation
import Synchronization

/// Why a download waits for its next try: a short code the caller words
/// (`connection-refused`, `http-503`, …), stored with the download.
public struct RetryReason: RawRepresentable, Hashable, Codable, Sendable {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let connectionRefused = RetryReason(rawValue: "connection-refused")
    public static let connectionLost = RetryReason(rawValue: "connection-lost")
    public static let hostNotFound = RetryReason(rawValue: "host-not-found")
    public static let connectTimeout = RetryReason(rawValue: "connect-timeout")
    public static let readTimeout = RetryReason(rawValue: "read-timeout")
    public static let tlsHandshake = RetryReason(rawValue: "tls-handshake")
    public static let unreachable = RetryReason(rawValue: "unreachable")

    /// The server answered with this (transient) status.
    public static func http(_ status: Int) -> RetryReason {
        RetryReason(rawValue: "http-\(status)")
    }

    /// The status of an `http-NNN` reason.
    public var httpStatus: Int? {
        rawValue.hasPrefix("http-") ? Int(rawValue.dropFirst("http-".count)) : nil
    }
}

/// What a transfer reports when a transient failure makes it wait for its next try.
public struct RetryWait: Equatable, Sendable {
    public var reason: RetryReason
    /// When the next try starts (unless a resume asks for one sooner).
    public var nextTry: Date
    /// The bytes on disk, which the next try resumes from.
    public var receivedBytes: Int64
}

/// The outages of hosts, shared by every transfer of a ``FileTransfer``: when one download to a
/// host fails transiently, the others to that host wait for the same next try instead of each
/// finding out alone, and a resume can end every wait for the host at once.
///
/// Time is kept by the clock it is given (tests pass one they advance), and the transfers that
/// share it keep theirs by the same clock.
public final class HostOutages: Sendable {
    private struct Outage {
        /// Failed tries in a row of the host.
        var failures: Int
        var nextTry: ErasedClock.Instant
        var reason: RetryReason
    }

    private struct State {
        var outages: [String: Outage] = [:]
        var waits: [ObjectIdentifier: (host: String, wait: Wakeable)] = [:]
    }

    private let state = Mutex(State())
    private let random: @Sendable () -> Double
    /// The clock every outage and wait is timed by.
    let clock: ErasedClock

    /// - Parameters:
    ///   - clock: what waits are timed by.
    ///   - wallClockStart: the date of the clock's start, which next tries are dated from.
    ///   - random: a number in 0..<1 for each wait's jitter (tests pass a fixed one).
    public init(
        clock: any Clock<Duration> = ContinuousClock(), wallClockStart: Date = Date(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.clock = ErasedClock(clock, wallClockStart: wallClockStart)
        self.random = random
    }

    /// What outages are kept by: a URL's host and port (two servers on one machine are two hosts).
    public static func host(of url: URL) -> String {
        let host = url.host(percentEncoded: false) ?? ""
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// The next try of `host`, while it is in an outage whose next try is still to come.
    func pendingTry(host: String) -> (at: ErasedClock.Instant, reason: RetryReason)? {
        let now = clock.now
        return state.withLock { state in
            guard let outage = state.outages[host], outage.nextTry > now else { return nil }
            return (outage.nextTry, outage.reason)
        }
    }

    /// Records a transient failure of a try to `host` and returns the time of the host's next
    /// try: the one already planned when another download found the outage first, else one
    /// `policy` spaces after the host's earlier failures (later if the server asked for it).
    func failed(host: String, reason: RetryReason, retryAfter: Duration?, policy: FileTransfer.RetryPolicy)
        -> ErasedClock.Instant
    {
        let now = clock.now
        let random = self.random()
        return state.withLock { state in
            var outage = state.outages[host] ?? Outage(failures: 0, nextTry: now, reason: reason)
            if outage.nextTry <= now {
                outage.failures += 1
                outage.nextTry = now + policy.delay(beforeRetry: outage.failures, random: random)
            }
            if let retryAfter {
                outage.nextTry = max(outage.nextTry, now + min(max(retryAfter, .zero), policy.maxDelay))
            }
            outage.reason = reason
            state.outages[host] = outage
            return outage.nextTry
        }
    }

    /// Bytes arrived from `host`: its outage is over.
    func recovered(host: String) {
        state.withLock { state in _ = state.outages.removeValue(forKey: host) }
    }

    /// Ends every wait for `host` now (a resume asked for a try at once).
    public func tryNow(host: String) {
        let now = clock.now
        let woken = state.withLock { state -> [Wakeable] in
            state.outages[host]?.nextTry = now
            return state.waits.values.filter { $0.host == host }.map(\.wait)
        }
        for wait in woken { wait.wake() }
    }

    /// Waits until `deadline`, or until ``tryNow(host:)`` for `host`.
    /// Throws `CancellationError` when the task is cancelled.
    func wait(host: String, until deadline: ErasedClock.Instant) async throws {
        let wait = Wakeable()
        let key = ObjectIdentifier(wait)
        state.withLock { $0.waits[key] = (host, wait) }
        defer { _ = state.withLock { $0.waits.removeValue(forKey: key) } }
        let timer = Task { [clock] in
            try? await clock.sleep(until: deadline)
            wait.wake()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await wait.sleep()
        } onCancel: {
            wait.wake()
        }
        try Task.checkCancellation()
    }
}

/// One sleeper that any thread can wake, once; waking before the sleep starts ends it at once.
private final class Wakeable: Sendable {
    private struct State {
        var woken = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func sleep() async {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Bool in
                if state.woken { return true }
                state.continuation = continuation
                return false
            }
            if already { continuation.resume() }
        }
    }

    func wake() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.woken else { return nil }
            state.woken = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}
