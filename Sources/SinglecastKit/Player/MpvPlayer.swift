import Foundation

/// Plays with mpv, driven over its JSON IPC socket (mpv's `DOCS/man/ipc.rst`).
///
/// mpv starts idle with a socket of its own in a private folder (mode 0700) under
/// `$XDG_RUNTIME_DIR`, else in the library, as the daemon's socket (see
/// ``DaemonPaths/socketDirectory``). Everything about the episode goes over that socket: the
/// start, speed, title, chapters file, the stream's credentials (an `Authorization` header, never
/// on mpv's command line or in its environment, which other users can read in `/proc`; only
/// for the origin they belong to, see ``streamTarget(for:)``), then `loadfile`. mpv's terminal
/// output is never read.
///
/// mpv cannot outlive this process: it is killed when the thread that started it ends, which
/// is when this process dies (SIGKILL included); see `ChildProcess`.
public struct MpvPlayer: Player {
    /// Where mpv's own terminal output (its messages and status line) goes.
    public enum TerminalOutput: Sendable, Equatable {
        /// To this process's standard output and error.
        case inherit
        /// To this process's standard error only: standard output carries only what the caller
        /// writes (the CLI's `--json`).
        case standardError
        /// Nowhere.
        case discard
    }

    public var executable: PlayerExecutable
    /// The folder of the socket when `$XDG_RUNTIME_DIR` is not set.
    public var libraryDirectory: URL
    public var terminalOutput: TerminalOutput
    /// mpv's environment, also where `XDG_RUNTIME_DIR`, `NETRC` and `HOME` are read.
    public var environment: [String: String]
    /// How long mpv has to open its socket.
    public var startupTimeout: Duration

    /// Options of the `player-options` setting, given before Singlecast's own so that those win.
    public var extraOptions: [String]
    /// Whether mpv loads the scripts of its scripts folders, where Debian's `mpv-mpris` links its
    /// MPRIS script (the `player-mpris` setting): mpv has no way to leave out one of them.
    public var mpris: Bool

    public init(
        executable: PlayerExecutable, libraryDirectory: URL, terminalOutput: TerminalOutput = .inherit,
        environment: [String: String] = ProcessInfo.processInfo.environment, startupTimeout: Duration = .seconds(10),
        extraOptions: [String] = [], mpris: Bool = true
    ) {
        self.extraOptions = extraOptions
        self.mpris = mpris
        self.executable = executable
        self.libraryDirectory = libraryDirectory
        self.terminalOutput = terminalOutput
        self.environment = environment
        self.startupTimeout = startupTimeout
    }

    public func play(_ request: PlaybackRequest) async throws -> any PlaybackSession {
        try await MpvSession.start(request, player: self)
    }

    /// The folder in which each playback makes its private folder.
    var socketDirectory: URL {
        DaemonPaths(libraryDirectory: libraryDirectory, environment: environment).socketDirectory
    }

    /// mpv's command line: nothing about the episode, nothing secret.
    func arguments(socket: String, interactive: Bool) -> [String] {
        var arguments = [executable.path] + extraOptions + [
            "--idle=once",
            "--no-video",
            "--input-ipc-server=\(socket)",
            // Enclosures are media files: no looking them up with youtube-dl (slow on a failure).
            "--ytdl=no",
            // Singlecast keeps positions: none of mpv's, and a file ends when its audio does.
            "--resume-playback=no",
            "--save-position-on-quit=no",
            "--keep-open=no",
            "--loop-file=no",
            "--loop-playlist=no",
            "--pause=no",
        ]
        if !mpris { arguments.append("--load-scripts=no") }
        if !interactive { arguments.append("--input-terminal=no") }
        if terminalOutput == .discard { arguments.append("--terminal=no") }
        return arguments
    }

    /// The commands that set up and load `request`, in order (`loadfile` last, then the next
    /// entry when the request offers one); a stream is loaded from `stream` (see ``streamTarget(for:)``).
    func loadCommands(_ request: PlaybackRequest, chaptersFile: String?, stream: StreamTarget?) -> [MpvValue] {
        var commands: [MpvValue] = [.array([.string("request_log_messages"), .string("warn")])]
        for (index, name) in MpvPlayback.observedProperties.enumerated() {
            commands.append(.array([.string("observe_property"), .number(Double(index + 1)), .string(name)]))
        }
        func set(_ property: String, _ value: MpvValue) {
            commands.append(.array([.string("set_property"), .string(property), value]))
        }
        set("audio-pitch-correction", .bool(true))
        set("speed", .number(request.speed))
        set("start", .string(String(format: "%.3f", request.start.isFinite ? max(0, request.start) : 0)))
        if let title = request.title { set("force-media-title", .string(title)) }
        if let chaptersFile { set("chapters-file", .string(chaptersFile)) }
        let target: String
        switch request.source {
        case .file(let path):
            target = URL(fileURLWithPath: path).standardizedFileURL.path
        case .stream(let url):
            let stream = stream ?? StreamTarget(url: url.removingUserInfo, credentials: nil)
            if let credentials = stream.credentials {
                set("http-header-fields", .array([.string("Authorization: \(credentials.authorization)")]))
            }
            target = stream.url.absoluteString
        }
        commands.append(.array([.string("loadfile"), .string(target), .string("replace")]))
        if request.offersNext { commands.append(Self.nextEntry) }
        return commands
    }

    /// The playlist entry "next" moves to, as mpv's playlist-next (MPRIS's Next, mpv's `>`) does
    /// nothing on the last entry. It is never played (see ``MpvPlayback``) and says nothing on
    /// mpv's terminal; its arguments are named, as `loadfile`'s positional ones changed in mpv 0.38.
    static let nextEntry = MpvValue.object([
        "name": .string("loadfile"), "url": .string("memory://"), "flags": .string("append"),
        "options": .object(["msg-level": .string("all=no")]),
    ])

    /// Where a stream is loaded from, and the credentials mpv sends there.
    struct StreamTarget: Sendable, Equatable {
        /// Without user name and password.
        var url: URL
        var credentials: Credentials?
    }

    /// The URL mpv loads for `source` and the credentials it sends with it.
    ///
    /// mpv sends an `Authorization` header to every URL a redirect leads to, so when there
    /// are credentials (the URL's user info, or the netrc entry for its host) the redirects are
    /// followed first, by ``HTTPSession`` (which sends credentials only to their origin), with a
    /// request for the first byte; mpv then loads the URL they end at, with the credentials for
    /// that URL only. When that request fails for a reason other than a 401, mpv loads the URL
    /// without credentials, and fails as it did.
    func streamTarget(for source: PlaybackRequest.Source) async -> StreamTarget? {
        guard case .stream(let url) = source else { return nil }
        let netrcPath = Credentials.netrcPath(environment: environment)
        guard Credentials.forRequest(to: url, netrcPath: netrcPath) != nil else {
            return StreamTarget(url: url.removingUserInfo, credentials: nil)
        }
        let session = probeSession()
        var final: URL?
        do {
            let response = try await session.get(url, headers: [("Range", "bytes=0-0")])
            final = response.finalURL
            // One buffer at most: a server that ignores the range would send the whole file.
            var body = response.body.makeAsyncIterator()
            _ = try? await body.next()
        } catch let error as HTTPError {
            if case .unauthorized = error.reason { final = error.url }
        } catch {}
        try? await session.shutdown()
        guard let final else { return StreamTarget(url: url.removingUserInfo, credentials: nil) }
        return StreamTarget(url: final.removingUserInfo, credentials: Credentials.forRequest(to: final, netrcPath: netrcPath))
    }

    /// The HTTP status `url` answers a request for its first byte with, when that is an error
    /// (401 for refused credentials); nil when it answers, or fails another way.
    func failingStatus(of url: URL) async -> Int? {
        let session = probeSession()
        var status: Int?
        do {
            let response = try await session.get(url, headers: [("Range", "bytes=0-0")])
            if !(200..<300).contains(response.status) { status = response.status }
            var body = response.body.makeAsyncIterator()
            _ = try? await body.next()
        } catch let error as HTTPError {
            switch error.reason {
            case .status(let code): status = code
            case .unauthorized: status = 401
            default: break
            }
        } catch {}
        try? await session.shutdown()
        return status
    }

    /// A session for asking a stream's server about it before and after mpv does.
    private func probeSession() -> HTTPSession {
        var configuration = HTTPSession.Configuration()
        configuration.environment = environment
        configuration.readTimeout = .seconds(15)
        return HTTPSession(configuration: configuration)
    }
}
