import Synchronization

/// A value that is set once and that tasks can wait for, with a time limit or without.
final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var nextTicket = 0
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// The value, once set.
    var value: Value? { state.withLock { $0.value } }

    /// Sets the value and wakes those waiting; a second call changes nothing. Returns whether
    /// this call set it.
    @discardableResult
    func set(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// Waits for the value; nil when it was not set within `timeout` (nil: no limit).
    func wait(timeout: Duration? = nil) async -> Value? {
        await withCheckedContinuation { continuation in
            let ticket = state.withLock { state -> Int? in
                guard state.value == nil else { return nil }
                state.nextTicket += 1
                state.waiters[state.nextTicket] = continuation
                return state.nextTicket
            }
            guard let ticket else {
                continuation.resume(returning: value)
                return
            }
            guard let timeout else { return }
            Task {
                try? await Task.sleep(for: timeout)
                self.state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume(returning: nil)
            }
        }
    }
}
