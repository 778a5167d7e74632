import Foundation
import NIOCore
import NIOPosix

/// The background download service of one library: it owns downloads handed to it through
/// the engine, answers control requests on a Unix socket only the user can reach, resumes
/// its interrupted downloads when it starts, and exits after an idle time if asked to.
public actor DownloadDaemon {
    /// How a daemon runs.
    public struct Configuration: Sendable {
        public var libraryDirectory: URL
        /// Where downloads go and what they are called.
        public var episodes: EpisodesFolder
        /// How many downloads run at once (changeable while it runs).
        public var jobs = DownloadEngine.defaultConcurrentDownloads
        /// A shell command run with the finished file's path as `$1` (and `$SINGLECAST_FILE`).
        public var onComplete: String?
        /// Exit after this long with nothing queued; nil stays up.
        public var idleExit: Duration?
        public var http = HTTPSession.Configuration()
        /// How transient failures are retried; a download that gives up ends in the error state.
        public var retryPolicy = FileTransfer.RetryPolicy(giveUpAfter: FileTransfer.RetryPolicy.daemonGiveUp)

        public init(libraryDirectory: URL) {
            self.libraryDirectory = libraryDirectory
            episodes = EpisodesFolder(libraryDirectory: libraryDirectory)
        }
    }

    /// The largest control message accepted.
    public static let maximumMessageBytes = 1_048_576
    /// How long a client may take to send its request.
    public static let clientTimeout: Duration = .seconds(5)

    private let configuration: Configuration
    private let report: @Sendable (DaemonEvent) -> Void
    private var engine: DownloadEngine?
    private var control: DownloadControl?
    /// What the idle time, a client's time to send and the downloads' waits are timed by.
    private nonisolated let clock: ErasedClock
    private var lastActivity: ErasedClock.Instant
    private var stopping = false
    private var wakeUp: CheckedContinuation<Void, Never>?

    /// - Parameters:
    ///   - clock: what the idle time, a client's time to send its request and the downloads'
    ///     waits for the network are timed by (tests pass one they advance).
    ///   - report: receives what the daemon does, for its log.
    public init(
        configuration: Configuration, clock: any Clock<Duration> = ContinuousClock(),
        report: @escaping @Sendable (DaemonEvent) -> Void
    ) {
        self.configuration = configuration
        self.clock = ErasedClock(clock)
        self.lastActivity = self.clock.now
        self.report = report
    }

    /// Runs until the idle time passes with nothing to do, or ``stop()``.
    /// Throws ``DaemonError/alreadyRunning(library:processID:)`` when another daemon has the library.
    public func run() async throws {
        let paths = DaemonPaths(libraryDirectory: configuration.libraryDirectory)
        let lock = try DaemonLock.take(paths: paths)
        let library = try await Library.open(directory: configuration.libraryDirectory)
        let buffer = ProgressBuffer(library: library, episodes: configuration.episodes)
        try await buffer.rebuild()
        let session = HTTPSession(configuration: configuration.http)
        let report = self.report
        let hook = configuration.onComplete
        let engine = DownloadEngine(
            buffer: buffer, transfer: FileTransfer(session: session, retryPolicy: configuration.retryPolicy, clock: clock),
            maximumConcurrentDownloads: configuration.jobs, giveUp: .fail
        ) { event in
            report(.download(event))
            if case .completed(let download) = event, let hook {
                CompletionHook.run(hook, file: download.file, title: download.episodeTitle, report: report)
            }
        }
        self.engine = engine
        self.control = DownloadControl(buffer: buffer, engine: engine)

        // Listening comes first: the socket's mode is set before any download creates a file.
        let server = try await Self.listen(on: paths.socket)
        report(.listening(socket: paths.socket, processID: getpid()))

        let interrupted = try await library.downloads().filter { $0.background && $0.state == .interrupted }
        if !interrupted.isEmpty {
            report(.resuming(count: interrupted.count))
            try await engine.enqueue(interrupted.map(DownloadRequest.init), background: true)
        }

        do {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    await self.waitUntilDone()
                    try? await server.channel.close()
                }
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } catch {
            report(.controlSocketClosed(detail: describing(error)))
        }
        await engine.stopAll()
        unlink(paths.socket)
        try? await session.shutdown()
        withExtendedLifetime(lock) {}
        report(.stopped)
    }

    /// Stops the daemon: running downloads become interrupted (resumed at the next start).
    public func stop() {
        stopping = true
        wakeUp?.resume()
        wakeUp = nil
    }

    // MARK: - Lifetime

    private func waitUntilDone() async {
        guard let engine else { return }
        while !stopping {
            await engine.waitUntilIdle()
            if stopping { break }
            guard let idleExit = configuration.idleExit else {
                await sleep(for: nil)
                continue
            }
            let quietFor = clock.now - lastActivity
            if quietFor >= idleExit, await engine.isIdle {
                report(.idle(for: idleExit))
                break
            }
            await sleep(for: max(idleExit - quietFor, .milliseconds(10)))
        }
    }

    /// Sleeps until `duration` passes (forever when nil) or ``stop()`` wakes it; no polling.
    private func sleep(for duration: Duration?) async {
        if stopping { return }
        await withCheckedContinuation { continuation in
            wakeUp = continuation
            if let duration {
                let deadline = clock.now + duration
                Task { [clock] in
                    try? await clock.sleep(until: deadline)
                    self.wake()
                }
            }
        }
    }

    private func wake() {
        wakeUp?.resume()
        wakeUp = nil
    }

    // MARK: - Control socket

    private static func listen(on path: String) async throws -> NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never> {
        // We hold the lock, so a socket file left here belongs to a dead daemon.
        unlink(path)
        do {
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            // Connecting needs write permission, which the process's umask never grants to
            // others; 0600 takes it from the group too.
            chmod(path, 0o600)
            return server
        } catch {
            throw DaemonError.socket(path: path, problem: .cannotListen("\(error)"))
        }
    }

    /// Answers one client: one request line, one reply line, then close. A malformed, unknown,
    /// oversized or missing request gets an error reply (or a close) and harms nothing else.
    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        try? await connection.executeThenClose { inbound, outbound in
            let reply: ControlReply
            switch await Self.readLine(inbound, clock: clock) {
            case .line(let bytes):
                reply = await handle(bytes)
            case .tooLong:
                reply = .failure(.messageTooLong(limit: Self.maximumMessageBytes))
            case .closed:
                return
            }
            var data = (try? ControlCoding.encoder.encode(reply)) ?? Data(#"{"version":1,"ok":false}"#.utf8)
            data.append(0x0A)
            try await outbound.write(ByteBuffer(bytes: data))
        }
    }

    private enum LineResult {
        case line([UInt8])
        case tooLong
        case closed
    }

    /// Reads up to the first newline, within ``clientTimeout`` on `clock`.
    private static func readLine(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, clock: ErasedClock) async -> LineResult {
        await withTaskGroup(of: LineResult.self) { group in
            group.addTask {
                var line: [UInt8] = []
                do {
                    for try await buffer in inbound {
                        let bytes = buffer.readableBytesView
                        if let newline = bytes.firstIndex(of: 0x0A) {
                            line.append(contentsOf: bytes[..<newline])
                            return line.count > maximumMessageBytes ? .tooLong : .line(line)
                        }
                        line.append(contentsOf: bytes)
                        if line.count > maximumMessageBytes { return .tooLong }
                    }
                } catch {}
                return line.isEmpty ? .closed : .line(line)
            }
            group.addTask {
                try? await clock.sleep(for: clientTimeout)
                return .closed
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }

    /// Carries out one request.
    private func handle(_ bytes: [UInt8]) async -> ControlReply {
        struct Envelope: Decodable { var version: Int }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(bytes)) else {
            return .failure(.malformedMessage)
        }
        guard envelope.version == ControlRequest.currentVersion else {
            return .failure(.unsupportedVersion(envelope.version))
        }
        let request: ControlRequest
        do {
            request = try ControlCoding.decoder.decode(ControlRequest.self, from: Data(bytes))
        } catch {
            return .failure(.malformedRequest("\(error)"))
        }
        lastActivity = clock.now
        do {
            return try await carryOut(request)
        } catch {
            return .failure(.failed(describing(error)))
        }
    }

    private func carryOut(_ request: ControlRequest) async throws -> ControlReply {
        guard let engine, let control else { return .failure(.starting) }
        if let jobs = request.jobs {
            guard DownloadEngine.allowedConcurrentDownloads.contains(jobs) else { return .failure(.jobsOutOfRange(jobs)) }
            await engine.setMaximumConcurrentDownloads(jobs)
        }
        switch request.command {
        case .enqueue:
            let claims = try await engine.enqueue((request.downloads ?? []).map(\.request), background: true)
            return ControlReply(ok: true, claims: claims.map(WireClaim.init))
        case .pause, .resume, .cancel:
            let command = ControlCommand(rawValue: request.command.rawValue)!
            let ids = request.all == true ? try await control.applicable(command) : (request.ids ?? [])
            let outcomes = try await control.apply(command, to: ids)
            return ControlReply(ok: true, outcomes: outcomes.map(WireOutcome.init))
        case .setJobs:
            return ControlReply(ok: true)
        case .status:
            return ControlReply(ok: true, downloads: try await control.buffer.library.downloads().map(WireDownload.init))
        }
    }
}
