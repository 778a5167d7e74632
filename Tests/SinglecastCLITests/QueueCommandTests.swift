import Foundation
import Testing
import TestSupport

/// `singlecast queue …`, `subscribe --queue-new`, and `play --queue` and `--sleep` with the real
/// mpv (`--ao=null`), against `Fixtures/cli/queue.xml` on a local server.
@Suite(.serialized) struct QueueCommandTests {
    private func queueShow() async throws -> ListeningShow {
        let show = try await ListeningShow.start(feed: "cli/queue.xml")
        try await show.list()
        return show
    }

    /// The queue as `queue --json` lists it: the episodes' titles in order.
    private func queuedTitles(_ show: ListeningShow) async throws -> [String] {
        try await queueJSON(show).map { $0["title"] as? String ?? "" }
    }

    private func queueJSON(_ show: ListeningShow) async throws -> [[String: Any]] {
        let result = try await show.cli.run(["queue", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    @Test func addListMoveRemoveAndClear() async throws {
        let show = try await queueShow()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["queue"]).stdout == "The queue is empty.\n")
        var result = try await show.cli.run(["queue", "add", "3", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "added to the queue as 1: Loopback Queue: Long Talk\nadded to the queue as 2: Loopback Queue: Short One\n")
        result = try await show.cli.run(["queue", "add", "1-2", "--feed", show.feedURL])
        #expect(
            result.stdout
                == "already in the queue as 2: Loopback Queue: Short One\nadded to the queue as 3: Loopback Queue: Short Two\n")
        result = try await show.cli.run(["queue"])
        #expect(
            result.stdout == """
                #  Date        Length  Podcast         State  Title
                1  2024-07-01    2:00  Loopback Queue  -      Long Talk
                2  2024-07-03          Loopback Queue  -      Short One
                3  2024-07-02          Loopback Queue  -      Short Two

                """, "\(result.stdout)")
        let listed = try await queueJSON(show)
        #expect(listed.map { $0["number"] as? Int } == [1, 2, 3])
        #expect(listed[0]["podcast"] as? String == "Loopback Queue" && listed[0]["duration"] as? Int == 120)
        #expect(listed[0]["state"] as? String == "not-started" && listed[0]["position"] is NSNull)

        result = try await show.cli.run(["queue", "move", "3", "1"])
        #expect(result.stdout == "moved to 1 in the queue: Loopback Queue: Short Two\n")
        #expect(try await queuedTitles(show) == ["Short Two", "Long Talk", "Short One"])
        result = try await show.cli.run(["queue", "remove", "3", "1"])
        #expect(result.stdout == "removed from the queue: Loopback Queue: Short One\nremoved from the queue: Loopback Queue: Short Two\n")
        #expect(try await queuedTitles(show) == ["Long Talk"])
        result = try await show.cli.run(["queue", "clear"])
        #expect(result.stdout == "cleared the queue: 1 episode\n")
        #expect(try await queuedTitles(show).isEmpty)
    }

    @Test func badNumbersAreNamedAndChangeNothing() async throws {
        let show = try await queueShow()
        defer { Task { try? await show.stop() } }
        var result = try await show.cli.run(["queue", "remove", "1"])
        #expect(result.status == 1 && result.stderr == "Error: the queue is empty: add episodes with `singlecast queue add N`\n")
        result = try await show.cli.run(["play", "--queue"])
        #expect(result.status == 1 && result.stderr.contains("the queue is empty"), "\(result.stderr)")
        result = try await show.cli.run(["queue", "add", "1", "9"])
        #expect(result.status == 1 && result.stderr == "Error: there is no episode 9 in Loopback Queue: it has 3 episodes\n")
        #expect(try await queuedTitles(show).isEmpty, "nothing added")
        #expect(try await show.cli.run(["queue", "add", "1", "2"]).status == 0)
        result = try await show.cli.run(["queue", "remove", "2", "3"])
        #expect(result.status == 1 && result.stderr == "Error: there is no episode 3 in the queue: it has 2 episodes\n")
        for bad in [["move", "1", "3"], ["move", "3", "1"]] {
            result = try await show.cli.run(["queue"] + bad)
            #expect(result.status == 1 && result.stderr.contains("there is no episode 3 in the queue"), "\(bad)")
        }
        #expect(try await queuedTitles(show) == ["Short One", "Short Two"], "nothing changed")
        for bad in [["remove", "x"], ["add"], ["move", "1"], ["move", "0", "1"], ["remove", "0"], ["add", "1", "--new", "--feed", "@1"]] {
            #expect(try await show.cli.run(["queue"] + bad).status == 64, "\(bad)")
        }
        for bad in [["--queue", "1"], ["--queue", "--at", "10"], ["1", "--sleep", "soon"]] {
            #expect(try await show.cli.run(["play"] + bad).status == 64, "\(bad)")
        }
    }

    @Test func subscribeQueueNewPutsWhatUpdateFindsAtTheEnd() async throws {
        let show = try await ListeningShow.start(feed: "cli/queue.xml")
        defer { Task { try? await show.stop() } }
        let full = try String(contentsOf: Fixtures.url("cli/queue.xml"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: "127.0.0.1:\(show.server.port)")
        // The feed before Short One was published.
        let firstItem = try #require(full.range(of: "<item>")?.lowerBound)
        let secondItem = try #require(full.range(of: "<item>", range: full.index(after: firstItem)..<full.endIndex)?.lowerBound)
        let older = String(full[..<firstItem] + full[secondItem...])
        show.server.serve(path: "/feeds/listening.xml", data: Data(older.utf8), contentType: "application/rss+xml")
        var result = try await show.cli.run(["subscribe", show.feedURL, "--queue-new", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""queueNew" : true"#), "\(result.stdout)")
        #expect(try await show.cli.run(["podcasts", "--json"]).stdout.contains(#""queueNew" : true"#))
        #expect(try await queuedTitles(show).isEmpty, "subscribing queues nothing")
        #expect(try await show.cli.run(["queue", "add", "2", "--feed", "@1"]).status == 0)

        show.server.serve(path: "/feeds/listening.xml", data: Data(full.utf8), contentType: "application/rss+xml")
        result = try await show.cli.run(["update"])
        #expect(result.status == 0 && result.stdout.contains("1 new"), "\(result.stdout)")
        #expect(try await queuedTitles(show) == ["Long Talk", "Short One"])
        // Numbered as `new` lists them: Short One, then Short Two (the subscription's first).
        result = try await show.cli.run(["queue", "add", "--new", "2", "1"])
        #expect(
            result.stdout
                == "added to the queue as 3: Loopback Queue: Short Two\nalready in the queue as 2: Loopback Queue: Short One\n",
            "\(result.stdout)")
        #expect(try await show.cli.run(["subscribe", "@1", "--no-queue-new"]).status == 0)
        #expect(try await show.cli.run(["podcasts", "--json"]).stdout.contains(#""queueNew" : false"#))
    }

    @Test func playQueuePlaysThroughAndEachEpisodeHeardToItsEndLeaves() async throws {
        let show = try await queueShow()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["queue", "add", "2", "1"]).status == 0)
        let run = try show.play(["--queue", "--json"])
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
        let events = run.events
        #expect(events.filter { $0["event"] as? String == "started" }.map { $0["title"] as? String } == ["Short Two", "Short One"])
        #expect(events.filter { $0["event"] as? String == "ended" }.map { $0["reason"] as? String } == ["end", "end"])
        #expect(try await queuedTitles(show).isEmpty)
        let episodes = try await show.episodes()
        #expect(episodes[0...1].allSatisfy { $0["played"] as? Bool == true })
    }

    @Test(arguments: [false, true])
    func quittingOrCtrlCStopsTheQueueAndTheEpisodeStaysWithItsPosition(byCtrlC: Bool) async throws {
        let show = try await queueShow()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["queue", "add", "3", "1"]).status == 0)
        let run = try show.play(["--queue", "--json"])
        #expect(try await run.waitForEvent("started")["title"] as? String == "Long Talk")
        try await run.send(["seek", 40, "absolute"])
        try await run.waitForEvent("position") { isNear($0["position"], 40) }
        if byCtrlC {
            kill(run.process.processIdentifier, SIGINT)
            #expect(try await run.exitStatus() == 130)
        } else {
            try await run.send(["quit"])
            #expect(try await run.exitStatus() == 0)
        }
        #expect(run.events.filter { $0["event"] as? String == "started" }.count == 1, "nothing else started")
        let queue = try await queueJSON(show)
        #expect(queue.map { $0["title"] as? String } == ["Long Talk", "Short One"])
        #expect(isNear(queue[0]["position"], 40))
    }

    @Test func sleepEndStopsTheQueueBeforeTheNextEpisode() async throws {
        let show = try await queueShow()
        defer { Task { try? await show.stop() } }
        #expect(try await show.cli.run(["queue", "add", "1", "2"]).status == 0)
        let run = try show.play(["--queue", "--sleep", "end", "--json"])
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
        #expect(run.events.filter { $0["event"] as? String == "started" }.map { $0["title"] as? String } == ["Short One"])
        #expect(try await run.waitForEvent("ended")["reason"] as? String == "end")
        #expect(try await queuedTitles(show) == ["Short Two"], "the finished one left; the next did not start")
    }

    @Test func sleepAfterAWhileStopsSavingThePosition() async throws {
        let show = try await queueShow()
        defer { Task { try? await show.stop() } }
        let run = try show.play(["3", "--sleep", "2s", "--json"])
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
        let ended = try await run.waitForEvent("ended")
        #expect(ended["reason"] as? String == "sleep" && ended["played"] as? Bool == false)
        let position = try #require(ended["position"] as? Double)
        #expect(position > 0.5 && position < 4, "stopped at \(position)")
        #expect(isNear(try await show.episodes()[2]["position"], position, within: 0.1))

        let text = try await show.cli.run(["play", "3", "--sleep", "1s"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("sleep timer: stopped at 0:0"), "\(text.stdout)")
    }

    @Test func theSleepTimerCountsFromTheFirstSoundNotFromThePlayersLaunch() async throws {
        let slowPlayer = FileManager.default.temporaryDirectory.appendingPathComponent("slow-mpv-\(UUID().uuidString)").path
        try TestAudio.writeScript(at: slowPlayer, body: "sleep 2\nexec mpv --ao=null \"$@\"\n")
        defer { try? FileManager.default.removeItem(atPath: slowPlayer) }
        let show = try await ListeningShow.start(environment: ["SINGLECAST_PLAYER": slowPlayer], feed: "cli/queue.xml")
        defer { Task { try? await show.stop() } }
        try await show.list()
        let run = try show.play(["3", "--sleep", "1s", "--json"])
        #expect(try await run.exitStatus() == 0, "\(run.errorText)")
        #expect(run.events.first?["event"] as? String == "started", "it played before the timer stopped it")
        let ended = try await run.waitForEvent("ended")
        #expect(ended["reason"] as? String == "sleep")
        let position = try #require(ended["position"] as? Double)
        #expect(position > 0.5 && position < 4, "stopped at \(position)")
    }
}
