import Testing

/// Waits until `condition` holds, checking it every few milliseconds: the one way a test waits
/// for something another task, thread or process does.
///
/// `timeout` only bounds the wait, so that a condition that never comes fails the test instead
/// of hanging it; it is no measure of speed (that lives in `Benchmarks/`), so it is generous.
/// Past it the failure is recorded at the caller and ``WaitTimedOut`` is thrown.
public func waitUntil(
    timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition still false after \(timeout)", sourceLocation: sourceLocation)
            throw WaitTimedOut()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// What ``waitUntil(timeout:sourceLocation:_:)`` throws when its condition never held.
public struct WaitTimedOut: Error {}
