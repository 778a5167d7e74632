import Foundation

/// Talks to a library's download daemon over its control socket, and starts one on demand.
public struct DaemonClient: Sendable {
    public let paths: DaemonPaths
    /// How long to wait for a reply.
    public var replyTimeout: Duration = .seconds(30)

    public init(libraryDirectory: URL) {
        paths = DaemonPaths(libraryDirectory: libraryDirectory)
    }

    /// Sends `request` to the running daemon. Throws ``DaemonError/socket(path:detail:)`` when
    /// none answers.
    public func send(_ request: ControlRequest) throws -> ControlReply {
        let socket = try connect()
        defer { close(socket) }
        var message = try JSONEncoder.control.encode(request)
        message.append(0x0A)
        try message.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(socket, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { throw socketError("cannot send") }
                offset += written
            }
        }
        var reply = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !reply.contains(0x0A) {
            let count = read(socket, &chunk, chunk.count)
            guard count > 0 else {
                if reply.isEmpty { throw socketError(count == 0 ? "the daemon closed the connection" : "no reply") }
                break
            }
            reply.append(contentsOf: chunk[..<count])
        }
        let decoded: ControlReply
        do {
            decoded = try JSONDecoder.control.decode(ControlReply.self, from: reply.prefix { $0 != 0x0A })
        } catch {
            throw socketError("unreadable reply")
        }
        guard decoded.ok else { throw DaemonError.refused(decoded.error ?? "no reason given") }
        return decoded
    }

    /// Whether a daemon answers on the socket.
    public var isRunning: Bool {
        guard let socket = try? connect() else { return false }
        close(socket)
        return true
    }

    /// Sends `request`, first starting a daemon (`executable daemon --idle-exit 60`, detached
    /// from the terminal, writing to `daemon.log`) if none runs.
    public func sendStartingDaemon(_ request: ControlRequest, executable: String, idleExit: Int = 60) throws -> ControlReply {
        if !isRunning {
            try spawnDaemon(executable: executable, idleExit: idleExit)
            let deadline = ContinuousClock.now + .seconds(15)
            while !isRunning {
                guard ContinuousClock.now < deadline else { throw DaemonError.didNotStart(log: paths.log) }
                usleep(20_000)
            }
        }
        return try send(request)
    }

    // MARK: - Sockets and processes

    private func connect() throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw socketError("cannot create a socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(paths.socket.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw socketError("the path is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        var timeout = timeval(tv_sec: Int(replyTimeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = socketError("no daemon is listening")
            close(descriptor)
            throw error
        }
        return descriptor
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
            throw DaemonError.socket(path: paths.socket, detail: "cannot start \(executable): \(String(cString: strerror(status)))")
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

    private func socketError(_ detail: String) -> DaemonError {
        let cause = errno == 0 ? "" : " (\(String(cString: strerror(errno))))"
        return DaemonError.socket(path: paths.socket, detail: detail + cause)
    }
}
