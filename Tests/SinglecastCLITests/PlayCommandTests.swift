import Foundation
import Testing
import TestSupport

/// `singlecast play` with the real mpv (`--ao=null`), driven through its IPC socket.
@Suite(.serialized) struct PlayCommandTests {
    @Test func quitRemembersWhereYouStoppedAndPlayResumesFiveSecondsBefore() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        #expect(try await show.cli.run(["download", "1"]).status == 0)
        let first = try show.play(["1", "--json"])
        let started = try await first.waitForEvent("started")
        #expect(started["episode"] as? Int == 1)
        #expect(started["title"] as? String == "Long Talk")
        #expect(started["podcast"] as? String == "Loopback Listening")
        #expect((started["source"] as? String)?.hasSuffix("Episodes/Loopback Listening/Long Talk.wav") == true)
        #expect(isNear(started["position"], 0) && isNear(started["duration"], ListeningShow.talkSeconds))
        #expect(started["speed"] as? Double == 1)
        try await first.send(["seek", 60, "absolute"])
        try await first.waitForEvent("position") { isNear($0["position"], 60) }
        try await first.send(["quit"])
        #expect(try await first.exitStatus() == 0, "\(first.errorText)")
        let ended = try await first.waitForEvent("ended")
        #expect(ended["reason"] as? String == "quit")
        #expect(ended["played"] as? Bool == false)
        #expect(isNear(ended["position"], 60))
        #expect(first.events.allSatisfy { $0["event"] is String }, "only events on stdout")
        let saved = try await show.episodes()[0]
        #expect(isNear(saved["position"], 60) && saved["played"] as? Bool == false)

        // Without a number, play continues the episode heard last, 5 s before where it stopped.
        let second = try show.play(["--json"])
        let resumed = try await second.waitForEvent("started")
        #expect(isNear(resumed["position"], (saved["position"] as? Double ?? 0) - 5, within: 0.5))
        try await second.send(["quit"])
        #expect(try await second.exitStatus() == 0)
        #expect(second.errorText.contains("continuing: Loopback Listening: Long Talk at 1:00 of 2:00"))
        try await show.stop()
    }

    @Test func stoppingNearTheEndMarksPlayedAndAReplayStartsOverUntilStoppedBeforeTheEnd() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        let run = try show.play(["1", "--json"])
        try await run.waitForEvent("started")
        try await run.send(["seek", 100, "absolute"])  // within the last 30 s
        try await run.waitForEvent("position") { isNear($0["position"], 100) }
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0)
        #expect(try await run.waitForEvent("ended")["played"] as? Bool == true)
        var saved = try await show.episodes()[0]
        #expect(saved["played"] as? Bool == true && saved["position"] is NSNull && saved["playedAt"] is String)

        let replay = try show.play(["1", "--json"])
        #expect(isNear(try await replay.waitForEvent("started")["position"], 0, within: 0.5))
        try await replay.send(["seek", 30, "absolute"])
        try await replay.waitForEvent("position") { isNear($0["position"], 30) }
        // Paused, so that the position quit saves is known however slowly the listing below runs.
        try await replay.send(["set_property", "pause", true])
        let pausedAt = try #require(try await replay.waitForEvent("paused")["position"] as? Double)
        saved = try await show.episodes()[0]
        #expect(saved["played"] as? Bool == true, "played until stopped before the end")
        try await replay.send(["quit"])
        #expect(try await replay.exitStatus() == 0)
        saved = try await show.episodes()[0]
        #expect(saved["played"] as? Bool == false && isNear(saved["position"], pausedAt, within: 0.1))
        #expect(pausedAt >= 30 && pausedAt < 40, "paused at \(pausedAt)")

        // Playing to the end of the file.
        let toTheEnd = try show.play(["1", "--json"])
        try await toTheEnd.waitForEvent("started")
        try await toTheEnd.send(["seek", ListeningShow.talkSeconds - 1, "absolute"])
        #expect(try await toTheEnd.exitStatus() == 0)
        let ended = try await toTheEnd.waitForEvent("ended")
        #expect(ended["reason"] as? String == "end" && ended["played"] as? Bool == true)
        try await show.stop()
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalSavesThePositionAndStopsThePlayer(signal: Int32) async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        let run = try await show.playing(at: 40)
        let player = try await run.playerPID()
        kill(run.process.processIdentifier, signal)
        #expect(try await run.exitStatus() == 128 + signal)
        #expect(await TestProcess.waitUntilGone(player))
        let ended = try await run.waitForEvent("ended")
        #expect(ended["reason"] as? String == "signal")
        #expect(isNear(try await show.episodes()[0]["position"], 40, within: 2))
        try await show.stop()
    }

    @Test func aKilledSinglecastTakesItsPlayerAlongAndKeepsTheLastSavedPosition() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        let run = try await show.playing(at: 40)
        let player = try await run.playerPID()
        kill(run.process.processIdentifier, SIGKILL)
        #expect(await TestProcess.waitUntilGone(player), "no orphan")
        #expect(isNear(try await show.episodes()[0]["position"], 40, within: 5))
        try await show.stop()
    }

    @Test func aPlayerThatDiesEndsThePlayWithItsPositionSaved() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        let run = try await show.playing(at: 20)
        kill(try await run.playerPID(), SIGKILL)
        #expect(try await run.exitStatus() == 1)
        #expect(try await run.waitForEvent("ended")["reason"] as? String == "player-died")
        #expect(run.errorText.contains("mpv stopped unexpectedly"))
        #expect(isNear(try await show.episodes()[0]["position"], 20, within: 2))
        try await show.stop()
    }

    @Test func aStreamsCredentialsReachThePlayerOnlyThroughItsSocket() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        let run = try show.play(["2", "--json"])
        let started = try await run.waitForEvent("started")
        let source = try #require(started["source"] as? String)
        #expect(source.hasSuffix("/private/talk.wav") && !source.contains("s3cret") && !source.contains("listener"))
        let player = try await run.playerPID()
        #expect(try !TestProcess.procText(player, "cmdline").contains("s3cret"))
        #expect(try !TestProcess.procText(player, "environ").contains("s3cret"))
        #expect(try !TestProcess.procText(player, "environ").contains(Data("listener:s3cret".utf8).base64EncodedString()))
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0)
        #expect(run.errorText.contains("streaming: http://127.0.0.1:\(show.server.port)/private/talk.wav (not downloaded)"))
        #expect(!run.errorText.contains("s3cret"))
        try await show.stop()
    }

    @Test func episodesThatCannotBePlayedAreNamedAndKeepTheirPlace() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        for (number, words) in [(3, "the server answered 404"), (4, "not audio"), (5, "has no audio")] {
            let result = try await show.cli.run(["play", String(number)])
            #expect(result.status == 1, "\(number)")
            #expect(result.stderr.contains("episode \(number) ("), "\(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(result.stdout.isEmpty || !result.stdout.contains("stopped at"))
        }
        let episodes = try await show.episodes()
        #expect(episodes[2...].allSatisfy { $0["position"] is NSNull && $0["played"] as? Bool == false })
        try await show.stop()
    }

    @Test func aMissingPlayerIsNamedWithHowToInstallIt() async throws {
        let configured = try await ListeningShow.start(environment: ["SINGLECAST_PLAYER": "/nonexistent/mpv-wrapper"])
        try await configured.list()
        var result = try await configured.cli.run(["play", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/mpv-wrapper"))
        try await configured.stop()

        let show = try await ListeningShow.start()
        try await show.list()
        var cli = show.cli
        cli.environment["SINGLECAST_PLAYER"] = nil
        cli.environment["PATH"] = "/nonexistent"
        result = try await cli.run(["play", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("mpv was not found") && result.stderr.contains("apt install mpv"))
        try await show.stop()
    }

    @Test func atAndFromStartChooseWhereToBegin() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        for (arguments, start) in [(["--at", "1:30"], 90.0), (["--at", "75"], 75), (["--from-start"], 0)] {
            let run = try show.play(["1", "--json"] + arguments)
            #expect(isNear(try await run.waitForEvent("started")["position"], start, within: 0.5), "\(arguments)")
            try await run.send(["quit"])
            #expect(try await run.exitStatus() == 0)
        }
        for bad in [["--at", "1:75"], ["--at", "ten"], ["--at", "1:00", "--from-start"]] {
            #expect(try await show.cli.run(["play", "1"] + bad).status == 64, "\(bad)")
        }
        let pastTheEnd = try await show.cli.run(["play", "1", "--at", "99:00"])
        #expect(pastTheEnd.status == 64)
        #expect(pastTheEnd.stderr == "Error: cannot start Long Talk at 1:39:00: it is 2:00 long\n", "\(pastTheEnd.stderr)")
        try await show.stop()
    }

    @Test func nothingToContinueSaysHowToPickAnEpisode() async throws {
        let show = try await ListeningShow.start()
        let result = try await show.cli.run(["play"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("singlecast play N"))
        try await show.stop()
    }

    @Test func theSpeedIsRememberedForThePodcast() async throws {
        let show = try await ListeningShow.start()
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        try await show.list()
        let run = try show.play(["1", "--speed", "1.5", "--json"])
        #expect(try await run.waitForEvent("started")["speed"] as? Double == 1.5)
        #expect(try await run.send(["get_property", "speed"]) as? Double == 1.5)
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0)
        let podcasts = try JSONSerialization.jsonObject(with: Data(try await show.cli.run(["podcasts", "--json"]).stdout.utf8))
        #expect((podcasts as? [[String: Any]])?.first?["speed"] as? Double == 1.5)

        let again = try show.play(["1", "--json"])
        #expect(try await again.waitForEvent("started")["speed"] as? Double == 1.5)
        #expect(try await again.send(["get_property", "speed"]) as? Double == 1.5)
        try await again.send(["quit"])
        #expect(try await again.exitStatus() == 0)

        #expect(try await show.cli.run(["subscribe", "@1", "--speed", "2"]).status == 0)
        let changed = try JSONSerialization.jsonObject(with: Data(try await show.cli.run(["podcasts", "--json"]).stdout.utf8))
        #expect((changed as? [[String: Any]])?.first?["speed"] as? Double == 2)
        #expect(try await show.cli.run(["play", "1", "--speed", "9"]).status == 64)
        try await show.stop()
    }

    @Test func savedChaptersAreHandedToThePlayer() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        #expect(try await show.cli.run(["download", "1", "--with-extras"]).status == 0)
        let run = try show.play(["1", "--json"])
        try await run.waitForEvent("started")
        let chapters = try #require(try await run.send(["get_property", "chapter-list"]) as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Welcome", "Café & Résumé"])
        #expect(isNear(chapters.last?["time"], 95.5, within: 0.01))
        try await run.waitForEvent("chapter") { $0["title"] as? String == "Welcome" }
        try await run.send(["seek", 96, "absolute"])
        try await run.waitForEvent("chapter") { $0["title"] as? String == "Café & Résumé" }
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0)
        try await show.stop()
    }
}

/// Marking by hand, and what listings show of it.
@Suite struct PlaybackMarkCommandTests {
    @Test func playedAndUnplayedMarkByHandAndListingsShowIt() async throws {
        let show = try await ListeningShow.start()
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        try await show.list()
        #expect(try await show.cli.run(["new", "--json"]).stdout.contains("Long Talk"))
        let played = try await show.cli.run(["played", "1", "2", "--json"])
        #expect(played.status == 0, "\(played.stderr)")
        let marked = try #require(try JSONSerialization.jsonObject(with: Data(played.stdout.utf8)) as? [[String: Any]])
        #expect(marked.map { $0["number"] as? Int } == [1, 2])
        #expect(marked.allSatisfy { $0["played"] as? Bool == true && $0["position"] is NSNull && $0["playedAt"] is String })
        #expect(!(try await show.cli.run(["new"]).stdout.contains("Long Talk")), "a played episode leaves new")
        let listing = try await show.cli.run(["episodes"])
        #expect(listing.stdout.contains("Heard") && listing.stdout.contains("played"))
        let podcasts = try await show.cli.run(["podcasts"])
        #expect(podcasts.stdout.contains("Unplayed"))
        let unplayed = try await show.cli.run(["unplayed", "1"])
        #expect(unplayed.status == 0)
        let episodes = try await show.episodes()
        #expect(episodes[0]["played"] as? Bool == false && episodes[0]["position"] is NSNull)
        #expect(episodes[1]["played"] as? Bool == true)
        #expect(try await show.cli.run(["played", "9"]).status == 1)
        #expect(try await show.cli.run(["played"]).status == 64)
        let all = try await show.cli.run(["unplayed", "--all"])
        #expect(all.stdout == "5 episodes marked unplayed\n", "\(all.stderr)")
        #expect(try await show.episodes().allSatisfy { $0["played"] as? Bool == false })
        #expect(try await show.cli.run(["unplayed"]).status == 64)
        try await show.stop()
    }

    @Test func deletePlayedRemovesOnlyThePlayedEpisodesFiles() async throws {
        let show = try await ListeningShow.start()
        try await show.list()
        #expect(try await show.cli.run(["download", "1", "2"]).status == 0)
        #expect(try await show.cli.run(["played", "1"]).status == 0)
        let deleted = try await show.cli.run(["delete", "--played"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("Long Talk.wav") && !deleted.stdout.contains("Private Talk"))
        let folder = show.cli.episodesDirectory.appendingPathComponent("Loopback Listening")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Long Talk.wav").path))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Private Talk.wav").path))
        let downloads = try await show.cli.run(["downloads", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(downloads.stdout.utf8)) as? [[String: Any]])
        #expect(list.allSatisfy { $0.keys.contains("position") && $0.keys.contains("played") && $0.keys.contains("playedAt") })
        try await show.stop()
    }
}
