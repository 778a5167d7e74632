import ArgumentParser
import Foundation
import Synchronization

/// Turns Ctrl-C, SIGTERM and SIGHUP (the terminal closed) into an orderly stop: the first signal runs `onSignal` (which
/// should stop the work so that `body` returns); a second one exits at once. A command ended by a
/// signal exits 128 + its number, as a shell reports a process the signal killed.
enum SignalGuard {
    struct Outcome<Value> {
        var value: Value
        /// The first signal that arrived, if any.
        var signal: Int32?

        /// Whether a signal arrived.
        var interrupted: Bool { signal != nil }

        /// 128 + the signal's number (SIGINT 130, SIGTERM 143, SIGHUP 129), when one arrived.
        var exitCode: ExitCode? { signal.map { ExitCode(128 + $0) } }
    }

    /// Runs `body` in a task of its own that the first signal cancels; then throws the
    /// signal's exit code, if one arrived.
    static func runCancelling<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = Task { try await body() }
        let outcome = try await run(onSignal: { task.cancel() }) {
            await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        }
        // Whatever the cancelled work threw, the signal is why it ended.
        if let code = outcome.exitCode { throw code }
        return try outcome.value.get()
    }

    static func run<Value>(
        onSignal: @escaping @Sendable () async -> Void,
        _ body: () async throws -> Value
    ) async throws -> Outcome<Value> {
        let received = SignalCount()
        let numbers = [SIGINT, SIGTERM, SIGHUP]
        // What each signal did before, put back afterwards (ignored still, in a guard around this one).
        let previous = numbers.map { signal($0, SIG_IGN) }
        let sources = numbers.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if received.record(number) > 1 { exit(128 + number) }
                Task { await onSignal() }
            }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            for (number, handler) in zip(numbers, previous) { signal(number, handler) }
        }
        let value = try await body()
        return Outcome(value: value, signal: received.first)
    }
}

/// How many signals arrived and which came first, shared with the signal handlers.
private final class SignalCount: Sendable {
    private let state = Mutex((count: 0, first: Int32?.none))

    /// Counts `number`; returns how many signals have arrived.
    func record(_ number: Int32) -> Int {
        state.withLock { state in
            state.count += 1
            if state.first == nil { state.first = number }
            return state.count
        }
    }

    var first: Int32? { state.withLock { $0.first } }
}
