import Foundation
import Synchronization

/// One mpv process playing one request (see ``MpvPlayer``).
///
/// Three parties share it: the IPC socket's reading thread (mpv's messages become events,
/// replies wake the commands waiting for them), the callers of the session's methods, and the
/// task that waits for mpv to exit and then emits ``PlayerEvent/ended(_:)``.
final class MpvSession: PlaybackSession {
    let events: AsyncStream<PlayerEvent>
    private let continuation: AsyncStream<PlayerEvent>.Continuation
    private let child: ChildProcess
    private let socket: MpvSocket
    /// The private folder of the socket and the chapters file, removed once mpv has gone.
    private let folder: String
    private let state: Mutex<State>
    private let readerClosed = Latch<Void>()
    private let ended = Latch<PlaybackEnd>()
    /// For a stream: asks its server for the HTTP status it fails with, when mpv's log line
    /// naming it did not arrive (mpv may drop its last log lines as it quits).
    private let statusProbe: (@Sendable () async -> Int?)?

    /// A command sent whose reply has not come yet.
    private enum Pending {
        /// Someone waits for the reply.
        case awaited(command: String, CheckedContinuation<MpvValue?, any Error>)
        /// Nobody waits; a failure is kept in ``State/failure`` for the command sent after it.
        case checked(command: String)
    }

    private struct State {
        var playback: MpvPlayback
        var nextRequestID = 0
        var pending: [Int: Pending] = [:]
        /// The first failure of a ``Pending/checked(command:)`` command.
        var failure: PlayerError?
        /// The socket has closed: commands fail at once.
        var closed = false
    }

    private init(
        child: ChildProcess, socket: MpvSocket, folder: String, offersNext: Bool, statusProbe: (@Sendable () async -> Int?)?
    ) {
        state = Mutex(State(playback: MpvPlayback(offersNext: offersNext)))
        self.statusProbe = statusProbe
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        self.child = child
        self.socket = socket
        self.folder = folder
    }

    // MARK: - Starting

    static func start(_ request: PlaybackRequest, player: MpvPlayer) async throws -> MpvSession {
        guard PlaybackRequest.speeds.contains(request.speed) else { throw PlayerError.speedOutOfRange(request.speed) }
        // Following a stream's redirects (when it has credentials) while mpv starts.
        async let stream = player.streamTarget(for: request.source)
        let parent = player.socketDirectory
        // A socket's address holds at most 107 bytes of path.
        guard (parent.path + "/singlecast-player-XXXXXX/mpv.sock").utf8.count < 108 else {
            throw PlayerError.socketDirectory(path: parent.path, errno: ENAMETOOLONG)
        }
        let folder = try await OffPool.run {
            removeAbandonedFolders(in: parent)
            return try makePrivateFolder(in: parent)
        }
        var chaptersFile: String?
        do {
            if !request.chapters.isEmpty {
                let path = folder + "/chapters.txt"
                try await OffPool.run { try Data(ChapterFile.text(request.chapters).utf8).write(to: URL(fileURLWithPath: path)) }
                chaptersFile = path
            }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        let socketPath = folder + "/mpv.sock"
        let child: ChildProcess
        do {
            child = try await spawn(player: player, socket: socketPath, interactive: request.interactive)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        let socket: MpvSocket
        do {
            socket = try await connect(to: socketPath, of: child, path: player.executable.path, timeout: player.startupTimeout)
        } catch {
            child.send(SIGKILL)
            _ = await child.waitForExit()
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        var statusProbe: (@Sendable () async -> Int?)?
        if case .stream(let url) = request.source { statusProbe = { await player.failingStatus(of: url) } }
        let session = MpvSession(
            child: child, socket: socket, folder: folder, offersNext: request.offersNext, statusProbe: statusProbe)
        session.begin()
        do {
            try await session.pipeline(player.loadCommands(request, chaptersFile: chaptersFile, stream: await stream))
        } catch {
            await session.stop()
            // mpv went away while being set up.
            if case PlayerError.playbackEnded = error, let exit = child.exit {
                throw PlayerError.exitedBeforeReady(path: player.executable.path, status: exit.status)
            }
            throw error
        }
        return session
    }

    /// Removes the private folders of playbacks whose process was killed (SIGKILL leaves its
    /// folder): those older than ten minutes whose socket nobody listens on.
    static func removeAbandonedFolders(in parent: URL, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names where name.hasPrefix("singlecast-player-") {
            let folder = parent.appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: folder.path),
                attributes[.type] as? FileAttributeType == .typeDirectory,
                let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) > 600,
                MpvSocket.connect(path: folder.appendingPathComponent("mpv.sock").path) == nil
            else { continue }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Makes `<parent>/singlecast-player-XXXXXX`, mode 0700 (only the user can reach the socket).
    private static func makePrivateFolder(in parent: URL) throws -> String {
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        var template = Array(parent.appendingPathComponent("singlecast-player-XXXXXX").path.utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PlayerError.socketDirectory(path: parent.path, errno: errno)
        }
        return String(cString: made)
    }

    private static func spawn(player: MpvPlayer, socket: String, interactive: Bool) async throws -> ChildProcess {
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard devNull >= 0 else { throw PlayerError.couldNotStart(path: "/dev/null", errno: errno) }
        defer { close(devNull) }
        let descriptors: ChildProcess.Descriptors
        switch player.terminalOutput {
        case .inherit: descriptors = .init(input: devNull, output: 1, error: 2)
        case .standardError: descriptors = .init(input: devNull, output: 2, error: 2)
        case .discard: descriptors = .init(input: devNull, output: devNull, error: devNull)
        }
        var withInput = descriptors
        if interactive { withInput.input = 0 }
        do {
            return try await ChildProcess.start(
                path: player.executable.path, arguments: player.arguments(socket: socket, interactive: interactive),
                environment: player.environment, descriptors: withInput, newProcessGroup: !interactive)
        } catch {
            throw PlayerError.couldNotStart(path: player.executable.path, errno: error.errno)
        }
    }

    /// Connects to mpv's socket once mpv has made it, trying every few milliseconds.
    private static func connect(to socket: String, of child: ChildProcess, path: String, timeout: Duration) async throws
        -> MpvSocket
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let connection = MpvSocket.connect(path: socket) { return connection }
            if let exit = child.exit { throw PlayerError.exitedBeforeReady(path: path, status: exit.status) }
            guard ContinuousClock.now < deadline else { throw PlayerError.didNotAnswer(path: path) }
            try await Task.sleep(for: .milliseconds(4))
        }
    }

    /// Starts reading mpv's messages, and waiting for mpv's end.
    private func begin() {
        continuation.onTermination = { [weak self] termination in
            guard case .cancelled = termination, let self else { return }
            Task { await self.stop() }
        }
        socket.startReading(
            onLine: { [self] line in received(line) },
            onClose: { [self] in socketClosed() })
        Task { [self] in
            let exit = await child.waitForExit()
            // mpv's last messages (its end-file, the log line naming an HTTP status) are still to
            // be read when it has just exited: the socket's end comes after them, at once unless
            // the machine is very busy. Only a socket that never ends (a grandchild holding it) is cut.
            if await readerClosed.wait(timeout: .seconds(10)) == nil {
                socket.shutDown()
                _ = await readerClosed.wait()
            }
            await finish(exit: exit)
        }
    }

    // MARK: - mpv's messages

    private func received(_ line: ArraySlice<UInt8>) {
        guard let message = MpvMessage(line: line) else { return }
        var reply: (CheckedContinuation<MpvValue?, any Error>, Result<MpvValue?, PlayerError>)?
        let over = state.withLock { state -> Bool in
            if case .reply(let id, let error, let data) = message, let pending = state.pending.removeValue(forKey: id) {
                switch pending {
                case .awaited(let command, let continuation):
                    let failure = state.failure ?? (error == "success" ? nil : .commandFailed(command: command, error: error))
                    state.failure = nil
                    reply = (continuation, failure.map { .failure($0) } ?? .success(data))
                case .checked(let command):
                    if error != "success", state.failure == nil {
                        state.failure = .commandFailed(command: command, error: error)
                    }
                }
            }
            let overBefore = state.playback.isOver
            for event in state.playback.handle(message) { continuation.yield(event) }
            return !overBefore && state.playback.isOver
        }
        if let (continuation, result) = reply { continuation.resume(with: result) }
        // `--idle=once` makes mpv quit once its file has ended; a wrapper may have asked otherwise.
        if over { try? socket.send(MpvMessage.commandLine([.string("quit")], requestID: nil)) }
    }

    private func socketClosed() {
        let waiting = state.withLock { state -> [CheckedContinuation<MpvValue?, any Error>] in
            state.closed = true
            defer { state.pending = [:] }
            return state.pending.values.compactMap {
                if case .awaited(_, let continuation) = $0 { return continuation }
                return nil
            }
        }
        for continuation in waiting { continuation.resume(throwing: PlayerError.playbackEnded) }
        readerClosed.set(())
    }

    private func finish(exit: ChildExit?) async {
        let folder = self.folder
        try? await OffPool.run { try FileManager.default.removeItem(atPath: folder) }
        if let statusProbe, case .failed(let failure) = state.withLock({ $0.playback.end().reason }) {
            if case .httpStatus = failure.kind {
            } else if let status = await statusProbe() {
                state.withLock { $0.playback.learnedHTTPStatus(status) }
            }
        }
        let end = state.withLock { state -> PlaybackEnd in
            let end = state.playback.end()
            continuation.yield(.ended(end))
            continuation.finish()
            return end
        }
        ended.set(end)
    }

    // MARK: - Commands

    /// Sends `commands` in one write, in order, and waits for the reply to the last; throws
    /// the first failure among them.
    @discardableResult
    private func pipeline(_ commands: [MpvValue]) async throws -> MpvValue? {
        try await withCheckedThrowingContinuation { continuation in
            let lines = state.withLock { state -> Data? in
                guard !state.closed else { return nil }
                var lines = Data()
                for (index, command) in commands.enumerated() {
                    state.nextRequestID += 1
                    let name = Self.describe(command)
                    state.pending[state.nextRequestID] =
                        index == commands.count - 1 ? .awaited(command: name, continuation) : .checked(command: name)
                    lines.append(MpvMessage.commandLine(command, requestID: state.nextRequestID))
                }
                return lines
            }
            guard let lines else {
                continuation.resume(throwing: PlayerError.playbackEnded)
                return
            }
            do {
                try socket.send(lines)
            } catch {
                // The reading thread sees the end too and fails the commands still pending.
                socket.shutDown()
            }
        }
    }

    @discardableResult
    private func command(_ arguments: MpvValue...) async throws -> MpvValue? {
        try await pipeline([.array(arguments)])
    }

    /// `seek`, `set_property speed`: the command and the property it is about.
    private static func describe(_ command: MpvValue) -> String {
        guard case .array(let arguments) = command else { return command["name"]?.string ?? "" }
        let name = arguments.first?.string ?? ""
        guard name.hasSuffix("_property"), arguments.count > 1, let property = arguments[1].string else { return name }
        return name + " " + property
    }

    // MARK: - PlaybackSession

    func seek(to seconds: Double) async throws {
        guard seconds.isFinite else { return }
        try await command(.string("seek"), .number(max(0, seconds)), .string("absolute"))
    }

    func setPaused(_ paused: Bool) async throws {
        try await command(.string("set_property"), .string("pause"), .bool(paused))
    }

    func setSpeed(_ speed: Double) async throws {
        guard PlaybackRequest.speeds.contains(speed) else { throw PlayerError.speedOutOfRange(speed) }
        try await command(.string("set_property"), .string("speed"), .number(speed))
    }

    func currentPosition() async -> Double? {
        if let position = try? await command(.string("get_property"), .string("time-pos"))?.double {
            return position
        }
        return state.withLock { $0.playback.position }
    }

    func stop() async {
        state.withLock { $0.playback.requestStop() }
        if ended.value == nil {
            try? socket.send(MpvMessage.commandLine([.string("quit")], requestID: nil))
            if await child.waitForExit(timeout: .seconds(2)) == nil {
                child.send(SIGKILL)
            }
        }
        _ = await ended.wait()
    }

    /// mpv's process id (for tests).
    var processID: pid_t { child.pid }
    /// mpv's IPC socket (for tests, which talk to mpv as a second client).
    var socketPath: String { folder + "/mpv.sock" }
}
