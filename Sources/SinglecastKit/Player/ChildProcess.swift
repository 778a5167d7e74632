import CSpawn
import Foundation
import Synchronization

/// How a child process ended.
enum ChildExit: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)

    /// As a shell shows it: the exit code, or 128 + the signal.
    var status: Int32 {
        switch self {
        case .exited(let code): return code
        case .signaled(let signal): return 128 + signal
        }
    }
}

/// A child process that cannot outlive this one.
///
/// A thread of its own forks it, with `PR_SET_PDEATHSIG` set to `SIGKILL` (see `CSpawn`), and
/// then waits for it. The death signal is sent when the *thread* that forked exits, so that
/// thread lives exactly as long as the child; it also reaps it, and keeps the blocking
/// `waitid` off the threads that run Swift tasks.
final class ChildProcess: Sendable {
    /// Where the child's descriptors 0, 1 and 2 come from (descriptors of this process).
    struct Descriptors: Sendable {
        var input: Int32
        var output: Int32
        var error: Int32
    }

    let pid: pid_t

    /// Set (under the lock) when the child has been reaped: its id may then be another's.
    private let reaped = Mutex(false)
    private let exited = Latch<ChildExit>()

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// How many times a start is tried while the program file is busy, and the pause between
    /// tries (microseconds).
    private static let busyAttempts = 20
    private static let busyPause: useconds_t = 25_000

    /// Starts `path` with `arguments` (the program name first) and exactly `environment`.
    /// Returns once the program runs (`execve` succeeded); throws the `errno` of a failure.
    static func start(
        path: String, arguments: [String], environment: [String: String], descriptors: Descriptors,
        newProcessGroup: Bool
    ) async throws(ChildProcessError) -> ChildProcess {
        let started: Result<ChildProcess, ChildProcessError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                let argv = CStringArray(arguments)
                let envp = CStringArray(environment.map { "\($0.key)=\($0.value)" })
                var pid: pid_t = 0
                var code: Int32 = 0
                // A program file another process still holds open for writing (one just written,
                // whose descriptor a child forked meanwhile shares) is busy for a moment only.
                for attempt in 0..<Self.busyAttempts {
                    if attempt > 0 { usleep(Self.busyPause) }
                    code = cspawn_spawn(
                        path, argv.pointers, envp.pointers, descriptors.input, descriptors.output, descriptors.error,
                        newProcessGroup ? 1 : 0, &pid)
                    if code != ETXTBSY { break }
                }
                argv.free()
                envp.free()
                guard code == 0 else {
                    continuation.resume(returning: .failure(ChildProcessError(errno: code)))
                    return
                }
                let child = ChildProcess(pid: pid)
                continuation.resume(returning: .success(child))
                child.waitAndReap()
            }
            thread.name = "singlecast child \(arguments.first ?? path)"
            thread.start()
        }
        return try started.get()
    }

    /// Blocks until the child exits, then reaps it and wakes those waiting.
    private func waitAndReap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        // Reaping under the lock: `send(_:)` never signals a process id that has been reused.
        let exit = reaped.withLock { reaped -> ChildExit in
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
            reaped = true
            guard result == pid else {
                // Reaped elsewhere (SIGCHLD ignored): all that is known is that it is gone.
                return .exited(-1)
            }
            return Self.isSignaled(status) ? .signaled(status & 0x7f) : .exited((status >> 8) & 0xff)
        }
        exited.set(exit)
    }

    private static func isSignaled(_ status: Int32) -> Bool {
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f
    }

    /// The child's exit, once it has exited and been reaped.
    var exit: ChildExit? { exited.value }

    /// Sends `signal` to the child, unless it has already been reaped.
    func send(_ signal: Int32) {
        reaped.withLock { reaped in
            if !reaped { _ = kill(pid, signal) }
        }
    }

    /// Waits for the child to exit; nil when it has not within `timeout` (nil: no limit).
    func waitForExit(timeout: Duration? = nil) async -> ChildExit? {
        await exited.wait(timeout: timeout)
    }
}

/// Starting a child failed with this `errno`.
struct ChildProcessError: Error, Equatable {
    var errno: Int32
}

/// `NULL`-terminated C strings for `execve`, made before `fork` (the child may not allocate).
private struct CStringArray {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    func free() {
        for pointer in pointers { Foundation.free(pointer) }
    }
}
