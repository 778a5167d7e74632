/// The UI's clock: seconds since the UI started, on a clock that never jumps.
struct UIClock: Sendable {
    private let origin = ContinuousClock.now

    var now: Double {
        let elapsed = origin.duration(to: ContinuousClock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
