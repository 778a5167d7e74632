import Foundation
import NIOCore
import NIOPosix

/// Talks to a library's download daemon over its control socket (an NIO channel, never a
/// blocking read), and starts one on demand.
public struct DaemonClient: Sendable {
    public let paths: DaemonPaths
    /// How long to wait for a reply.
    public var replyTimeout: Duration = .seconds(30)

    public init(libraryDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        paths = DaemonPaths(libraryDirectory: libraryDirectory, environment: environment)
    }

    /// Sends `request` to the running daemon. Throws ``DaemonError/socket(path:detail:)`` when
    /// none answers, ``DaemonError/refused(_:)`` when it refuses.
    public func send(_ request: ControlRequest) async throws -> ControlReply {
        var message = try ControlCoding.encoder.encode(request)
        message.append(0x0A)
        let line = try await exchange(message)
        let reply: ControlReply
        do {
            reply = try ControlCoding.decoder.decode(ControlReply.self, from: line)
        } catch {
            throw DaemonError.socket(path: paths.socket, problem: .unreadableReply)
        }
        guard reply.ok else {
            throw DaemonError.refused(reply.failure ?? ControlFailure(kind: "failed", detail: reply.error))
        }
        return reply
    }

    /// Whether a daemon answers on the socket.
    public func isRunning() async -> Bool {
        guard let channel = try? await connect() else { return false }
        try? await channel.channel.close()
        return true
    }

    /// Sends `request`, first starting a daemon (`executable daemon --idle-exit 60`, detached
    /// from the terminal, writing to `daemon.log`) if none runs.
    public func sendStartingDaemon(_ request: ControlRequest, executable: String, idleExit: Int = 60) async throws
        -> ControlReply
    {
        if await !isRunning() {
            try spawnDaemon(executable: executable, idleExit: idleExit)
            let deadline = ContinuousClock.now + .seconds(15)
            while await !isRunning() {
                guard ContinuousClock.now < deadline else { throw DaemonError.didNotStart(log: paths.log) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return try await send(request)
    }

    // MARK: - Sockets and processes

    private func connect() async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(2))
                .connect(unixDomainSocketPath: paths.socket) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw DaemonError.socket(path: paths.socket, problem: .notListening("\(error)"))
        }
    }

    /// Writes `message` and reads the reply's first line, within ``replyTimeout``.
    private func exchange(_ message: Data) async throws -> Data {
        let channel = try await connect()
        let socket = paths.socket
        let timeout = replyTimeout
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: message))
            return try await withThrowingTaskGroup(of: Data?.self) { group in
                group.addTask {
                    var reply = Data()
                    for try await buffer in inbound {
                        let bytes = buffer.readableBytesView
                        if let newline = bytes.firstIndex(of: 0x0A) {
                            reply.append(contentsOf: bytes[..<newline])
                            return reply
                        }
                        reply.append(contentsOf: bytes)
                    }
                    return reply.isEmpty ? nil : reply
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw DaemonError.socket(path: socket, problem: .noReply(within: timeout))
                }
                defer { group.cancelAll() }
                guard let reply = try await group.next()! else {
                    throw DaemonError.socket(path: socket, problem: .closed)
                }
                return reply
            }
        }
    }

    private func spawnDaemon(executable: String, idleExit: Int) throws {
        try FileManager.default.createDirectory(at: paths.libraryDirectory, withIntermediateDirectories: true)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A session of its own: closing the terminal or logging out does not stop it.
        // glibc's POSIX_SPAWN_SETSID (0x80) is a macro Swift does not import.
        let setsid: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(setsid | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGHUP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, paths.log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        Self.closeOnExecAll()
        let arguments = [executable, "daemon", "--idle-exit", String(idleExit)]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var processID: pid_t = 0
        let status = posix_spawn(&processID, executable, &actions, &attributes, &argv, environ)
        guard status == 0 else {
            throw DaemonError.socket(path: paths.socket, problem: .cannotStart(executable: executable, errno: status))
        }
    }

    /// Marks every descriptor above 2 close-on-exec, so nothing of ours (the database, pipes
    /// of whoever started us and waits for them to close) leaks into the daemon.
    private static func closeOnExecAll() {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
