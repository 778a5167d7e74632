import Foundation
import Synchronization

/// Turns Ctrl-C, SIGTERM and SIGHUP (the terminal closed) into an orderly stop: the first signal runs `onSignal` (which
/// should stop the work so that `body` returns); a second one exits at once.
enum SignalGuard {
    struct Outcome<Value> {
        var value: Value
        /// Whether a signal arrived.
        var interrupted: Bool
    }

    static func run<Value>(
        onSignal: @escaping @Sendable () async -> Void,
        _ body: () async throws -> Value
    ) async throws -> Outcome<Value> {
        let received = SignalCount()
        let sources = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if received.increment() > 1 { exit(130) }
                Task { await onSignal() }
            }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
            signal(SIGHUP, SIG_DFL)
        }
        let value = try await body()
        return Outcome(value: value, interrupted: received.value > 0)
    }
}

/// How many signals arrived, shared with the signal handlers.
private final class SignalCount: Sendable {
    private let count = Mutex(0)

    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}
