import Foundation
import Testing
import TestSupport

/// A local server with a show of audio the test made (`Fixtures/cli/listening.xml`, or the
/// fixture named), and a library whose player is the real mpv without sound output.
struct ListeningShow {
    /// The length of the talk, in seconds.
    static let talkSeconds = 120.0
    /// The length of the short episodes of `Fixtures/cli/queue.xml`, in seconds.
    static let shortSeconds = 3.0

    let server: TestServer
    let cli: CLI

    static func start(environment: [String: String] = [:], feed fixture: String = "cli/listening.xml") async throws
        -> ListeningShow
    {
        let server = try await TestServer.start()
        let host = "127.0.0.1:\(server.port)"
        let feed = try String(contentsOf: Fixtures.url(fixture), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: host)
        server.serve(path: "/feeds/listening.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        let talk = TestAudio.wavData(seconds: talkSeconds)
        server.serve(path: "/media/talk.wav", data: talk, contentType: "audio/wav")
        for path in ["/media/short-1.wav", "/media/short-2.wav"] {
            server.serve(path: path, data: TestAudio.wavData(seconds: shortSeconds), contentType: "audio/wav")
        }
        server.serve(
            path: "/private/talk.wav", data: talk, contentType: "audio/wav",
            authorization: "Basic " + Data("listener:s3cret".utf8).base64EncodedString())
        server.serve(path: "/media/page.mp3", data: Data("<html><body>Moved</body></html>\n".utf8), contentType: "text/html")
        server.serve(
            path: "/media/talk-chapters.json", data: try Data(contentsOf: Fixtures.url("extras/chapters.json")),
            contentType: "application/json+chapters")
        var cli = try CLI(environment: environment)
        let runtime = cli.home.appendingPathComponent("run", isDirectory: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        cli.environment["XDG_RUNTIME_DIR"] = runtime.path
        if environment["SINGLECAST_PLAYER"] == nil {
            cli.environment["SINGLECAST_PLAYER"] = try TestAudio.silentPlayer(in: cli.home)
        }
        return ListeningShow(server: server, cli: cli)
    }

    var feedURL: String { server.url("/feeds/listening.xml").absoluteString }

    /// Lists the show, making it the current podcast.
    func list() async throws {
        let listed = try await cli.run(["episodes", feedURL])
        try #require(listed.status == 0, "\(listed.stderr)")
    }

    /// Starts `singlecast play …` without waiting for it.
    func play(_ arguments: [String]) throws -> PlayRun {
        let name = "play-\(UUID().uuidString)"
        let process = try cli.start(["play"] + arguments, outputName: name)
        return PlayRun(process: process, stdout: cli.home.appendingPathComponent("\(name).stdout"),
            stderr: cli.home.appendingPathComponent("\(name).stderr"))
    }

    /// Starts `singlecast play 1 --json` and seeks to `seconds` once it plays; returns when the
    /// position there was reported (and so saved).
    func playing(at seconds: Double) async throws -> PlayRun {
        let run = try play(["1", "--json"])
        try await run.waitForEvent("started")
        try await run.send(["seek", seconds, "absolute"])
        try await run.waitForEvent("position") { isNear($0["position"], seconds) }
        return run
    }

    /// The show's episodes as `episodes --json` lists them (named by its feed: a subscription
    /// is not made the current podcast).
    func episodes() async throws -> [[String: Any]] {
        let result = try await cli.run(["episodes", feedURL, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return try #require(object?["episodes"] as? [[String: Any]])
    }

    func stop() async throws {
        try await server.stop()
        cli.removeHome()
    }
}

/// A running `singlecast play`, seen through its output and its mpv.
struct PlayRun {
    let process: Process
    let stdout: URL
    let stderr: URL

    /// The JSON events printed so far.
    var events: [[String: Any]] {
        let text = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    var errorText: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

    /// Waits for an event named `name` that satisfies `condition`.
    @discardableResult
    func waitForEvent(_ name: String, where condition: ([String: Any]) -> Bool = { _ in true }) async throws -> [String: Any] {
        try await waitUntil { events.contains { $0["event"] as? String == name && condition($0) } || !process.isRunning }
        let found = events.last { $0["event"] as? String == name && condition($0) }
        return try #require(found, "no such \(name) event in \(events); stderr: \(errorText)")
    }

    /// The player process (the child of singlecast).
    func playerPID() async throws -> pid_t {
        var pid: pid_t?
        try await waitUntil {
            pid = TestProcess.children(of: process.processIdentifier).first
            return pid != nil
        }
        return try #require(pid)
    }

    /// The player's IPC socket, from its command line.
    func socket() async throws -> String {
        let arguments = try TestProcess.procText(try await playerPID(), "cmdline").split(separator: " ")
        let option = try #require(arguments.first { $0.hasPrefix("--input-ipc-server=") })
        return String(option.dropFirst("--input-ipc-server=".count))
    }

    /// Sends a command to mpv as a second client (a user's keys, say).
    @discardableResult
    func send(_ command: [Any]) async throws -> Any? {
        MpvTestClient.ask(try await socket(), command)
    }

    /// Waits for singlecast to exit; its status.
    func exitStatus() async throws -> Int32 {
        try await waitUntil { !process.isRunning }
        return process.terminationStatus
    }
}

/// Whether two positions are the same to within a second.
func isNear(_ value: Any?, _ expected: Double, within tolerance: Double = 1) -> Bool {
    guard let number = value as? Double ?? (value as? Int).map(Double.init) else { return false }
    return abs(number - expected) <= tolerance
}
