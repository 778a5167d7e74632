import Foundation
import Testing

@testable import SinglecastKit

/// mpv's messages and what they mean, without mpv: the lines are as mpv 0.35 sends them.
@Suite struct MpvPlaybackTests {
    private func feed(_ lines: [String], into playback: inout MpvPlayback) -> [PlayerEvent] {
        lines.flatMap { line -> [PlayerEvent] in
            guard let message = MpvMessage(line: Data(line.utf8)) else {
                Issue.record("unread line \(line)")
                return []
            }
            return playback.handle(message)
        }
    }

    static let loading = [
        #"{"event":"property-change","id":1,"name":"time-pos"}"#,
        #"{"event":"property-change","id":2,"name":"pause","data":false}"#,
        #"{"event":"property-change","id":4,"name":"speed","data":1.0}"#,
        #"{"event":"start-file","playlist_entry_id":1}"#,
        #"{"event":"file-loaded"}"#,
        #"{"event":"property-change","id":1,"name":"time-pos","data":0.0}"#,
        #"{"event":"property-change","id":3,"name":"duration","data":6.0}"#,
        #"{"event":"property-change","id":5,"name":"chapter-list","data":[{"title":"Intro","time":0.0},{"title":"End","time":4.0}]}"#,
        #"{"event":"property-change","id":6,"name":"chapter","data":0}"#,
        #"{"event":"playback-restart"}"#,
    ]

    @Test func readsRepliesEventsAndValues() {
        #expect(MpvMessage(line: Data(#"{"request_id":7,"error":"success","data":0}"#.utf8)) == .reply(requestID: 7, error: "success", data: .number(0)))
        #expect(MpvMessage(line: Data(#"{"request_id":7,"error":"success","data":true}"#.utf8)) == .reply(requestID: 7, error: "success", data: .bool(true)))
        #expect(MpvMessage(line: Data(#"{"event":"property-change","id":1,"name":"pause","data":false}"#.utf8)) == .propertyChange(name: "pause", value: .bool(false)))
        #expect(MpvMessage(line: Data(#"{"event":"property-change","id":1,"name":"time-pos","data":1}"#.utf8)) == .propertyChange(name: "time-pos", value: .number(1)))
        #expect(MpvMessage(line: Data(#"{"event":"property-change","id":1,"name":"time-pos"}"#.utf8)) == .propertyChange(name: "time-pos", value: nil))
        #expect(
            MpvMessage(line: Data(#"{"event":"end-file","reason":"error","playlist_entry_id":1,"file_error":"unrecognized file format"}"#.utf8))
                == .endFile(reason: "error", fileError: "unrecognized file format"))
        #expect(MpvMessage(line: Data(#"{"event":"playback-restart"}"#.utf8)) == .event("playback-restart"))
        #expect(MpvMessage(line: Data("not json".utf8)) == nil)
        #expect(MpvMessage(line: Data("[1,2]".utf8)) == nil)
        #expect(MpvMessage(line: Data(#"{"neither":1}"#.utf8)) == nil)
    }

    @Test func writesCommandsAsOneLineEach() {
        let line = MpvMessage.commandLine([.string("set_property"), .string("speed"), .number(1.5)], requestID: 3)
        #expect(String(decoding: line, as: UTF8.self) == #"{"command":["set_property","speed",1.5],"request_id":3}"# + "\n")
        let quit = MpvMessage.commandLine([.string("quit")], requestID: nil)
        #expect(String(decoding: quit, as: UTF8.self) == #"{"command":["quit"]}"# + "\n")
    }

    @Test func startsAtTheFirstPlaybackRestartWithTheChapter() {
        var playback = MpvPlayback()
        let events = feed(Self.loading, into: &playback)
        #expect(events == [.started(position: 0, duration: 6), .chapter(index: 0, title: "Intro", start: 0)])
    }

    @Test func positionsPausesSeeksSpeedsAndChaptersAfterTheStart() {
        var playback = MpvPlayback()
        _ = feed(Self.loading, into: &playback)
        let events = feed(
            [
                #"{"event":"property-change","id":1,"name":"time-pos","data":0.5}"#,
                #"{"event":"property-change","id":2,"name":"pause","data":true}"#,
                #"{"event":"property-change","id":2,"name":"pause","data":true}"#,
                #"{"event":"property-change","id":2,"name":"pause","data":false}"#,
                #"{"event":"seek"}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":4.5}"#,
                #"{"event":"property-change","id":6,"name":"chapter","data":1}"#,
                #"{"event":"playback-restart"}"#,
                #"{"event":"property-change","id":4,"name":"speed","data":1.5}"#,
                #"{"event":"audio-reconfig"}"#,
                #"{"request_id":3,"error":"success"}"#,
            ], into: &playback)
        #expect(
            events == [
                .position(0.5), .paused(0.5), .resumed(0.5), .position(4.5), .chapter(index: 1, title: "End", start: 4),
                .seeked(4.5), .speedChanged(1.5),
            ])
    }

    /// mpv may report the new position after the `playback-restart` of a seek: the seek waits for it.
    @Test func aSeekReportsThePositionItReached() {
        var playback = MpvPlayback()
        _ = feed(Self.loading, into: &playback)
        let events = feed(
            [
                #"{"event":"property-change","id":1,"name":"time-pos","data":0.5}"#,
                #"{"event":"seek"}"#,
                #"{"event":"playback-restart"}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":40.0}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":40.1}"#,
            ], into: &playback)
        #expect(events == [.position(0.5), .seeked(40), .position(40.1)])
    }

    /// mpv's property changes may lag its events: a start reported before its position waits for it.
    @Test func aStartReportsThePositionItBeganAt() {
        var playback = MpvPlayback()
        let events = feed(
            [
                #"{"event":"start-file","playlist_entry_id":1}"#,
                #"{"event":"file-loaded"}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":0.0}"#,
                #"{"event":"seek"}"#,
                #"{"event":"property-change","id":3,"name":"duration","data":120.0}"#,
                #"{"event":"playback-restart"}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":55.0}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":55.1}"#,
            ], into: &playback)
        #expect(events == [.started(position: 55, duration: 120), .position(55.1)])
    }

    /// On a busy machine `playback-restart` may come before the gathered property changes,
    /// which mpv sends in the order they were observed: the length before the position.
    @Test func aStartBeforeItsPropertiesKnowsTheLength() {
        var playback = MpvPlayback()
        let gathered = ["duration", "time-pos"].sorted {
            MpvPlayback.observedProperties.firstIndex(of: $0)! < MpvPlayback.observedProperties.firstIndex(of: $1)!
        }.map { name in
            name == "duration"
                ? #"{"event":"property-change","id":1,"name":"duration","data":60.0}"#
                : #"{"event":"property-change","id":3,"name":"time-pos","data":0.0}"#
        }
        let events = feed(
            [#"{"event":"start-file","playlist_entry_id":1}"#, #"{"event":"file-loaded"}"#, #"{"event":"playback-restart"}"#]
                + gathered, into: &playback)
        #expect(events == [.started(position: 0, duration: 60)])
    }

    /// A seek near the end, whose position mpv reported before its seek event: nothing more
    /// comes before the end of the file, which ends the seek.
    @Test func aSeekThatTheEndOfTheFileOvertakesEndsAtTheLastPosition() {
        var playback = MpvPlayback()
        _ = feed(Self.loading, into: &playback)
        let events = feed(
            [
                #"{"event":"property-change","id":1,"name":"time-pos","data":5.6}"#,
                #"{"event":"seek"}"#,
                #"{"event":"playback-restart"}"#,
                #"{"event":"end-file","reason":"eof","playlist_entry_id":1}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":5.9}"#,
            ], into: &playback)
        #expect(events == [.position(5.6), .seeked(5.6)])
        #expect(playback.end() == PlaybackEnd(position: 5.9, duration: 6, reason: .endOfFile))
    }

    @Test func nothingIsReportedBeforeTheStartButTheLastPosition() {
        var playback = MpvPlayback()
        let events = feed(
            [
                #"{"event":"property-change","id":1,"name":"time-pos","data":2.0}"#,
                #"{"event":"property-change","id":2,"name":"pause","data":true}"#,
                #"{"event":"property-change","id":4,"name":"speed","data":2.0}"#,
            ], into: &playback)
        #expect(events.isEmpty)
        #expect(playback.end() == PlaybackEnd(position: 2, duration: nil, reason: .playerDied))
    }

    /// The end from the last messages mpv sent before its process went away.
    @Test(arguments: [
        ([#"{"event":"end-file","reason":"eof","playlist_entry_id":1}"#], false, PlaybackEnd.Reason.endOfFile),
        ([#"{"event":"end-file","reason":"quit","playlist_entry_id":1}"#], false, .quit),
        ([#"{"event":"end-file","reason":"quit","playlist_entry_id":1}"#, #"{"event":"shutdown"}"#], true, .stopped),
        ([#"{"event":"end-file","reason":"stop","playlist_entry_id":1}"#], false, .quit),
        ([#"{"event":"shutdown"}"#], false, .quit),
        ([], false, .playerDied),
        ([], true, .stopped),
    ])
    func endings(lines: [String], stopRequested: Bool, reason: PlaybackEnd.Reason) {
        var playback = MpvPlayback()
        _ = feed(Self.loading, into: &playback)
        if stopRequested { playback.requestStop() }
        _ = feed(lines, into: &playback)
        #expect(playback.end() == PlaybackEnd(position: 0, duration: 6, reason: reason))
    }

    /// mpv-mpris's Next is mpv's playlist-next: the file stops and the entry after it starts.
    @Test(arguments: [
        ([#"{"event":"end-file","reason":"stop","playlist_entry_id":1}"#, #"{"event":"start-file","playlist_entry_id":2}"#], false, PlaybackEnd.Reason.next),
        ([#"{"event":"end-file","reason":"stop","playlist_entry_id":1}"#, #"{"event":"idle"}"#], false, .quit),
        ([#"{"event":"end-file","reason":"eof","playlist_entry_id":1}"#, #"{"event":"start-file","playlist_entry_id":2}"#], true, .endOfFile),
        ([#"{"event":"end-file","reason":"quit","playlist_entry_id":1}"#], true, .quit),
    ])
    func aRequestOfferingANextEndsWithItOnlyWhenMpvMovesOn(lines: [String], overAtItsEnd: Bool, reason: PlaybackEnd.Reason) {
        var playback = MpvPlayback(offersNext: true)
        _ = feed(Self.loading + [lines[0]], into: &playback)
        // A stop waits to learn whether mpv moves on before mpv is told to quit.
        #expect(playback.isOver == overAtItsEnd)
        _ = feed(Array(lines.dropFirst()), into: &playback)
        #expect(playback.isOver)
        #expect(playback.end() == PlaybackEnd(position: 0, duration: 6, reason: reason))
    }

    @Test func withoutANextOfferedAnotherFileAfterAStopIsNoNext() {
        var playback = MpvPlayback()
        _ = feed(Self.loading + [#"{"event":"end-file","reason":"stop","playlist_entry_id":1}"#], into: &playback)
        #expect(playback.isOver)
        _ = feed([#"{"event":"start-file","playlist_entry_id":2}"#], into: &playback)
        #expect(playback.end().reason == .quit)
    }

    @Test func theEndOfTheFileBeforeAStopStaysTheEndOfTheFile() {
        var playback = MpvPlayback()
        _ = feed(Self.loading + [#"{"event":"end-file","reason":"eof","playlist_entry_id":1}"#], into: &playback)
        playback.requestStop()
        #expect(playback.end().reason == .endOfFile)
    }

    @Test func nothingIsReportedAfterTheEndOfTheFile() {
        var playback = MpvPlayback()
        _ = feed(Self.loading, into: &playback)
        let events = feed(
            [
                #"{"event":"end-file","reason":"eof","playlist_entry_id":1}"#,
                #"{"event":"property-change","id":1,"name":"time-pos","data":5.9}"#,
                #"{"event":"property-change","id":2,"name":"pause","data":true}"#,
            ], into: &playback)
        #expect(events.isEmpty)
        #expect(playback.end().position == 5.9)
    }

    @Test(arguments: [
        ("unrecognized file format", [String](), PlayerFailure.Kind.notAudio),
        ("no audio or video data played", [], .notAudio),
        ("loading failed", [], .loadingFailed),
        ("loading failed", [#"{"event":"log-message","prefix":"ffmpeg","level":"warn","text":"http: HTTP error 404 Not Found\n"}"#], .httpStatus(404)),
        ("loading failed", [#"{"event":"log-message","prefix":"ffmpeg","level":"warn","text":"http: HTTP error 401 Unauthorized\n"}"#], .httpStatus(401)),
        ("audio output initialization failed", [], .audioOutputFailed),
        ("something new", [], .other),
    ])
    func failures(fileError: String, log: [String], kind: PlayerFailure.Kind) {
        var playback = MpvPlayback()
        let events = feed(
            log + [
                #"{"event":"log-message","prefix":"stream","level":"error","text":"Failed to open http://bob:hunter2@example.com/a.mp3.\n"}"#,
                #"{"event":"log-message","prefix":"cplayer","level":"warn","text":"A warning that is kept out.\n"}"#,
                #"{"event":"end-file","reason":"error","playlist_entry_id":1,"file_error":"\#(fileError)"}"#,
            ], into: &playback)
        #expect(events.isEmpty)
        guard case .failed(let failure) = playback.end().reason else {
            Issue.record("not a failure")
            return
        }
        #expect(failure.kind == kind)
        #expect(failure.playerError == fileError)
        #expect(failure.messages.last == "Failed to open http://bob:***@example.com/a.mp3.")
        #expect(!failure.messages.contains("A warning that is kept out."))
    }

    @Test func aRedirectIsNotTheEnd() {
        var playback = MpvPlayback()
        _ = feed([#"{"event":"end-file","reason":"redirect","playlist_entry_id":1}"#] + Self.loading, into: &playback)
        #expect(playback.started)
        #expect(playback.endFile == nil)
    }
}

@Suite struct ChapterFileTests {
    @Test func writesFFmetadataWithEscapedTitles() {
        let text = ChapterFile.text(
            [
                PlaybackChapter(title: "Second; = #2 \\ ok", start: 61.5),
                PlaybackChapter(title: "First\nline", start: 0),
            ], duration: 120)
        #expect(
            text == """
                ;FFMETADATA1
                [CHAPTER]
                TIMEBASE=1/1000
                START=0
                END=61500
                title=First line
                [CHAPTER]
                TIMEBASE=1/1000
                START=61500
                END=120000
                title=Second\\; \\= \\#2 \\\\ ok

                """)
    }

    @Test func theLastChapterEndsAfterItsStartWithoutADuration() {
        #expect(ChapterFile.text([PlaybackChapter(title: "Only", start: 10)]).contains("START=10000\nEND=11000\n"))
        #expect(ChapterFile.text([]) == ";FFMETADATA1\n")
    }
}

@Suite struct PlayerExecutableTests {
    @Test func singlecastPlayerIsUsedAsItIs() throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        #expect(try PlayerExecutable.locate(configured: fixture.wrapper.path, environment: ["PATH": "/nowhere"]) == fixture.wrapper)
    }

    @Test func aMissingSinglecastPlayerIsAnErrorNamingIt() {
        #expect(throws: PlayerError.configuredPlayerMissing(path: "/nowhere/mpv")) {
            try PlayerExecutable.locate(configured: "/nowhere/mpv", environment: ["PATH": "/usr/bin:/bin"])
        }
        #expect(throws: PlayerError.configuredPlayerMissing(path: "/tmp")) {
            try PlayerExecutable.locate(configured: "/tmp", environment: [:])
        }
    }

    @Test func mpvIsFoundOnPathOrNotAtAll() throws {
        let fixture = try PlayerFixture()
        defer { fixture.remove() }
        _ = try PlayerFixture.script(in: fixture.folder, named: "mpv", body: "exit 0\n")
        let found = try PlayerExecutable.locate(configured: nil, environment: ["PATH": "/nowhere:" + fixture.folder.path])
        #expect(found.path == fixture.folder.appendingPathComponent("mpv").path)
        #expect(throws: PlayerError.playerNotFound) {
            try PlayerExecutable.locate(configured: nil, environment: ["PATH": "/nowhere:" + fixture.folder.appendingPathComponent("run").path])
        }
    }

    @Test func mpvsCommandLineHoldsNothingAboutTheEpisode() {
        let player = MpvPlayer(executable: PlayerExecutable(path: "/usr/bin/mpv"), libraryDirectory: URL(fileURLWithPath: "/lib"), environment: [:])
        let arguments = player.arguments(socket: "/run/x/mpv.sock", interactive: false)
        #expect(arguments.first == "/usr/bin/mpv")
        #expect(arguments.contains("--input-ipc-server=/run/x/mpv.sock"))
        #expect(arguments.contains("--no-video"))
        #expect(arguments.contains("--idle=once"))
        #expect(arguments.contains("--input-terminal=no"))
        #expect(!player.arguments(socket: "/s", interactive: true).contains("--input-terminal=no"))
        let commands = player.loadCommands(
            PlaybackRequest(source: .stream(URL(string: "https://bob:hunter2@example.com/a.mp3")!), start: 12.5, speed: 1.25),
            chaptersFile: nil,
            stream: MpvPlayer.StreamTarget(
                url: URL(string: "https://example.com/a.mp3")!, credentials: Credentials(user: "bob", password: "hunter2")))
        #expect(commands.last == .array([.string("loadfile"), .string("https://example.com/a.mp3"), .string("replace")]))
        #expect(commands.contains(.array([.string("set_property"), .string("http-header-fields"), .array([.string("Authorization: Basic Ym9iOmh1bnRlcjI=")])])))
        #expect(commands.contains(.array([.string("set_property"), .string("start"), .string("12.500")])))
        #expect(commands.contains(.array([.string("set_property"), .string("speed"), .number(1.25)])))
    }

    @Test func aRequestOfferingANextGivesMpvAnEntryToMoveTo() {
        let player = MpvPlayer(executable: PlayerExecutable(path: "/usr/bin/mpv"), libraryDirectory: URL(fileURLWithPath: "/lib"), environment: [:])
        let offering = player.loadCommands(PlaybackRequest(source: .file("/a.mp3"), offersNext: true), chaptersFile: nil, stream: nil)
        #expect(offering.last == MpvPlayer.nextEntry)
        #expect(offering.dropLast().last == .array([.string("loadfile"), .string("/a.mp3"), .string("replace")]))
        let line = String(decoding: MpvMessage.commandLine(MpvPlayer.nextEntry, requestID: 2), as: UTF8.self)
        #expect(line == #"{"command":{"flags":"append","name":"loadfile","options":{"msg-level":"all=no"},"url":"memory://"},"request_id":2}"# + "\n")
        let plain = player.loadCommands(PlaybackRequest(source: .file("/a.mp3")), chaptersFile: nil, stream: nil)
        #expect(!plain.contains(MpvPlayer.nextEntry))
    }

    @Test func playerMPRISOffKeepsMpvFromLoadingItsScripts() {
        var player = MpvPlayer(executable: PlayerExecutable(path: "/usr/bin/mpv"), libraryDirectory: URL(fileURLWithPath: "/lib"), environment: [:])
        #expect(!player.arguments(socket: "/s", interactive: false).contains("--load-scripts=no"))
        player.mpris = false
        player.extraOptions = ["--load-scripts=yes"]
        // After the user's options, so that it wins.
        #expect(player.arguments(socket: "/s", interactive: false).suffix(from: 2).contains("--load-scripts=no"))
        #expect(player.arguments(socket: "/s", interactive: false).last { $0.hasPrefix("--load-scripts") } == "--load-scripts=no")
    }

    @Test func theSocketFolderFollowsTheDaemonsRule() {
        let library = URL(fileURLWithPath: "/tmp/lib")
        let player = MpvPlayer(executable: PlayerExecutable(path: "/usr/bin/mpv"), libraryDirectory: library, environment: [:])
        #expect(player.socketDirectory == library)
        var withRuntime = player
        withRuntime.environment = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(withRuntime.socketDirectory.path == "/run/user/1000")
    }
}
