import Foundation
import Testing
import TestSupport

/// The terminal UI run as a user runs it: the built binary in a tmux pane, against the tests'
/// local feed server, playing with the real mpv (without sound output).
@Suite(.serialized) struct UICommandTests {
    @Test func offATerminalTheUISaysItNeedsOneAndSinglecastAlonePrintsTheHelp() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        let ui = try await cli.run(["ui"])
        #expect(ui.status == 1)
        #expect(ui.stderr == "Error: the terminal UI needs a terminal: standard input and output must both be one\n")
        let alone = try await cli.run([])
        #expect(alone.stdout.hasPrefix("OVERVIEW: A podcast client"))
    }

    @Test func aTerminalThatCannotMoveTheCursorIsRefusedAndLeftAsItWas() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        let ui = try await TmuxUI.start(cli, arguments: ["ui"], environment: ["TERM": "dumb"])
        defer { ui.stop() }
        try await ui.waitFor("Error: the terminal (TERM=dumb) cannot show the UI: ncurses does not know it, or it cannot move the cursor")
        #expect(try await ui.waitForExit() == 1)
    }

    @Test func navigatePlayPauseSeekAndQuitSavingThePosition() async throws {
        let show = try await ListeningShow.start()
        defer { Task { try? await show.stop() } }
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Private Talk")
        defer { ui.stop() }
        try ui.press("Tab", "j")
        try await ui.waitUntilScreen { $0.contains { $0.hasSuffix("│2024-07-02 · 2:00 · 1.9 MB") } }
        // The password of a private feed's URL is never shown.
        try await ui.waitFor("http://listener:***@127.0.0.1")
        try ui.press("k")
        // Enter plays from the details pane as from the episodes pane.
        let (_, player) = try await playFirstEpisode(ui)
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("▶ Long Talk") && $0.contains("/ 2:00") } }
        try ui.press("p")
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("⏸ Long Talk") } }
        try ui.press("f")
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("⏸ Long Talk") && $0.contains(" 0:3") } }
        try ui.press("]")
        try await ui.waitFor("1.1×")
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
        #expect(await TestProcess.waitUntilGone(player))
        let episode = try await show.episodes()[0]
        let position = try #require(episode["position"] as? Double)
        #expect(position >= 29 && position < 40, "saved at \(position)")  // mpv lands a seek to 30 within a frame of it
        // The speed is remembered for the podcast, as `play --speed` remembers it.
        let podcasts = try JSONSerialization.jsonObject(with: Data(try await show.cli.run(["podcasts", "--json"]).stdout.utf8))
        #expect((podcasts as? [[String: Any]])?.first?["speed"] as? Double == 1.1)
    }

    @Test func downloadMarkPlayedFilterAndSeeTheCommandLinesChanges() async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Episode Two")
        defer { ui.stop() }
        try ui.press("Tab", "j", "s")
        try await ui.waitUntilScreen { $0.contains { $0.contains("Episode Two") && $0.contains("downloaded") } }
        #expect(fileSize(show.folder.appendingPathComponent("Episode Two.mp3")) == 200_000)
        try ui.press("m")
        try await ui.waitUntilScreen { $0.contains { $0.contains("Episode Two") && $0.contains("played") } }
        // A change made by the command line meanwhile.
        #expect(try await show.cli.run(["played", "3", "--feed", show.feedURL]).status == 0)
        try await ui.waitUntilScreen { $0.contains { $0.contains("Episode One") && $0.contains("played") } }
        try ui.press("/")
        try ui.type("Three")
        try await ui.waitUntilScreen { lines in
            lines.contains { $0.contains("Episode Three") } && !lines.contains { $0.contains("Episode Two") }
        }
        try ui.press("Escape")
        try await ui.waitFor("Episode Two")
        try ui.press("C-c")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test(arguments: ["p", "d"])
    func quittingWithADownloadRunningAsksWhetherToPauseItOrHandItToTheDaemon(answer: String) async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        show.server.serve(path: "/media/one.mp3", generatedSize: 3_000_000, contentType: "audio/mpeg", bytesPerSecond: 1_000_000)
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Episode One")
        defer { ui.stop() }
        try ui.press("Tab", "j", "j", "s")
        try await ui.waitUntilScreen { $0.contains { $0.contains("Episode One") && $0.contains("↓") } }
        try ui.press("q")
        try await ui.waitFor("Downloads are running here: d hands them to the daemon, p pauses them")
        try ui.press(answer)
        #expect(try await ui.waitForExit() == 0)
        if answer == "p" {
            #expect(try await show.downloadStates() == ["paused"])
            return
        }
        let file = show.folder.appendingPathComponent("Episode One.mp3")
        try await waitUntil { fileSize(file) == 3_000_000 }
        let lock = try String(contentsOf: show.cli.home.appendingPathComponent("daemon.lock"), encoding: .utf8)
        let daemon = try #require(Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(daemon, SIGTERM)
        try await waitUntil { kill(daemon, 0) != 0 }
    }

    @Test func theDirectorySearchFindsAShowAndSubscribesToIt() async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        let ui = try await TmuxUI.start(show.cli)
        defer { ui.stop() }
        try await ui.waitFor("No subscriptions")
        try ui.press("5")
        try ui.type("accidental")
        try ui.press("Enter")
        try await ui.waitFor("Technik & Zufall")
        // The third result is the one whose feed the local server serves.
        try ui.press("j", "j", "a")
        try await ui.waitFor("Subscribed to Loopback Radio.")
        try ui.press("1")
        try await ui.waitFor("Episode Two")
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test func resizingRedrawsAndATooSmallWindowSaysSo() async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Loopback Radio")
        defer { ui.stop() }
        try ui.resize(width: 50, height: 20)
        try await ui.waitFor("The window is too small")
        try ui.resize(width: 90, height: 20)
        try await ui.waitUntilScreen { lines in
            lines.contains { $0.contains("Podcasts (1)") } && lines.allSatisfy { $0.count <= 90 }
                && !lines.contains { $0.contains("too small") }
        }
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test func aLocaleThatIsNotUTF8GetsASCIIAndNoColorNone() async throws {
        let show = try await LoopbackShow.start()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        let ui = try await TmuxUI.start(show.cli, environment: ["LANG": "C", "NO_COLOR": "1"])
        defer { ui.stop() }
        // The counts come after the titles.
        try await ui.waitFor("Loopback Radio          4    *1|* Episode Three: Caf? & R?~ 1:02:03")
        #expect(try ui.screen().allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test func wideCharactersStayAlignedAndAHostileTitleNeverReachesTheTerminal() async throws {
        let server = try await TestServer.start()
        let cli = try CLI()
        defer {
            cli.removeHome()
            Task { try? await server.stop() }
        }
        for (path, title) in [("/wide.xml", "日本語ポッドキャスト"), ("/evil.xml", "\u{1B}]0;pwned\u{7}Evil\u{1B}[2J Show")] {
            let escaped = title.unicodeScalars.map { $0.value < 0x20 ? "&#\($0.value);" : String($0) }.joined()
            let feed = """
                <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>\(escaped)</title>
                <item><title>\(escaped) episode</title><guid>1</guid></item></channel></rss>
                """
            server.serve(path: path, data: Data(feed.utf8), contentType: "application/rss+xml")
            #expect(try await cli.run(["subscribe", server.url(path).absoluteString]).status == 0)
        }
        let ui = try await TmuxUI.start(cli)
        defer { ui.stop() }
        let lines = try await ui.waitFor("Evil")
        #expect(try ui.pane("#{pane_title}") != "pwned")
        let wide = try #require(lines.first { $0.contains("日本語ポッドキャスト") })
        let evil = try #require(lines.first { $0.contains("Evil") })
        // The pane's separator is at the same display column on both rows.
        func separatorColumn(_ line: String) -> Int? {
            guard let index = line.firstIndex(of: "│") else { return nil }
            return line[..<index].unicodeScalars.reduce(0) { $0 + ($1.value >= 0x3000 ? 2 : 1) }
        }
        #expect(separatorColumn(wide) != nil && separatorColumn(wide) == separatorColumn(evil))
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test(arguments: [("TERM", 143), ("HUP", 129)])
    func aSignalWhilePlayingRestoresTheTerminalStopsMpvAndSavesThePosition(signal: String, status: Int32) async throws {
        let show = try await ListeningShow.start()
        defer { Task { try? await show.stop() } }
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Private Talk")
        defer { ui.stop() }
        let (singlecast, player) = try await playFirstEpisode(ui)
        try ui.press("f")
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("▶ Long Talk") && $0.contains(" 0:3") } }
        kill(singlecast, signal == "TERM" ? SIGTERM : SIGHUP)
        #expect(try await ui.waitForExit() == status)
        #expect(await TestProcess.waitUntilGone(player))
        let position = try #require(try await show.episodes()[0]["position"] as? Double)
        #expect(position >= 29, "saved at \(position)")
    }

    @Test func mpvDyingIsALineAndTheUIGoesOn() async throws {
        let show = try await ListeningShow.start()
        defer { Task { try? await show.stop() } }
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Private Talk")
        defer { ui.stop() }
        let (_, player) = try await playFirstEpisode(ui)
        kill(player, SIGKILL)
        try await ui.waitFor("mpv stopped unexpectedly")
        try ui.press("j")
        try await ui.waitFor("Private Talk")
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test func aMissingPlayerIsALineAndTheUIGoesOn() async throws {
        let show = try await ListeningShow.start(environment: ["SINGLECAST_PLAYER": "/nonexistent/mpv"])
        defer { Task { try? await show.stop() } }
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Private Talk")
        defer { ui.stop() }
        try ui.press("Tab", "Enter")
        try await ui.waitFor("SINGLECAST_PLAYER names /nonexistent/mpv")
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    @Test func theQueuePlaysThroughByItselfAndShowsWhatTheCommandLineQueues() async throws {
        let show = try await ListeningShow.start(feed: "cli/queue.xml")
        defer { Task { try? await show.stop() } }
        try await show.list()
        #expect(try await show.cli.run(["queue", "add", "1", "2"]).status == 0)
        let ui = try await openUI(show.cli, subscribedTo: show.feedURL, showing: "Short Two")
        defer { ui.stop() }
        try ui.press("3")
        try await ui.waitFor("Queue (2)")
        try ui.press("Enter")
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("▶ Short One") } }
        let singlecast = try #require(try ui.singlecastProcess())
        #expect(try TestProcess.procText(try #require(TestProcess.children(of: singlecast).first), "cmdline").contains("mpv --ao=null"))
        // Once the first has played to its end, the second starts by itself and the first leaves the queue.
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("▶ Short Two") } }
        try await ui.waitFor("The queue is empty")
        #expect(try await show.cli.run(["queue", "add", "3"]).status == 0)
        try await ui.waitUntilScreen { lines in lines.contains { $0.contains("Queue (1)") } && lines.contains { $0.contains("Long Talk") } }
        try ui.press("q")
        #expect(try await ui.waitForExit() == 0)
    }

    /// Subscribes `cli`'s library to `feedURL` and opens the UI on it, once the screen shows `text`
    /// (an episode: the keys then find the list read).
    private func openUI(_ cli: CLI, subscribedTo feedURL: String, showing text: String) async throws -> TmuxUI {
        #expect(try await cli.run(["subscribe", feedURL]).status == 0)
        let ui = try await TmuxUI.start(cli)
        try await ui.waitFor(text)
        return ui
    }

    /// Plays the first episode from the episodes pane; returns `singlecast` and its mpv.
    private func playFirstEpisode(_ ui: TmuxUI) async throws -> (singlecast: pid_t, player: pid_t) {
        try ui.press("Tab", "Enter")
        try await ui.waitUntilScreen { $0.contains { $0.hasPrefix("▶ Long Talk") } }
        let singlecast = try #require(try ui.singlecastProcess())
        let player = try #require(TestProcess.children(of: singlecast).first)
        #expect(try TestProcess.procText(player, "cmdline").contains("mpv --ao=null"))
        return (singlecast, player)
    }
}
