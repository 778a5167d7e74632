import Synchronization

/// A value that is set once and that tasks can wait for, with a time limit or without.
final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var nextTicket = 0
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        /// The tasks that end a timed wait, cancelled once the value is set.
        var timers: [Int: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// The value, once set.
    var value: Value? { state.withLock { $0.value } }

    /// Sets the value and wakes those waiting; a second call changes nothing. Returns whether
    /// this call set it.
    @discardableResult
    func set(_ value: Value) -> Bool {
        let woken = state.withLock { state -> ([CheckedContinuation<Value?, Never>], [Task<Void, Never>])? in
            guard state.value == nil else { return nil }
            state.value = value
            defer {
                state.waiters = [:]
                state.timers = [:]
            }
            return (Array(state.waiters.values), Array(state.timers.values))
        }
        guard let (waiters, timers) = woken else { return false }
        for timer in timers { timer.cancel() }
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
            let timer = Task {
                try? await Task.sleep(for: timeout)
                let waiter = self.state.withLock { state in
                    state.timers[ticket] = nil
                    return state.waiters.removeValue(forKey: ticket)
                }
                waiter?.resume(returning: nil)
            }
            state.withLock { state in
                if state.waiters[ticket] != nil { state.timers[ticket] = timer } else { timer.cancel() }
            }
        }
    }
}
