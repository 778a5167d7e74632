/// A transfer's speed over a sliding window of the last few seconds, from (time, bytes)
/// samples, and whether it has stalled: no byte for more than ``stallTime``. Its instants are
/// those of the clock the caller keeps time with.
public struct TransferRate<Instant: InstantProtocol<Duration>>: Sendable {
    /// How far back the speed looks.
    public static var window: Duration { .seconds(5) }
    /// How long without a byte makes a transfer stalled.
    public static var stallTime: Duration { .seconds(3) }

    private var samples: [(time: Instant, bytes: Int64)] = []
    private var lastByte: Instant?

    public init() {}

    /// Records that `bytes` were on disk at `time`.
    public mutating func add(_ bytes: Int64, at time: Instant) {
        if let last = samples.last {
            if bytes > last.bytes { lastByte = time }
        } else {
            lastByte = time
        }
        samples.append((time, bytes))
        while samples.count > 2, let first = samples.first, first.time.duration(to: time) > Self.window {
            samples.removeFirst()
        }
    }

    /// Whether no byte arrived for more than ``stallTime`` before `now`.
    public func isStalled(at now: Instant) -> Bool {
        guard let lastByte else { return false }
        return lastByte.duration(to: now) > Self.stallTime
    }

    /// Bytes per second over the window ending at `now`; zero when stalled or not yet measured.
    public func bytesPerSecond(at now: Instant) -> Double {
        guard !isStalled(at: now), let first = samples.first, let last = samples.last else { return 0 }
        let seconds = first.time.duration(to: now).inSeconds
        return seconds > 0.2 ? Double(last.bytes - first.bytes) / seconds : 0
    }
}
