import Foundation
import Testing
import TestSupport

/// `singlecast find` end to end: a show whose transcripts a local server serves, saved with
/// `--with-extras`, then searched, and played from the moment found.
@Suite(.serialized) struct FindCommandTests {
    /// `Fixtures/find/show.xml` with its audio and transcripts on a local server, and a
    /// library whose player is the real mpv without sound.
    private static func start() async throws -> ListeningShow {
        let show = try await ListeningShow.start()
        let feed = try String(contentsOf: Fixtures.url("find/show.xml"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: "127.0.0.1:\(show.server.port)")
        show.server.serve(path: "/feeds/find.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        let talk = TestAudio.wavData(seconds: ListeningShow.talkSeconds)
        for name in ["wal", "cafe", "bread", "tokyo", "ice"] {
            show.server.serve(path: "/media/\(name).wav", data: talk, contentType: "audio/wav")
        }
        let transcripts = [
            ("wal.vtt", "talk.vtt", "text/vtt"), ("cafe.srt", "talk.srt", "application/x-subrip"),
            ("bread.json", "talk.json", "application/json"), ("tokyo.html", "talk.html", "text/html"),
            ("ice.vtt", "not-a-transcript.vtt", "text/vtt"),
        ]
        for (path, fixture, type) in transcripts {
            show.server.serve(path: "/extras/\(path)", data: try Fixtures.data("find/\(fixture)"), contentType: type)
        }
        let listed = try await show.cli.run(["episodes", show.server.url("/feeds/find.xml").absoluteString])
        try #require(listed.status == 0, "\(listed.stderr)")
        let downloaded = try await show.cli.run(["download", "1-5", "--with-extras"])
        try #require(downloaded.status == 0, "\(downloaded.stderr)")
        return show
    }

    private var folder: String { "Episodes/Loopback Finds" }

    @Test func resultsAreNumberedRowsWithWhereTheyMatchedASnippetAndATotal() async throws {
        let show = try await Self.start()
        let iceTranscript = show.cli.home.appendingPathComponent("\(folder)/Glaciers.en.vtt").path
        let first = try await show.cli.run(["find", "write-ahead"])
        #expect(first.status == 0)
        #expect(
            first.stdout == """
                #  Podcast         Date        Title                Where
                1  Loopback Finds  2024-07-05  Write-Ahead Logging  title
                   Write-Ahead Logging
                1 episode found

                """)
        #expect(
            first.stderr
                == "warning: transcript \(iceTranscript) is not a vtt transcript; it is left out of find (the episode's title and notes are searched)\n")
        let second = try await show.cli.run(["find", "\"writer apart\"", "OR", "kaffeehauser", "OR", "lens", "OR", "東京"])
        #expect(second.stderr == "", "the warning is given once")
        // A match in notes weighs more than one in a transcript; one row an episode (the
        // Japanese episode's transcript matches `lens` too); the table measured in cells.
        #expect(
            second.stdout == """
                #  Podcast         Date        Title                 Where
                1  Loopback Finds  2024-07-02  日本語ポッドキャスト  notes
                   東京 の 話
                2  Loopback Finds  2024-07-04  Café Résumé           transcript at 3:07
                   Willkommen zurück. Heute geht es um Kaffeehäuser und ihre Geschichte. Tschüss!
                3  Loopback Finds  2024-07-05  Write-Ahead Logging   transcript at 12:34
                   …SQLite's write-ahead log keeps readers and the writer apart. Thanks for listening.
                3 episodes found

                """, "\(second.stdout)")
        try await show.stop()
    }

    @Test func jsonHasTheEpisodesIdentityWhereItMatchedTheMomentAndTheScore() async throws {
        let show = try await Self.start()
        let result = try await show.cli.run(["find", "sourdough", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(results.map { $0["title"] as? String } == ["Sourdough"], "one result an episode")
        let found = try #require(results.first)
        #expect(found["number"] as? Int == 1 && found["podcast"] as? String == "Loopback Finds")
        #expect(found["feedURL"] as? String == show.server.url("/feeds/find.xml").absoluteString)
        #expect(found["guid"] as? String == "find-bread")
        #expect((found["enclosure"] as? [String: Any])?["url"] as? String == show.server.url("/media/bread.wav").absoluteString)
        #expect(found["matchedIn"] as? String == "title" && found["at"] is NSNull)
        #expect(found["snippet"] as? String == "Sourdough" && (found["score"] as? Double ?? 0) > 0)

        let inTranscript = try await show.cli.run(["find", "sourdough", "starter", "--in", "transcript", "--json"])
        let moment = try #require((try JSONSerialization.jsonObject(with: Data(inTranscript.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(moment["matchedIn"] as? String == "transcript" && moment["at"] as? Double == 95.25)
        #expect(moment["snippet"] as? String == "Hello and welcome. Bread ovens need a sourdough starter fed daily. Goodbye.")
        try await show.stop()
    }

    @Test(arguments: [
        (["\"write-ahead", "log"], "Error: the query '\"write-ahead log' has a \" that nothing closes\n"),
        (["wal", "OR"], "Error: the query 'wal OR' has an OR without a word on both sides\n"),
        (["OR"], "Error: the query 'OR' has an OR without a word on both sides\n"),
    ])
    func aQueryThatCannotBeReadExits64NamingIt(words: [String], message: String) async throws {
        let cli = try CLI()
        let result = try await cli.run(["find"] + words)
        #expect(result.status == 64 && result.stderr == message && result.stdout == "")
        cli.removeHome()
    }

    @Test func playFoundStartsFiveSecondsBeforeTheMomentInTheTranscript() async throws {
        let show = try await Self.start()
        #expect(try await show.cli.run(["find", "sourdough", "starter", "--in", "transcript"]).status == 0)
        let run = try show.play(["--found", "1", "--json"])
        let started = try await run.waitForEvent("started")
        #expect(started["title"] as? String == "Sourdough")
        #expect(isNear(started["position"], 95.25 - 5, within: 0.5), "\(started)")
        try await run.send(["quit"])
        #expect(try await run.exitStatus() == 0)

        // A match outside a transcript plays from the saved position, as `play N` does.
        #expect(try await show.cli.run(["find", "glaciers"]).status == 0)
        let fromStart = try show.play(["--found", "1", "--json"])
        #expect(isNear(try await fromStart.waitForEvent("started")["position"], 0, within: 0.5))
        try await fromStart.send(["quit"])
        #expect(try await fromStart.exitStatus() == 0)
        let missing = try await show.cli.run(["play", "--found", "2"])
        #expect(missing.status == 1 && missing.stderr == "Error: there is no result 2 of the last find: it has 1 result\n")
        try await show.stop()
    }

    @Test func queueAddFoundQueuesTheResultsOfTheLastFind() async throws {
        let show = try await Self.start()
        #expect(try await show.cli.run(["find", "glaciers"]).status == 0)
        let added = try await show.cli.run(["queue", "add", "--found", "1"])
        #expect(added.status == 0, "\(added.stderr)")
        let queue = try await show.cli.run(["queue"])
        #expect(queue.stdout.contains("Glaciers"), "\(queue.stdout)")
        let missing = try await show.cli.run(["queue", "add", "--found", "2"])
        #expect(missing.status == 1 && missing.stderr == "Error: there is no result 2 of the last find: it has 1 result\n")
        try await show.stop()
    }

    @Test func aFirstIndexingOnATerminalShowsItsProgressThenClearsIt() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        let count = 10_000
        let items = (1...count).map { number in
            "<item><title>Episode \(number)</title><guid>e\(number)</guid><description>Harbour notes, number \(number).</description>"
                + "<enclosure url=\"https://example.com/\(number).mp3\" type=\"audio/mpeg\"/></item>"
        }
        let feed = cli.home.appendingPathComponent("many.xml")
        try ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Many</title>" + items.joined() + "</channel></rss>")
            .write(to: feed, atomically: true, encoding: .utf8)
        let listed = try await cli.run(["episodes", feed.path])
        try #require(listed.status == 0, "\(listed.stderr)")
        var environment = cli.environment
        environment["LANG"] = "C.UTF-8"
        // Everything written is recorded: the indexing may be over between two reads of the screen.
        let recording = cli.home.appendingPathComponent("terminal.out")
        let terminal = try TerminalSession.start(
            [CLI.executable.path, "find", "harbour", "--limit", "1"], environment: environment, columns: 100, rows: 24,
            folder: cli.home, recording: recording)
        defer { terminal.stop() }
        var screen: [String] = []
        try await waitUntil {
            screen = try terminal.lines()
            return screen.contains("1 of \(count) episodes found (--limit shows more)")
        }
        let written = String(decoding: try Data(contentsOf: recording), as: UTF8.self)
        let progress = written.components(separatedBy: "\r").filter { $0.contains("indexing for find: ") }
        #expect(progress.contains { $0.hasSuffix(" of \(count)") }, "the line while indexing: \(progress)")
        #expect(!screen.contains { $0.contains("indexing for find") }, "cleared once done: \(screen)")
    }
}
