import Foundation
import Testing
import TestSupport

/// `subscribe`, `podcasts`, `update`, `new`, `mark-old`, `delete` and `unsubscribe` against
/// feeds served by a local server.
@Suite(.timeLimit(.minutes(3))) struct SubscriptionCommandTests {
    /// A small RSS feed: `items` titles, newest first, with enclosures on the same server.
    static func feed(_ title: String, items: [String], extra: String = "") -> Data {
        let entries = items.enumerated().map { index, item in
            let day = 28 - index
            return """
                <item><title>\(item)</title><guid>\(title)-\(item)</guid>
                <pubDate>\(day) Jun 2024 08:00:00 GMT</pubDate>
                <enclosure url="/media/\(title)-\(index).mp3" length="2000" type="audio/mpeg"/></item>
                """
        }
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>\(title)</title>\(extra)
            \(entries.joined(separator: "\n"))
            </channel></rss>
            """.utf8)
    }

    struct World {
        let server: TestServer
        let cli: CLI

        static func start() async throws -> World {
            World(server: try await TestServer.start(), cli: try CLI())
        }

        func url(_ path: String) -> String { server.url(path).absoluteString }

        func serveFeed(_ path: String, _ data: Data, etag: String? = nil, lastModified: Date? = nil) {
            server.serve(path: path, data: data, contentType: "application/rss+xml", etag: etag, lastModified: lastModified)
        }

        func stop() async throws {
            try await server.stop()
            cli.removeHome()
        }
    }

    @Test func anUnchangedFeedCostsOneConditionalRequest() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A2", "A1"]), etag: "\"a1\"")
        world.serveFeed(
            "/b.xml", Self.feed("Beta", items: ["B1"]), lastModified: Date(timeIntervalSince1970: 1_700_000_000))
        world.serveFeed("/c.xml", Self.feed("Gamma", items: ["C1"]))

        let subscribed = try await world.cli.run(["subscribe", world.url("/a.xml"), world.url("/b.xml"), world.url("/c.xml")])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        #expect(subscribed.stdout.contains("subscribed: Alpha (2 episodes)"))
        let new = try await world.cli.run(["new"])
        #expect(new.stdout.contains("A2") && !new.stdout.contains("A1"), "only the most recent is new: \(new.stdout)")

        let update = try await world.cli.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("Alpha: not modified"))
        #expect(update.stdout.contains("Beta: not modified"))
        #expect(update.stdout.contains("Gamma: not modified"), "same bytes without validators: \(update.stdout)")
        #expect(world.server.requests(for: "/a.xml").last?.header("If-None-Match") == "\"a1\"")
        #expect(world.server.requests(for: "/b.xml").last?.header("If-Modified-Since") == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(update.stdout.hasSuffix("Updated 3 podcasts: 0 new episodes\n"))

        let podcasts = try await world.cli.run(["podcasts", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(podcasts.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["status"] as? String } == ["not-modified", "not-modified", "not-modified"])
        #expect(list.map { $0["number"] as? Int } == [1, 2, 3])
        try await world.stop()
    }

    @Test func aChangedFeedAddsNewEpisodesAndDownloadsThemWhenAsked() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A1"]), etag: "\"1\"")
        for index in 0..<3 {
            world.server.serve(path: "/media/Alpha-\(index).mp3", data: Data(repeating: UInt8(index), count: 2000), contentType: "audio/mpeg")
        }
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), "--auto", "new", "--keep", "1"]).status == 0)
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A3", "A2", "A1"]), etag: "\"2\"")

        let update = try await world.cli.run(["update", "--download"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("Alpha: 2 new"))
        let folder = world.cli.episodesDirectory.appendingPathComponent("Alpha")
        // Keep 1: of the three new episodes downloaded, only the newest file stays.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["A3.mp3"], "\(update.stdout)")
        let listed = try await world.cli.run(["new", "--json"])
        let new = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(new.map { $0["title"] as? String } == ["A3", "A2", "A1"])

        let marked = try await world.cli.run(["mark-old", "2", "--json"])
        #expect(marked.status == 0, "\(marked.stderr)")
        let markedList = try #require(try JSONSerialization.jsonObject(with: Data(marked.stdout.utf8)) as? [[String: Any]])
        #expect(markedList.map { $0["title"] as? String } == ["A2"])
        #expect(try await world.cli.run(["mark-old", "--all"]).status == 0)
        #expect(try await world.cli.run(["new"]).stdout == "No new episodes.\n")

        // Changing one setting leaves the others; --keep all keeps every file again.
        func settings() async throws -> (keep: Int?, auto: String?) {
            let podcasts = try await world.cli.run(["podcasts", "--json"])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(podcasts.stdout.utf8)) as? [[String: Any]])
            return (list.first?["keep"] as? Int, list.first?["auto"] as? String)
        }
        #expect(try await settings() == (1, "new"))
        #expect(try await world.cli.run(["subscribe", "@1", "--keep", "all"]).status == 0)
        #expect(try await settings() == (nil, "new"))
        let badKeep = try await world.cli.run(["subscribe", "@1", "--keep", "0"])
        #expect(badKeep.status == 64)
        #expect(badKeep.stderr.contains("--keep"))
        try await world.stop()
    }

    /// After a lost database, `update --download` takes the files in the folder back before it
    /// picks what to download: a new episode whose file is there is not fetched again.
    @Test func updateDownloadTakesBackTheFilesOfALostDatabase() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A1"]), etag: "\"1\"")
        for index in 0..<3 {
            world.server.serve(path: "/media/Alpha-\(index).mp3", data: Data(repeating: UInt8(index), count: 2000), contentType: "audio/mpeg")
        }
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), "--auto", "new"]).status == 0)
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A3", "A2", "A1"]), etag: "\"2\"")
        #expect(try await world.cli.run(["update", "--download"]).status == 0)
        let folder = world.cli.episodesDirectory.appendingPathComponent("Alpha")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["A1.mp3", "A2.mp3", "A3.mp3"])

        for name in ["library.sqlite", "library.sqlite-wal", "library.sqlite-shm"] {
            try? FileManager.default.removeItem(at: world.cli.home.appendingPathComponent(name))
        }
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), "--auto", "new"]).status == 0)
        world.server.clearRequests()
        let update = try await world.cli.run(["update", "--download"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(world.server.requests.filter { $0.path.hasPrefix("/media/") }.isEmpty, "\(update.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["A1.mp3", "A2.mp3", "A3.mp3"])
        try await world.stop()
    }

    @Test func updateDownloadBackgroundHandsTheNewEpisodesToTheDaemon() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A1"]), etag: "\"1\"")
        for index in 0..<3 {
            world.server.serve(path: "/media/Alpha-\(index).mp3", data: Data(repeating: UInt8(index), count: 2000), contentType: "audio/mpeg")
        }
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), "--auto", "new"]).status == 0)
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A3", "A2", "A1"]), etag: "\"2\"")

        let update = try await world.cli.run(["update", "--download", "--background"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("Alpha: 2 new"))
        // The command returns at once; the daemon it started downloads the three new episodes.
        let folder = world.cli.episodesDirectory.appendingPathComponent("Alpha")
        try await waitUntil {
            (try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()) == ["A1.mp3", "A2.mp3", "A3.mp3"]
        }
        for (name, byte) in [("A3.mp3", 0), ("A2.mp3", 1), ("A1.mp3", 2)] {
            #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) == Data(repeating: UInt8(byte), count: 2000))
        }
        let lock = try String(contentsOf: world.cli.home.appendingPathComponent("daemon.lock"), encoding: .utf8)
        let daemon = try #require(Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(daemon, SIGTERM)
        try await waitUntil { kill(daemon, 0) != 0 }
        try await world.stop()
    }

    @Test func movesAreFollowedOnlyWhenPermanent() async throws {
        let world = try await World.start()
        world.serveFeed("/moved-for-good.xml", Self.feed("Permanent", items: ["P1"]))
        world.serveFeed("/moved-for-now.xml", Self.feed("Temporary", items: ["T1"]))
        world.serveFeed("/new-home.xml", Self.feed("Announced", items: ["N1"]))
        world.serveFeed(
            "/announcing.xml",
            Self.feed("Announced", items: ["N1"], extra: "<itunes:new-feed-url>\(world.url("/new-home.xml"))</itunes:new-feed-url>"))
        world.serveFeed("/permanent.xml", Self.feed("Permanent", items: ["P1"]))
        world.serveFeed("/temporary.xml", Self.feed("Temporary", items: ["T1"]))
        let subscribed = try await world.cli.run([
            "subscribe", world.url("/permanent.xml"), world.url("/temporary.xml"), world.url("/announcing.xml"),
        ])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        world.server.remove(path: "/permanent.xml")
        world.server.remove(path: "/temporary.xml")
        world.server.redirect(path: "/permanent.xml", to: "/moved-for-good.xml", status: 301)
        world.server.redirect(path: "/temporary.xml", to: "/moved-for-now.xml", status: 302)

        let update = try await world.cli.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [[String: Any]])
        let byTitle = Dictionary(uniqueKeysWithValues: results.map { ($0["title"] as! String, $0) })
        #expect(byTitle["Permanent"]?["status"] as? String == "moved")
        #expect(byTitle["Permanent"]?["feedURL"] as? String == world.url("/moved-for-good.xml"))
        #expect(byTitle["Temporary"]?["status"] as? String == "not-modified")  // the same bytes as before
        #expect(byTitle["Temporary"]?["feedURL"] as? String == world.url("/temporary.xml"))
        #expect(byTitle["Announced"]?["status"] as? String == "moved")
        #expect(byTitle["Announced"]?["feedURL"] as? String == world.url("/new-home.xml"))
        try await world.stop()
    }

    @Test func aPermanentMoveAnsweredNotModifiedIsRecorded() async throws {
        let world = try await World.start()
        let feed = Self.feed("Moving", items: ["M1"])
        world.serveFeed("/http.xml", feed, etag: "\"m1\"")
        let subscribed = try await world.cli.run(["subscribe", world.url("/http.xml")])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        // The same feed, same ETag, now reached through a 301 then a 308: the final answer is 304.
        world.server.remove(path: "/http.xml")
        world.serveFeed("/https.xml", feed, etag: "\"m1\"")
        world.server.redirect(path: "/http.xml", to: "/step.xml", status: 301)
        world.server.redirect(path: "/step.xml", to: "/https.xml", status: 308)

        let update = try await world.cli.run(["update", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [[String: Any]])
        #expect(results.first?["status"] as? String == "moved")
        #expect(results.first?["feedURL"] as? String == world.url("/https.xml"))
        #expect(world.server.requests(for: "/https.xml").last?.header("If-None-Match") == "\"m1\"")

        world.server.clearRequests()
        let again = try await world.cli.run(["update", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let next = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [[String: Any]])
        #expect(next.first?["status"] as? String == "not-modified")
        #expect(next.first?["feedURL"] as? String == world.url("/https.xml"))
        #expect(world.server.requests(for: "/http.xml").isEmpty, "the move was remembered")
        #expect(world.server.requests(for: "/https.xml").count == 1)
        try await world.stop()
    }

    @Test func failuresStayWithTheirPodcastAndGoneFeedsAreNoLongerFetched() async throws {
        let world = try await World.start()
        for name in ["ok", "missing", "broken", "gone", "stalled", "html"] {
            world.serveFeed("/\(name).xml", Self.feed(name, items: ["\(name)1"]))
        }
        let urls = ["ok", "missing", "broken", "gone", "stalled", "html"].map { world.url("/\($0).xml") }
        #expect(try await world.cli.run(["subscribe"] + urls).status == 0)
        world.server.addFaults([.notFound], for: "/missing.xml")
        world.server.addFaults([.status(500)], for: "/broken.xml")
        world.server.addFaults([.status(410)], for: "/gone.xml")
        // Stalled until the client goes: a read timeout ends it, however loaded the machine.
        world.server.addFaults([.stall(afterBytes: 10, seconds: 600)], for: "/stalled.xml")
        world.server.addFaults([.htmlPage], for: "/html.xml")
        world.serveFeed("/ok.xml", Self.feed("ok", items: ["ok2", "ok1"]))

        var impatient = world.cli
        impatient.environment["SINGLECAST_TIMEOUT"] = "5"
        let update = try await impatient.run(["update"])
        #expect(update.status == 1)
        #expect(update.stdout.contains("ok: 1 new"))
        #expect(update.stdout.contains("missing: error: \(world.url("/missing.xml")) answered HTTP 404 Not Found"))
        #expect(update.stdout.contains("broken: error: \(world.url("/broken.xml")) answered HTTP 500"))
        #expect(update.stdout.contains("gone: gone"))
        #expect(update.stdout.contains("stalled: error:"), "\(update.stdout)")
        #expect(update.stdout.contains("html: error:"))
        #expect(update.stdout.contains("4 failed"))

        world.server.clearRequests()
        let again = try await world.cli.run(["update"])
        #expect(world.server.requests(for: "/gone.xml").isEmpty)
        #expect(again.status == 0, "\(again.stdout)")
        let podcasts = try await world.cli.run(["podcasts"])
        #expect(podcasts.stdout.contains("gone (the server answered 410"))
        try await world.stop()
    }

    /// --json carries each failure as a value (`error.kind` and its details) beside its words,
    /// and the library keeps it so: `podcasts --json` reads back the same value.
    @Test func failedUpdatesCarryTheirKindInJSON() async throws {
        let world = try await World.start()
        for name in ["missing", "html"] { world.serveFeed("/\(name).xml", Self.feed(name, items: ["\(name)1"])) }
        #expect(try await world.cli.run(["subscribe", world.url("/missing.xml"), world.url("/html.xml")]).status == 0)
        world.server.addFaults([.notFound, .notFound], for: "/missing.xml")
        world.server.addFaults([.htmlPage, .htmlPage], for: "/html.xml")

        let update = try await world.cli.run(["update", "--json"])
        #expect(update.status == 1)
        let results = try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [[String: Any]] ?? []
        let byTitle = Dictionary(uniqueKeysWithValues: results.map { ($0["title"] as? String ?? "", $0) })
        let missing = byTitle["missing"]?["error"] as? [String: Any]
        #expect(missing?["kind"] as? String == "http-status")
        #expect(missing?["status"] as? Int == 404)
        #expect(byTitle["missing"]?["message"] as? String == "\(world.url("/missing.xml")) answered HTTP 404 Not Found")
        #expect((byTitle["html"]?["error"] as? [String: Any])?["kind"] as? String == "not-a-feed")

        let podcasts = try await world.cli.run(["podcasts", "--json"])
        let listed = try JSONSerialization.jsonObject(with: Data(podcasts.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(listed.compactMap { ($0["error"] as? [String: Any])?["kind"] as? String }.sorted() == ["http-status", "not-a-feed"])
        try await world.stop()
    }

    @Test func twoHundredFeedsUpdateTogether() async throws {
        let world = try await World.start()
        let urls = (0..<200).map { index -> String in
            world.serveFeed("/f\(index).xml", Self.feed("Show \(index)", items: ["E1"]), etag: "\"\(index)\"")
            return world.url("/f\(index).xml")
        }
        #expect(try await world.cli.run(["subscribe"] + urls).status == 0)
        for index in stride(from: 0, to: 200, by: 10) {
            world.serveFeed("/f\(index).xml", Self.feed("Show \(index)", items: ["E2", "E1"]), etag: "\"\(index)b\"")
        }
        let update = try await world.cli.run(["update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.hasSuffix("Updated 200 podcasts: 20 new episodes\n"))
        try await world.stop()
    }

    @Test func podcastsAreNamedByNumberURLOrPartOfTheTitle() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Morning News", items: ["M1"]))
        world.serveFeed("/b.xml", Self.feed("Evening News", items: ["E1"]))
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), world.url("/b.xml")]).status == 0)

        let byNumber = try await world.cli.run(["episodes", "@2"])
        #expect(byNumber.stdout.hasPrefix("Evening News\n"))
        let byTitle = try await world.cli.run(["episodes", "morning"])
        #expect(byTitle.stdout.hasPrefix("Morning News\n"))
        let ambiguous = try await world.cli.run(["episodes", "news"])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr.contains("matches several podcasts: @1 Morning News, @2 Evening News"))
        let unknown = try await world.cli.run(["unsubscribe", "@7"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no podcast matches \u{201C}@7\u{201D}"))

        world.server.clearRequests()
        #expect(try await world.cli.run(["episodes"]).stdout.hasPrefix("Morning News\n"))
        #expect(world.server.requests.isEmpty, "listing a stored podcast needs no network")
        let left = try await world.cli.run(["unsubscribe", world.url("/a.xml")])
        #expect(left.stdout == "unsubscribed: Morning News\n")
        #expect(try await world.cli.run(["podcasts"]).stdout.contains("Morning") == false)
        try await world.stop()
    }

    /// Several PODCAST arguments are all resolved against the list as `podcasts` showed it,
    /// before the first change moves the numbers.
    @Test(arguments: [
        (["@1", "@2"], ["Show 1", "Show 2"], ["Show 3"]),
        (["@2", "@1"], ["Show 2", "Show 1"], ["Show 3"]),
        (["Show 3", "@1"], ["Show 3", "Show 1"], ["Show 2"]),
        (["@3", "@1", "@2"], ["Show 3", "Show 1", "Show 2"], []),
    ])
    func numbersMeanWhatPodcastsShowedThroughoutACommand(arguments: [String], removed: [String], left: [String]) async throws {
        let world = try await World.start()
        for number in 1...3 { world.serveFeed("/\(number).xml", Self.feed("Show \(number)", items: ["E\(number)"])) }
        #expect(try await world.cli.run(["subscribe"] + (1...3).map { world.url("/\($0).xml") }).status == 0)

        let result = try await world.cli.run(["unsubscribe"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == removed.map { "unsubscribed: \($0)\n" }.joined())
        let podcasts = try await world.cli.run(["podcasts", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(podcasts.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["title"] as? String } == left)
        try await world.stop()
    }

    /// `update @1 @3` and `subscribe @2 FEED @3 --keep 1` mean the podcasts listed so, though
    /// a new subscription joins the list in the middle of the command.
    @Test func updateAndSubscribeSettingsResolveEveryNumberFirst() async throws {
        let world = try await World.start()
        for number in 1...4 { world.serveFeed("/\(number).xml", Self.feed("Show \(number)", items: ["E\(number)"])) }
        #expect(try await world.cli.run(["subscribe"] + (1...3).map { world.url("/\($0).xml") }).status == 0)
        #expect(try await world.cli.run(["unsubscribe", "@1"]).status == 0)
        #expect(try await world.cli.run(["subscribe", world.url("/1.xml")]).status == 0)  // now @3

        let update = try await world.cli.run(["update", "@1", "@3"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("Show 2") && update.stdout.contains("Show 1") && !update.stdout.contains("Show 3"), "\(update.stdout)")

        let changed = try await world.cli.run(["subscribe", "@2", world.url("/4.xml"), "@3", "--keep", "1", "--json"])
        #expect(changed.status == 0, "\(changed.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(changed.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["title"] as? String } == ["Show 3", "Show 4", "Show 1"])
        #expect(list.map { $0["keep"] as? Int } == [1, 1, 1])
        try await world.stop()
    }

    /// After two downloads by hand with `--keep 2`, asking for an older episode keeps it: a file
    /// asked for stays until it is played; `subscribe --keep` says what the next retention deletes.
    @Test func keepNeverDeletesTheEpisodeJustAskedFor() async throws {
        let world = try await World.start()
        world.serveFeed("/k.xml", Self.feed("Keeper", items: ["K5", "K4", "K3", "K2", "K1"]))
        for index in 0..<5 {
            world.server.serve(path: "/media/Keeper-\(index).mp3", data: Data(repeating: UInt8(index), count: 2000), contentType: "audio/mpeg")
        }
        #expect(try await world.cli.run(["subscribe", world.url("/k.xml"), "--keep", "2"]).status == 0)
        #expect(try await world.cli.run(["download", "1", "2", "--feed", "@1"]).status == 0)
        let older = try await world.cli.run(["download", "5", "--feed", "@1"])
        let folder = world.cli.episodesDirectory.appendingPathComponent("Keeper")
        #expect(older.status == 0, "\(older.stderr)")
        #expect(!older.stdout.contains("deleted"), "\(older.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["K1.mp3", "K4.mp3", "K5.mp3"])

        #expect(try await world.cli.run(["played", "3", "--feed", "@1"]).status == 0)  // not downloaded: nothing to delete
        #expect(try await world.cli.run(["played", "5", "--feed", "@1"]).status == 0)
        let keepOne = try await world.cli.run(["subscribe", "@1", "--keep", "1"])
        #expect(keepOne.stdout.contains("the next download deletes 1 file to keep 1"), "\(keepOne.stdout)")
        try await world.stop()
    }

    /// A deleted episode's download is over: `resume --all` leaves it, `downloads` says deleted
    /// and does not count it as unfinished.
    @Test func resumeAllNeverFetchesADeletedEpisodeAgain() async throws {
        let world = try await World.start()
        world.serveFeed("/k.xml", Self.feed("Keeper", items: ["K2", "K1"]))
        for index in 0..<2 {
            world.server.serve(path: "/media/Keeper-\(index).mp3", data: Data(repeating: UInt8(index), count: 2000), contentType: "audio/mpeg")
        }
        #expect(try await world.cli.run(["subscribe", world.url("/k.xml")]).status == 0)
        #expect(try await world.cli.run(["download", "1", "2", "--feed", "@1"]).status == 0)
        #expect(try await world.cli.run(["delete", "1", "--feed", "@1"]).status == 0)
        world.server.clearRequests()

        let resumed = try await world.cli.run(["resume", "--all"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(!resumed.stdout.contains("queued"), "\(resumed.stdout)")
        let one = try await world.cli.run(["resume", "1"])
        #expect(one.stdout.contains("is deleted, nothing to resume"), "\(one.stdout)")
        #expect(world.server.requests(for: "/media/Keeper-0.mp3").isEmpty)
        let downloads = try await world.cli.run(["downloads"])
        #expect(downloads.stdout.contains(" deleted "), "\(downloads.stdout)")
        #expect(downloads.stdout.hasSuffix("Total: 1 completed, 0 active, 1 deleted\n"), "\(downloads.stdout)")
        let json = try await world.cli.run(["downloads", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(Set(list.map { $0["state"] as? String }) == ["deleted", "completed"])
        // By number it still can.
        #expect(try await world.cli.run(["download", "1", "--feed", "@1"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: world.cli.episodesDirectory.appendingPathComponent("Keeper/K2.mp3").path))
        try await world.cli.stopDaemon()
        try await world.stop()
    }

    @Test func deletedEpisodesAreNotFetchedAgainByUpdates() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A1"]))
        world.server.serve(path: "/media/Alpha-0.mp3", data: Data(repeating: 7, count: 2000), contentType: "audio/mpeg")
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), "--auto", "new"]).status == 0)
        #expect(try await world.cli.run(["download", "--new"]).status == 0)
        let file = world.cli.episodesDirectory.appendingPathComponent("Alpha/A1.mp3")
        #expect(FileManager.default.fileExists(atPath: file.path))

        let deleted = try await world.cli.run(["delete", "1", "--feed", "@1"])
        #expect(deleted.stdout == "deleted: \(file.path)\n", "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let update = try await world.cli.run(["update", "--download"])
        #expect(update.status == 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // By number it still can.
        #expect(try await world.cli.run(["download", "1", "--feed", "@1"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: file.path))
        try await world.stop()
    }

    @Test func importReadsAListWithAnInternalDTDAndReportsTheOutlinesUsingItsEntities() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A1"]))
        world.serveFeed("/c.xml", Self.feed("Gamma", items: ["G1"]))
        let opml = world.cli.home.appendingPathComponent("entities.opml")
        try """
            <?xml version="1.0"?>
            <!DOCTYPE opml [
              <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
              <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
              <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
            ]>
            <opml version="2.0"><head><title>Mine</title></head><body>
            <outline text="Alpha" type="rss" xmlUrl="\(world.url("/a.xml"))"/>
            <outline text="Laughs &c;" type="rss" xmlUrl="\(world.url("/c.xml"))"/>
            <outline text="Hidden" type="rss" xmlUrl="\(world.url("/&c;.xml"))"/>
            <outline text="Script" type="rss" xmlUrl="javascript:alert(1)"/>
            </body></opml>
            """.write(to: opml, atomically: true, encoding: .utf8)

        let imported = try await world.cli.run(["import", opml.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stderr == """
                warning: \(opml.path): line 9: \(world.url("/c.xml")): its title uses the entity &c;, which is never expanded; imported with the feed's own title
                warning: \(opml.path): line 10 (Hidden): uses the entity &c;, which is never expanded, skipped
                warning: \(opml.path): line 11 (Script): javascript:alert(1) is not an http or https URL, skipped

                """)
        #expect(imported.stdout.contains("Alpha: 1 new"), "\(imported.stdout)")
        #expect(imported.stdout.contains("Gamma: 1 new"), "the feed's own title: \(imported.stdout)")
        #expect(world.server.requests.allSatisfy { !$0.path.contains("aaaa") }, "never expanded")
        try await world.stop()
    }

    /// Outlines whose feed answers 404 or an HTML page are named by line and not subscribed; a
    /// later update has nothing left to fail on.
    @Test func importRefusesFeedsThatDoNotWork() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A2", "A1"]))
        world.server.serve(path: "/page.html", data: Data("<!DOCTYPE html><html><body>Hi</body></html>".utf8), contentType: "text/html")
        let opml = world.cli.home.appendingPathComponent("list.opml")
        try """
            <?xml version="1.0"?>
            <opml version="2.0"><body>
            <outline text="Alpha" type="rss" xmlUrl="\(world.url("/a.xml"))"/>
            <outline text="Gone" type="rss" xmlUrl="\(world.url("/gone.xml"))"/>
            <outline text="Html page" type="rss" xmlUrl="\(world.url("/page.html"))"/>
            </body></opml>
            """.write(to: opml, atomically: true, encoding: .utf8)

        let imported = try await world.cli.run(["import", opml.path])
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("warning: \(opml.path): line 4: not subscribed: \(world.url("/gone.xml")) answered HTTP 404 Not Found"), "\(imported.stderr)")
        #expect(imported.stderr.contains("warning: \(opml.path): line 5: not subscribed: "), "\(imported.stderr)")
        let podcasts = try await world.cli.run(["podcasts", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(podcasts.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["title"] as? String } == ["Alpha"])
        let update = try await world.cli.run(["update"])
        #expect(update.status == 0, "\(update.stdout)")
        try await world.stop()
    }

    /// `--feed` chooses a podcast for one command; only `episodes` makes one current.
    @Test func feedChoosesForOneCommandOnly() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A2", "A1"]))
        world.serveFeed("/b.xml", Self.feed("Beta", items: ["B1"]))
        for index in 0..<2 {
            world.server.serve(path: "/media/Alpha-\(index).mp3", data: Data(repeating: 1, count: 2000), contentType: "audio/mpeg")
        }
        world.server.serve(path: "/media/Beta-0.mp3", data: Data(repeating: 2, count: 2000), contentType: "audio/mpeg")
        #expect(try await world.cli.run(["episodes", world.url("/a.xml")]).status == 0)
        #expect(try await world.cli.run(["subscribe", world.url("/b.xml")]).status == 0)
        #expect(try await world.cli.run(["download", "1", "--feed", world.url("/b.xml")]).status == 0)
        #expect(try await world.cli.run(["played", "1", "--feed", "Beta"]).status == 0)
        let current = try await world.cli.run(["download", "2"])
        #expect(current.status == 0, "\(current.stderr)")
        #expect(FileManager.default.fileExists(atPath: world.cli.episodesDirectory.appendingPathComponent("Alpha/A1.mp3").path))
        #expect(try await world.cli.run(["episodes"]).stdout.hasPrefix("Alpha\n"))
        #expect(try await world.cli.run(["episodes", "Beta"]).stdout.hasPrefix("Beta\n"))
        #expect(try await world.cli.run(["episodes"]).stdout.hasPrefix("Beta\n"), "episodes makes it current")
        try await world.stop()
    }

    /// Small stumbles of a first afternoon, each answered in words that help.
    @Test func firstAfternoonStumblesGetAHelpfulAnswer() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Morning News", items: ["M1"]))
        world.serveFeed("/b.xml", Self.feed("Evening News", items: ["E2", "E1"]))
        #expect(try await world.cli.run(["subscribe", world.url("/a.xml"), world.url("/b.xml")]).status == 0)

        // A bare number is a search result; the subscription it probably meant is named.
        let bare = try await world.cli.run(["episodes", "2"])
        #expect(bare.status == 1)
        #expect(bare.stderr.contains("the subscription Evening News is @2"), "\(bare.stderr)")

        // A podcast only listed, no longer subscribed, is still found by its title.
        #expect(try await world.cli.run(["unsubscribe", "Evening"]).status == 0)
        let listed = try await world.cli.run(["episodes", "evening"])
        #expect(listed.stdout.hasPrefix("Evening News\n"), "\(listed.stderr)")
        #expect(try await world.cli.run(["delete", "2", "--feed", "Evening"]).status == 0)

        // A failed subscribe names the URL once.
        let failed = try await world.cli.run(["subscribe", world.url("/missing.xml")])
        #expect(failed.status == 1)
        #expect(failed.stderr == "error: \(world.url("/missing.xml")) answered HTTP 404 Not Found\n")

        // Export to a folder that is not there names the folder.
        let export = try await world.cli.run(["export", "/nonexistent/folder/list.opml"])
        #expect(export.status == 1)
        #expect(export.stderr.contains("the folder /nonexistent/folder does not exist"), "\(export.stderr)")

        // Import of a file that is not OPML says so.
        let text = world.cli.home.appendingPathComponent("notes.txt")
        try "hello".write(to: text, atomically: true, encoding: .utf8)
        let imported = try await world.cli.run(["import", text.path])
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("\(text.path) is not an OPML file"), "\(imported.stderr)")
        try await world.stop()
    }

    @Test func importSubscribesToEveryUsableFeedOnceAndExportWritesThemBack() async throws {
        let world = try await World.start()
        world.serveFeed("/a.xml", Self.feed("Alpha", items: ["A2", "A1"]))
        world.serveFeed("/b.xml", Self.feed("Beta", items: ["B1"]))
        let opml = world.cli.home.appendingPathComponent("list.opml")
        try """
            <?xml version="1.0"?>
            <opml version="2.0"><head><title>Mine</title></head><body>
            <outline text="News"><outline text="Alpha" type="rss" xmlUrl="\(world.url("/a.xml"))"/></outline>
            <outline text="Beta" type="rss" url="\(world.url("/b.xml"))"/>
            <outline text="Alpha again" type="rss" xmlUrl="\(world.url("/a.xml"))"/>
            <outline text="Relative" type="rss" xmlUrl="c.xml"/>
            </body></opml>
            """.write(to: opml, atomically: true, encoding: .utf8)

        let imported = try await world.cli.run(["import", opml.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("warning: \(opml.path): line 5 (Alpha again): \(world.url("/a.xml")): the same feed as line 3, skipped"))
        #expect(imported.stderr.contains("warning: \(opml.path): line 6 (Relative): c.xml is not an absolute URL, skipped"))
        // The counts are what `new` lists: a new subscription marks only its newest episode.
        #expect(imported.stdout.contains("Alpha: 1 new\n"), "\(imported.stdout)")
        #expect(imported.stdout.hasSuffix("Updated 2 podcasts: 2 new episodes\n"), "\(imported.stdout)")
        #expect(world.server.requests(for: "/a.xml").count == 1)
        let new = try await world.cli.run(["new", "--json"])
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(new.stdout.utf8)) as? [[String: Any]])
        #expect(listed.map { $0["title"] as? String } == ["A2", "B1"], "only each show's most recent episode is new")

        let again = try await world.cli.run(["import", opml.path])
        #expect(again.status == 0)
        #expect(world.server.requests(for: "/a.xml").count == 1, "nothing is fetched twice")

        let exported = try await world.cli.run(["export"])
        #expect(exported.status == 0)
        #expect(exported.stdout.contains(#"xmlUrl="\#(world.url("/a.xml"))""#))
        #expect(exported.stdout.contains(#"xmlUrl="\#(world.url("/b.xml"))""#))
        let file = world.cli.home.appendingPathComponent("out.opml").path
        #expect(try await world.cli.run(["export", file]).status == 0)
        func withoutDate(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.contains("dateCreated") } }
        #expect(withoutDate(try String(contentsOfFile: file, encoding: .utf8)) == withoutDate(exported.stdout))

        let notOPML = try await world.cli.run(["import", world.cli.home.appendingPathComponent("nothing.opml").path])
        #expect(notOPML.status == 1)
        #expect(notOPML.stderr.hasPrefix("Error: cannot read "))
        try await world.stop()
    }

    @Test func aPrivateFeedsPasswordGoesToItsServerAndIsNeverShown() async throws {
        let world = try await World.start()
        world.serveFeed("/private.xml", Self.feed("Private", items: ["P1"]))
        let port = world.server.url("/").port!
        let secretURL = "http://member:s3cret@127.0.0.1:\(port)/private.xml"
        let subscribed = try await world.cli.run(["subscribe", secretURL, "--json"])
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        let request = try #require(world.server.requests(for: "/private.xml").first)
        #expect(request.header("Authorization") == "Basic " + Data("member:s3cret".utf8).base64EncodedString())

        world.server.addFaults([.status(500)], for: "/private.xml")
        var outputs = [subscribed]
        for arguments in [["podcasts"], ["podcasts", "--json"], ["episodes", "@1", "--json"], ["update"], ["update", "--json"], ["export"], ["new", "--json"]] {
            outputs.append(try await world.cli.run(arguments))
        }
        for output in outputs {
            #expect(!output.stdout.contains("s3cret") && !output.stderr.contains("s3cret"), "\(output.stdout)\(output.stderr)")
        }
        #expect(outputs.contains { $0.stdout.contains("member:***@127.0.0.1") })
        try await world.stop()
    }
}
