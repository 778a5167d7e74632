import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

/// The real mpv (`--ao=null`, through a wrapper script as `SINGLECAST_PLAYER` would name it)
/// on audio the tests write, driven through the session and its IPC socket: nothing waits
/// for audio to play in real time longer than it takes mpv to start.
@Suite(.serialized) struct MpvPlayerTests {
    static let isStarted: @Sendable (PlayerEvent) -> Bool = { if case .started = $0 { true } else { false } }

    /// Plays `request` and hands the session to `body`; removes the fixture afterwards.
    private func playing(
        _ makeRequest: (PlayerFixture) throws -> PlaybackRequest, environment: [String: String] = [:],
        _ body: (PlayerFixture, MpvSession, EventRecorder) async throws -> Void
    ) async throws {
        var fixture = try PlayerFixture()
        defer { fixture.remove() }
        fixture.environment.merge(environment) { $1 }
        let session = try #require(try await fixture.player().play(try makeRequest(fixture)) as? MpvSession)
        let recorder = EventRecorder(session)
        do {
            try await body(fixture, session, recorder)
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }

    @Test func startsThenReportsPositionsAndStopEndsIt() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { _, session, recorder in
            let started = try #require(await recorder.started())
            #expect(started.position < 0.5)
            #expect(abs((started.duration ?? 0) - 60) < 0.1)
            _ = try #require(await recorder.first { if case .position = $0 { true } else { false } })
            let folder = URL(fileURLWithPath: session.socketPath).deletingLastPathComponent().path
            #expect(FileManager.default.fileExists(atPath: session.socketPath))
            await session.stop()
            let end = try #require(await recorder.end())
            #expect(end.reason == .stopped)
            #expect(end.position != nil)
            #expect(abs((end.duration ?? 0) - 60) < 0.1)
            #expect(TestProcess.isGone(session.processID))
            #expect(!FileManager.default.fileExists(atPath: folder), "the private folder is removed")
            // The events before the end are the start, positions and nothing else.
            let others = recorder.events.filter {
                switch $0 {
                case .started, .position, .ended: false
                default: true
                }
            }
            #expect(others.isEmpty)
        }
    }

    @Test func theSocketIsPrivateAndUnderTheRuntimeFolder() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { fixture, session, recorder in
            _ = try #require(await recorder.started())
            let folder = URL(fileURLWithPath: session.socketPath).deletingLastPathComponent()
            #expect(folder.deletingLastPathComponent().path == fixture.folder.appendingPathComponent("run").path)
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            let commandLine = try TestProcess.procText(session.processID, "cmdline")
            #expect(commandLine.contains("--input-ipc-server=\(session.socketPath)"))
            #expect(commandLine.contains("--no-video"))
            #expect(commandLine.contains("--idle=once"))
        }
    }

    @Test func theFoldersOfKilledPlaybacksAreRemovedWhenTheNextStarts() async throws {
        var abandoned: URL?
        var recent: URL?
        try await playing({ fixture in
            let run = fixture.folder.appendingPathComponent("run")
            abandoned = run.appendingPathComponent("singlecast-player-OLD123")
            recent = run.appendingPathComponent("singlecast-player-NEW123")
            for folder in [abandoned!, recent!] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data().write(to: folder.appendingPathComponent("mpv.sock"))
            }
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: abandoned!.path)
            return PlaybackRequest(source: .file(try fixture.wav(seconds: 60)))
        }) { _, _, recorder in
            _ = try #require(await recorder.started())
            #expect(!FileManager.default.fileExists(atPath: abandoned!.path))
            #expect(FileManager.default.fileExists(atPath: recent!.path), "another playback may be starting in it")
        }
    }

    @Test func startsWhereAsked() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60)), start: 2) }) { _, _, recorder in
            let started = try #require(await recorder.started())
            #expect(abs(started.position - 2) < 0.3)
        }
    }

    @Test func seekingNearTheEndPlaysToTheEndOfFile() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 5))) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            try await session.seek(to: 4.6)
            guard case .seeked(let position) = await recorder.first(where: { if case .seeked = $0 { true } else { false } })
            else { Issue.record("no seeked event in \(recorder.events)"); return }
            #expect(abs(position - 4.6) < 0.2)
            let end = try #require(await recorder.end())
            #expect(end.reason == .endOfFile)
            #expect((end.position ?? 0) >= 4.5)
            #expect(TestProcess.isGone(session.processID))
        }
    }

    @Test func pausingAndResumingAreEvents() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            try await session.setPaused(true)
            _ = try #require(await recorder.first { if case .paused = $0 { true } else { false } })
            let position = await session.currentPosition()
            #expect(position != nil)
            try await session.setPaused(false)
            _ = try #require(await recorder.first { if case .resumed = $0 { true } else { false } })
        }
    }

    @Test func quittingMpvIsQuit() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            // As the user's `q` does: mpv's `quit` command, here from a second client.
            #expect(MpvClient.send(session.socketPath, ["quit"]))
            let end = try #require(await recorder.end())
            #expect(end.reason == .quit)
            #expect(end.position != nil)
            #expect(TestProcess.isGone(session.processID))
        }
    }

    /// mpv's playlist-next is what MPRIS's Next (mpv-mpris) and mpv's `>` key send.
    @Test func playlistNextEndsARequestOfferingANextWithNext() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60)), offersNext: true) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            #expect(MpvClient.send(session.socketPath, ["playlist-next"]))
            let end = try #require(await recorder.end())
            #expect(end.reason == .next)
            #expect(end.position != nil)
            #expect(TestProcess.isGone(session.processID))
        }
    }

    @Test func playlistNextDoesNothingWithoutANextOffered() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            #expect(MpvClient.send(session.socketPath, ["playlist-next"]))
            // Still playing: a seek after it is answered and reported.
            try await session.seek(to: 30)
            _ = try #require(await recorder.first { if case .seeked = $0 { true } else { false } })
            #expect(!recorder.events.contains { if case .ended = $0 { true } else { false } })
        }
    }

    @Test func anEpisodeOfferingANextStillEndsAtItsEndOfFile() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 1)), offersNext: true) }) { _, session, recorder in
            let end = try #require(await recorder.end())
            #expect(end.reason == .endOfFile)
            #expect(TestProcess.isGone(session.processID))
        }
    }

    @Test func mpvKilledIsPlayerDiedWithTheLastPosition() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60)), start: 1) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            try await session.setPaused(true)
            _ = try #require(await recorder.first { if case .paused = $0 { true } else { false } })
            kill(session.processID, SIGKILL)
            let end = try #require(await recorder.end())
            #expect(end.reason == .playerDied)
            #expect((end.position ?? 0) >= 1)
            await #expect(throws: PlayerError.playbackEnded) { try await session.setPaused(false) }
        }
    }

    @Test func stopKillsAnMpvThatDoesNotQuit() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            kill(session.processID, SIGSTOP)  // hung: it reads no more commands
            await session.stop()
            let end = try #require(await recorder.end())
            #expect(end.reason == .stopped)
            #expect(TestProcess.isGone(session.processID))
            await session.stop()  // a second stop returns at once
        }
    }

    @Test func cancellingTheTaskThatListensStopsMpv() async throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        let session = try #require(
            try await fixture.player().play(PlaybackRequest(source: .file(try fixture.wav(seconds: 60)))) as? MpvSession)
        let started = Latch<Void>()
        let listener = Task {
            for await event in session.events {
                if case .started = event { started.set(()) }
            }
        }
        _ = try #require(await started.wait(timeout: .seconds(30)))
        listener.cancel()
        #expect(await TestProcess.waitUntilGone(session.processID))
        await session.stop()
    }

    @Test func mpvDiesWithTheProcessThatStartedIt() async throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        let probe = CLI.executable.deletingLastPathComponent().appendingPathComponent("player-probe")
        try #require(FileManager.default.isExecutableFile(atPath: probe.path), "build player-probe (swift build)")
        let process = Process()
        process.executableURL = probe
        process.arguments = [try fixture.wav(seconds: 60)]
        process.environment = fixture.environment
        process.currentDirectoryURL = fixture.folder
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.readLine(), as: UTF8.self)
        #expect(line == "started")
        // mpv, the wrapper's exec'd process: the probe's only child.
        let mpv = try #require(childProcesses(of: process.processIdentifier).first)
        #expect(try TestProcess.procText(mpv, "cmdline").hasPrefix("mpv "))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(await TestProcess.waitUntilGone(mpv))
    }

    @Test func streamCredentialsGoOverTheSocketOnly() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.stop() } }
        server.serve(
            path: "/episode.wav", data: TestAudio.wavData(seconds: 60), contentType: "audio/wav",
            authorization: "Basic YWxpY2U6czNjcmV0LXBhc3N3b3Jk")  // alice:s3cret-password
        let url = try #require(URL(string: "http://alice:s3cret-password@127.0.0.1:\(server.port)/episode.wav"))
        try await playing({ _ in PlaybackRequest(source: .stream(url)) }) { _, session, recorder in
            _ = try #require(await recorder.started(), "playback started with the credentials")
            let commandLine = try TestProcess.procText(session.processID, "cmdline")
            let environment = try TestProcess.procText(session.processID, "environ")
            for secret in ["s3cret-password", "YWxpY2U6czNjcmV0LXBhc3N3b3Jk", "alice"] {
                #expect(!commandLine.contains(secret))
                #expect(!environment.contains(secret))
            }
            #expect(!commandLine.contains("127.0.0.1"), "the URL itself goes over the socket")
        }
        let requests = server.requests(for: "/episode.wav")
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.header("Authorization") == "Basic YWxpY2U6czNjcmV0LXBhc3N3b3Jk" })
    }

    @Test func streamCredentialsStayOnTheirOriginAcrossRedirects() async throws {
        let origin = try await TestServer.start()
        let elsewhere = try await TestServer.start()
        defer {
            Task {
                try? await origin.stop()
                try? await elsewhere.stop()
            }
        }
        let wav = TestAudio.wavData(seconds: 60)
        let alice = "Basic YWxpY2U6czNjcmV0LXBhc3N3b3Jk"
        origin.serve(path: "/episode.wav", data: wav, contentType: "audio/wav", authorization: alice)
        elsewhere.serve(path: "/cdn/episode.wav", data: wav, contentType: "audio/wav")
        // On the origin, the credentials follow a redirect; to another host, they do not.
        origin.redirect(path: "/feed/here.wav", to: "/episode.wav")
        origin.redirect(path: "/feed/there.wav", to: elsewhere.url("/cdn/episode.wav").absoluteString)
        for path in ["/feed/here.wav", "/feed/there.wav"] {
            let url = try #require(URL(string: "http://alice:s3cret-password@127.0.0.1:\(origin.port)\(path)"))
            try await playing({ _ in PlaybackRequest(source: .stream(url)) }) { _, session, recorder in
                _ = try #require(await recorder.started(), "\(path) plays")
                #expect(!(try TestProcess.procText(session.processID, "cmdline")).contains("s3cret-password"))
            }
        }
        #expect(origin.requests(for: "/episode.wav").allSatisfy { $0.header("Authorization") == alice })
        let cdn = elsewhere.requests(for: "/cdn/episode.wav")
        #expect(!cdn.isEmpty)
        #expect(cdn.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func streamCredentialsComeFromNetrc() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.stop() } }
        server.serve(
            path: "/episode.wav", data: TestAudio.wavData(seconds: 60), contentType: "audio/wav",
            authorization: "Basic YWxpY2U6czNjcmV0LXBhc3N3b3Jk")
        let netrc = NSTemporaryDirectory() + "netrc-\(UUID().uuidString)"
        try Data("machine 127.0.0.1 login alice password s3cret-password\n".utf8).write(to: URL(fileURLWithPath: netrc))
        defer { try? FileManager.default.removeItem(atPath: netrc) }
        try await playing({ _ in PlaybackRequest(source: .stream(server.url("/episode.wav"))) }, environment: ["NETRC": netrc]) {
            _, session, recorder in
            _ = try #require(await recorder.started())
            #expect(!(try TestProcess.procText(session.processID, "environ")).contains("s3cret-password"))
        }
    }

    @Test(arguments: [(401, "wrong:password@"), (404, "")])
    func aStreamAnsweringAnErrorFailsWithItsStatus(status: Int, userInfo: String) async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.stop() } }
        server.serve(
            path: "/episode.wav", data: TestAudio.wavData(seconds: 2), contentType: "audio/wav",
            authorization: "Basic YWxpY2U6czNjcmV0LXBhc3N3b3Jk")
        let path = status == 404 ? "/gone.wav" : "/episode.wav"
        let url = try #require(URL(string: "http://\(userInfo)127.0.0.1:\(server.port)\(path)"))
        try await playing({ _ in PlaybackRequest(source: .stream(url)) }) { _, session, recorder in
            let end = try #require(await recorder.end())
            guard case .failed(let failure) = end.reason else {
                Issue.record("ended \(end.reason)")
                return
            }
            #expect(failure.kind == .httpStatus(status))
            #expect(!recorder.events.contains(where: Self.isStarted))
            #expect(!failure.messages.joined().contains("password"))
            #expect(TestProcess.isGone(session.processID))
        }
    }

    /// What the session asks the server when mpv's own log line with the status did not
    /// arrive before mpv ended (its messages and its exit race).
    @Test(arguments: [404, 410, 503])
    func theStatusProbeLearnsAnErrorStatus(status: Int) async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.stop() } }
        // An unknown path answers 404; the others answer their status once, then the audio.
        if status != 404 {
            server.serve(path: "/episode.wav", data: TestAudio.wavData(seconds: 1), contentType: "audio/wav", faults: [.status(status)])
        }
        server.serve(path: "/fine.wav", data: TestAudio.wavData(seconds: 1), contentType: "audio/wav")
        let player = MpvPlayer(
            executable: PlayerExecutable(path: "/nonexistent/mpv"), libraryDirectory: URL(fileURLWithPath: NSTemporaryDirectory()),
            terminalOutput: .discard)
        #expect(await player.failingStatus(of: server.url("/episode.wav")) == status)
        #expect(await player.failingStatus(of: server.url("/fine.wav")) == nil)
    }

    @Test func aFileThatIsNotAudioFailsBeforeStarting() async throws {
        try await playing({ fixture in
            let path = fixture.folder.appendingPathComponent("episode.mp3").path
            try Data(String(repeating: "<html>not audio</html>\n", count: 200).utf8).write(to: URL(fileURLWithPath: path))
            return PlaybackRequest(source: .file(path))
        }) { _, _, recorder in
            let end = try #require(await recorder.end())
            #expect(end.reason == .failed(PlayerFailure(kind: .notAudio, playerError: "unrecognized file format", messages: end.failureMessages)))
            #expect(!recorder.events.contains(where: Self.isStarted))
        }
    }

    @Test func aMissingFileFailsBeforeStarting() async throws {
        try await playing({ PlaybackRequest(source: .file($0.folder.appendingPathComponent("gone.wav").path)) }) { _, _, recorder in
            let end = try #require(await recorder.end())
            guard case .failed(let failure) = end.reason else {
                Issue.record("ended \(end.reason)")
                return
            }
            #expect(failure.kind == .loadingFailed)
        }
    }

    @Test func chaptersAreHandedToMpv() async throws {
        let chapters = [
            PlaybackChapter(title: "Intro", start: 0), PlaybackChapter(title: "Questions = answers; #1", start: 1.5),
            PlaybackChapter(title: "Outro", start: 3),
        ]
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60)), chapters: chapters) }) { _, session, recorder in
            _ = try #require(await recorder.started())
            guard case .array(let list) = session.property("chapter-list") else {
                Issue.record("no chapter-list")
                return
            }
            #expect(list.map { $0["title"]?.string } == chapters.map(\.title))
            #expect(list.map { $0["time"]?.double } == chapters.map(\.start))
            #expect(await recorder.first { $0 == .chapter(index: 0, title: "Intro", start: 0) } != nil)
            try await session.seek(to: 3.2)
            #expect(await recorder.first { $0 == .chapter(index: 2, title: "Outro", start: 3) } != nil)
        }
    }

    @Test func theTitleAndSpeedAreSet() async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60)), speed: 1.5, title: "Épisode \"1\"") }) {
            _, session, recorder in
            _ = try #require(await recorder.started())
            #expect(session.property("speed") == .number(1.5))
            #expect(session.property("audio-pitch-correction") == .bool(true))
            #expect(session.property("media-title") == .string("Épisode \"1\""))
            try await session.setSpeed(2)
            #expect(await recorder.first { $0 == .speedChanged(2) } != nil)
            #expect(session.property("speed") == .number(2))
            await #expect(throws: PlayerError.speedOutOfRange(5)) { try await session.setSpeed(5) }
        }
    }

    @Test(arguments: [false, true])
    func onlyAnInteractivePlaybackGivesMpvTheTerminal(interactive: Bool) async throws {
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60)), interactive: interactive) }) {
            _, session, recorder in
            _ = try #require(await recorder.started())
            let input = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(session.processID)/fd/0")
            let ours = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0")) ?? "none"
            let group = getpgid(session.processID)
            if interactive {
                // mpv reads the keys from our standard input, in our process group (the terminal's foreground).
                #expect(input == ours)
                #expect(group == getpgrp())
            } else {
                // No input, and a process group of its own: the terminal's Ctrl-C reaches only us.
                #expect(input == "/dev/null")
                #expect(group == session.processID)
            }
        }
    }

    @Test func aSpeedOutOfRangeIsRefusedBeforeStarting() async throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        await #expect(throws: PlayerError.speedOutOfRange(0.1)) {
            _ = try await fixture.player().play(PlaybackRequest(source: .file(try fixture.wav(seconds: 1)), speed: 0.1))
        }
    }

    @Test func mpvsTerminalOutputCanBeKeptOffStandardOutput() async throws {
        // mpv's stdout goes to our stderr: checked on its descriptors, which point where ours do.
        try await playing({ PlaybackRequest(source: .file(try $0.wav(seconds: 60))) }) { fixture, session, recorder in
            _ = try #require(await recorder.started())
            _ = fixture
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(session.processID)/fd/1")
            #expect(target == "/dev/null")
        }
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        let session = try #require(
            try await fixture.player(output: .standardError).play(PlaybackRequest(source: .file(try fixture.wav(seconds: 60))))
                as? MpvSession)
        let recorder = EventRecorder(session)
        _ = try #require(await recorder.started())
        let mpvOut = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(session.processID)/fd/1")
        let ourError = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/2")
        #expect(mpvOut == ourError)
        await session.stop()
    }

    @Test func aSocketFolderTooLongForASocketIsAnErrorNamingIt() async throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        let library = fixture.folder.appendingPathComponent(String(repeating: "long-folder-name/", count: 6))
        var environment = fixture.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let player = MpvPlayer(executable: fixture.wrapper, libraryDirectory: library, terminalOutput: .discard, environment: environment)
        await #expect(throws: PlayerError.socketDirectory(path: library.path, errno: ENAMETOOLONG)) {
            _ = try await player.play(PlaybackRequest(source: .file(try fixture.wav(seconds: 1))))
        }
    }

    @Test func aWrapperThatFailsIsAnErrorNamingIt() async throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        let failing = try PlayerFixture.script(in: fixture.folder, named: "broken-mpv", body: "exit 3\n")
        let player = MpvPlayer(executable: failing, libraryDirectory: fixture.folder, terminalOutput: .discard, environment: fixture.environment)
        await #expect(throws: PlayerError.exitedBeforeReady(path: failing.path, status: 3)) {
            _ = try await player.play(PlaybackRequest(source: .file(try fixture.wav(seconds: 1))))
        }
        let missing = PlayerExecutable(path: fixture.folder.appendingPathComponent("no-such-mpv").path)
        let nowhere = MpvPlayer(executable: missing, libraryDirectory: fixture.folder, terminalOutput: .discard, environment: fixture.environment)
        await #expect(throws: PlayerError.couldNotStart(path: missing.path, errno: ENOENT)) {
            _ = try await nowhere.play(PlaybackRequest(source: .file(try fixture.wav(seconds: 1))))
        }
        // Nothing is left in the runtime folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.appendingPathComponent("run").path).isEmpty)
    }
}

extension PlaybackEnd {
    /// The messages of a failure (for comparing the rest of it).
    var failureMessages: [String] {
        if case .failed(let failure) = reason { return failure.messages }
        return []
    }
}

extension FileHandle {
    /// Reads up to the first newline (without it), or to the end.
    func readLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}

/// The processes whose parent is `pid`.
func childProcesses(of pid: pid_t) throws -> [pid_t] {
    try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { name -> pid_t? in
        guard let child = pid_t(name),
            let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
    }
}
