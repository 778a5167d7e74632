import Foundation

/// Any clock measured in `Duration`, given as `any Clock<Duration>`, with instants that compare
/// and subtract: each is the time passed on that clock since this value was made.
///
/// The download rules keep time with one of these so that tests can hand them a clock they
/// advance themselves; production passes `ContinuousClock()`.
struct ErasedClock: Clock {
    struct Instant: InstantProtocol {
        /// Time passed on the clock since the ``ErasedClock`` was made.
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        static func + (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: rhs) }
        static func - (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: .zero - rhs) }
        static func - (lhs: Instant, rhs: Instant) -> Duration { rhs.duration(to: lhs) }
    }

    private let read: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration, Duration?) async throws -> Void
    let minimumResolution: Duration
    /// The wall-clock time of the clock's start, from which instants are dated.
    private let wallClockStart: Date

    /// A clock reading `clock`, whose start is dated `wallClockStart`.
    init(_ clock: some Clock<Duration>, wallClockStart: Date = Date()) {
        self.wallClockStart = wallClockStart
        let start = clock.now
        read = { start.duration(to: clock.now) }
        sleeper = { offset, tolerance in try await clock.sleep(until: start.advanced(by: offset), tolerance: tolerance) }
        minimumResolution = clock.minimumResolution
    }

    var now: Instant { Instant(offset: read()) }

    /// The wall-clock time of `instant` (a next try shown to the user, say), as the clock counts it.
    func date(of instant: Instant) -> Date {
        wallClockStart.addingTimeInterval(instant.offset.inSeconds)
    }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleeper(deadline.offset, tolerance)
    }
}
