import Foundation
import Testing
import TestSupport

/// The desktop's media controls (MPRIS, through Debian's `mpv-mpris`) driving `singlecast play`
/// with the real mpv (`--ao=null`), on a D-Bus session bus of the test's own, with `playerctl`.
@Suite(.serialized) struct MPRISCommandTests {
    /// The show, listed, with `play` and its mpv on a private session bus.
    private func show(feed: String = "cli/listening.xml") async throws -> (ListeningShow, DBusSession) {
        let bus = try await DBusSession.start()
        let show = try await ListeningShow.start(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], feed: feed)
        try await show.list()
        return (show, bus)
    }

    @Test func playerctlListsThePlayerAndItsPauseAndSeekAreSaved() async throws {
        let (show, bus) = try await show()
        defer { bus.stop(); Task { try? await show.stop() } }
        let run = try show.play(["1", "--json"])
        // A failing expectation must not leave the player playing.
        defer { if run.process.isRunning { run.process.terminate() } }
        try await run.waitForEvent("started")
        try await waitUntil { try await bus.playerctl(["-l"]).output == "mpv\n" }
        #expect(try await bus.playerctl(["position", "40"]).status == 0)
        try await run.waitForEvent("position") { isNear($0["position"], 40) }
        #expect(try await bus.playerctl(["pause"]).status == 0)
        let paused = try await run.waitForEvent("paused")
        let position = try #require(paused["position"] as? Double)
        // playerctl is a process of its own: a loaded machine may take a while to start it.
        #expect(position >= 40 && position < 50, "paused at \(position)")
        #expect(try await bus.playerctl(["status"]).output == "Paused\n")
        // Saved at the pause, as a pause by mpv's own key is.
        #expect(isNear(try await show.episodes()[0]["position"], position))
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
    }

    @Test func nextPlaysTheQueuesNextEpisodeAndTheSkippedOneKeepsItsPlace() async throws {
        let (show, bus) = try await show(feed: "cli/queue.xml")
        defer { bus.stop(); Task { try? await show.stop() } }
        #expect(try await show.cli.run(["queue", "add", "3", "1"]).status == 0)
        let run = try show.play(["--queue", "--json"])
        defer { if run.process.isRunning { run.process.terminate() } }
        #expect(try await run.waitForEvent("started")["title"] as? String == "Long Talk")
        try await run.send(["seek", 40, "absolute"])
        try await run.waitForEvent("position") { isNear($0["position"], 40) }
        try await waitUntil { try await bus.playerctl(["-l"]).output == "mpv\n" }
        #expect(try await bus.playerctl(["next"]).status == 0)
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
        let events = run.events
        #expect(events.filter { $0["event"] as? String == "started" }.map { $0["title"] as? String } == ["Long Talk", "Short One"])
        #expect(events.filter { $0["event"] as? String == "ended" }.map { $0["reason"] as? String } == ["next", "end"])
        let skippedAt = try #require(events.first { $0["event"] as? String == "ended" }?["position"] as? Double)
        #expect(skippedAt >= 40 && skippedAt < 60, "skipped at \(skippedAt)")
        let queue = try JSONSerialization.jsonObject(with: Data(try await show.cli.run(["queue", "--json"]).stdout.utf8)) as? [[String: Any]]
        #expect(queue?.map { $0["title"] as? String } == ["Long Talk"])
        #expect(isNear(queue?.first?["position"], skippedAt, within: 0.1))
    }

    @Test func playerMPRISFalseKeepsThePlayerOffTheBus() async throws {
        let (show, bus) = try await show()
        defer { bus.stop(); Task { try? await show.stop() } }
        try show.cli.writeConfig("player-mpris = false\n")
        let run = try show.play(["1", "--json"])
        defer { if run.process.isRunning { run.process.terminate() } }
        try await run.waitForEvent("started")
        let arguments = try TestProcess.procText(try await run.playerPID(), "cmdline")
        #expect(arguments.contains("--load-scripts=no"))
        // Long past the moment the script registers when it is loaded (the test above waits for it).
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            #expect(try await bus.playerctl(["-l"]).output == "")
            try await Task.sleep(for: .milliseconds(200))
        }
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
    }
}
