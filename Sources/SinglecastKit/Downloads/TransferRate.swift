/// A transfer's speed over a sliding window of the last few seconds, from (time, bytes)
/// samples, and whether it has stalled: no byte for more than ``stallTime``.
public struct TransferRate: Sendable {
    /// How far back the speed looks.
    public static let window: Duration = .seconds(5)
    /// How long without a byte makes a transfer stalled.
    public static let stallTime: Duration = .seconds(3)

    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []
    private var lastByte: ContinuousClock.Instant?

    public init() {}

    /// Records that `bytes` were on disk at `time`.
    public mutating func add(_ bytes: Int64, at time: ContinuousClock.Instant) {
        if let last = samples.last {
            if bytes > last.bytes { lastByte = time }
        } else {
            lastByte = time
        }
        samples.append((time, bytes))
        while samples.count > 2, let first = samples.first, time - first.time > Self.window {
            samples.removeFirst()
        }
    }

    /// Whether no byte arrived for more than ``stallTime`` before `now`.
    public func isStalled(at now: ContinuousClock.Instant) -> Bool {
        guard let lastByte else { return false }
        return now - lastByte > Self.stallTime
    }

    /// Bytes per second over the window ending at `now`; zero when stalled or not yet measured.
    public func bytesPerSecond(at now: ContinuousClock.Instant) -> Double {
        guard !isStalled(at: now), let first = samples.first, let last = samples.last else { return 0 }
        let seconds = (now - first.time).inSeconds
        return seconds > 0.2 ? Double(last.bytes - first.bytes) / seconds : 0
    }
}
