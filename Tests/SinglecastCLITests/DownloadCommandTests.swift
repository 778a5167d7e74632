import Foundation
import Testing
import TestSupport

@Suite struct DownloadCommandTests {
    private func expectedBytes(_ name: String) -> Data {
        TestServer.generatedBytes(offset: 0, count: Int(LoopbackShow.mediaSizes[name]!))
    }

    @Test func downloadsIntoEpisodesAndNeverTwice() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let result = try await show.cli.run(["download", "1", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let three = show.folder.appendingPathComponent("Episode Three: Café & Résumé.mp3")
        let one = show.folder.appendingPathComponent("Episode One.mp3")
        #expect(try Data(contentsOf: three) == expectedBytes("three.mp3"))
        #expect(try Data(contentsOf: one) == expectedBytes("one.mp3"))
        #expect(result.stdout.contains("done: \(three.path)"))
        #expect(!FileManager.default.fileExists(atPath: three.path + ".part"))

        show.server.clearRequests()
        let again = try await show.cli.run(["download", "1"])
        #expect(again.status == 0)
        #expect(again.stdout == "already downloaded: \(three.path)\n")
        #expect(show.server.requests.isEmpty)

        let listing = try await show.cli.run(["episodes", show.feedURL, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])
        let episodes = try #require(object["episodes"] as? [[String: Any]])
        #expect(episodes[0]["state"] as? String == "completed")
        #expect(episodes[0]["progress"] as? Double == 1)
        #expect(episodes[0]["file"] as? String == three.path)
        #expect(episodes[1]["state"] as? String == "not-started")
        try await show.stop()
    }

    /// One number that cannot be downloaded never cancels the rest: `1-5` of a show whose fourth
    /// episode has no audio and which has four downloads the three, names 4 and 5, and exits 1.
    @Test func aRangeDownloadsWhatItCanAndNamesEachNumberSkipped() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let result = try await show.cli.run(["download", "1-5"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("skipped: episode 4 (Announcement without audio) has no audio file to download"), "\(result.stderr)")
        #expect(result.stderr.contains("skipped: there is no episode 5 in Loopback Radio: it has 4 episodes"), "\(result.stderr)")
        for name in ["Episode Three: Café & Résumé.mp3", "Episode Two.mp3", "Episode One.mp3"] {
            #expect(FileManager.default.fileExists(atPath: show.folder.appendingPathComponent(name).path), "\(name)")
        }
        let none = try await show.cli.run(["download", "6-7"])
        #expect(none.status == 1)
        #expect(none.stdout.isEmpty)
        try await show.stop()
    }

    /// Steering a download id that does not exist says so and exits 1; `--json` keeps its outcome.
    @Test func anUnknownDownloadIdIsAFailure() async throws {
        let show = try await LoopbackShow.start()
        for command in ["pause", "cancel", "resume"] {
            let result = try await show.cli.run([command, "11"])
            #expect(result.status == 1, "\(command)")
            #expect(result.stdout == "no download has id 11\n", "\(command)")
            let json = try await show.cli.run([command, "11", "--json"])
            #expect(json.status == 1)
            #expect(json.stdout.contains(#""outcome" : "unknown""#), "\(json.stdout)")
        }
        try await show.cli.stopDaemon()  // resume asks a daemon, starting one
        try await show.stop()
    }

    @Test func theBufferIsRebuiltFromTheFilesOnDisk() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        #expect(try await show.cli.run(["download", "2"]).status == 0)
        let two = show.folder.appendingPathComponent("Episode Two.mp3")

        // The database is lost: the complete file still counts as downloaded.
        try FileManager.default.removeItem(at: show.cli.home.appendingPathComponent("library.sqlite"))
        try? FileManager.default.removeItem(at: show.cli.home.appendingPathComponent("library.sqlite-wal"))
        try? FileManager.default.removeItem(at: show.cli.home.appendingPathComponent("library.sqlite-shm"))
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        show.server.clearRequests()
        let afterLoss = try await show.cli.run(["download", "2"])
        #expect(afterLoss.stdout == "already downloaded: \(two.path)\n")
        #expect(show.server.requests.isEmpty)

        // The file is deleted: the episode is no longer downloaded.
        try FileManager.default.removeItem(at: two)
        #expect(try await show.downloadStates() == ["not-started"])
        let again = try await show.cli.run(["download", "2"])
        #expect(again.status == 0)
        #expect(try Data(contentsOf: two) == expectedBytes("two.mp3"))
        try await show.stop()
    }

    /// Issue 19, item 6: three episodes share a title, the third named by the server's
    /// Content-Type. Each keeps its own bytes, and after the database is lost `download` answers
    /// each with its own file, fetching nothing.
    @Test func episodesSharingATitleKeepTheirOwnFilesThroughALostDatabase() async throws {
        let show = try await LoopbackShow.start()
        let feed = try String(contentsOf: Fixtures.url("cli/same-titles.xml"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: "127.0.0.1:\(show.server.port)")
        show.server.serve(path: "/feeds/same.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        let bodies = ["/media/a.mp3": 30_000, "/media/b.mp3": 31_000, "/media/c": 32_000].mapValues { size in
            TestServer.generatedBytes(offset: Int64(size) * 7, count: size)
        }
        for (path, body) in bodies { show.server.serve(path: path, data: body, contentType: "audio/mpeg") }
        let feedURL = show.server.url("/feeds/same.xml").absoluteString
        #expect(try await show.cli.run(["episodes", feedURL]).status == 0)
        #expect(try await show.cli.run(["download", "1", "2", "3"]).status == 0)

        func files() async throws -> [String: String] {
            let listed = try await show.cli.run(["downloads", "--json"])
            let entries = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: entries.compactMap { entry in
                guard let url = (entry["url"] as? String).flatMap(URL.init(string:)), entry["state"] as? String == "completed",
                    let file = entry["file"] as? String
                else { return nil }
                return (url.path, file)
            })
        }
        let downloaded = try await files()
        #expect(Set(downloaded.keys) == Set(bodies.keys))
        for (path, body) in bodies {
            #expect(try Data(contentsOf: URL(fileURLWithPath: downloaded[path] ?? "/none")) == body, "\(path)")
        }
        #expect(Set(downloaded.values).count == 3)
        #expect(downloaded["/media/c"]?.hasSuffix(".mp3") == true)

        // The database is lost.
        for name in ["library.sqlite", "library.sqlite-wal", "library.sqlite-shm"] {
            try? FileManager.default.removeItem(at: show.cli.home.appendingPathComponent(name))
        }
        // `download` itself takes the files back, before it claims anything.
        show.server.clearRequests()
        for (number, path) in [(2, "/media/b.mp3"), (1, "/media/a.mp3"), (3, "/media/c")] {
            let again = try await show.cli.run(["download", String(number), "--feed", feedURL])
            #expect(again.stdout == "already downloaded: \(downloaded[path] ?? "?")\n", "episode \(number)")
        }
        #expect(show.server.requests.filter { $0.path.hasPrefix("/media/") }.isEmpty)
        try await show.stop()
    }

    @Test func aKilledDownloadResumesWithARangeRequest() async throws {
        let show = try await LoopbackShow.start()
        let total: Int64 = 4_000_000
        show.server.serve(path: "/media/two.mp3", generatedSize: total, contentType: "audio/mpeg", etag: "\"big\"", bytesPerSecond: 2_000_000)
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let part = show.folder.appendingPathComponent("Episode Two.mp3.part")
        let process = try show.cli.start(["download", "2"])
        try await waitUntil { fileSize(part) > 500_000 }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let kept = fileSize(part)
        #expect(kept > 0 && kept < total)

        // The stale "downloading" row becomes interrupted, with the partial file kept.
        #expect(try await show.downloadStates() == ["interrupted"])

        show.server.serve(path: "/media/two.mp3", generatedSize: total, contentType: "audio/mpeg", etag: "\"big\"")
        show.server.clearRequests()
        let rerun = try await show.cli.run(["download", "2"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let ranges = show.server.requests(for: "/media/two.mp3").compactMap(\.range)
        #expect(ranges.count == 1)
        let resumedFrom = try #require(ranges.first.flatMap { Int64($0.dropFirst("bytes=".count).dropLast()) })
        #expect(resumedFrom >= kept)
        let file = show.folder.appendingPathComponent("Episode Two.mp3")
        #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: Int(total)))
        try await show.stop()
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalKeepsThePartialFileAndExits128PlusItsNumber(signal: Int32) async throws {
        let show = try await LoopbackShow.start()
        let (process, part) = try await show.startSlowDownloadOfEpisodeOne(size: 4_000_000)
        kill(process.processIdentifier, signal)
        try await waitUntil { !process.isRunning }
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + signal)
        #expect(fileSize(part) > 0)
        #expect(!FileManager.default.fileExists(atPath: show.folder.appendingPathComponent("Episode One.mp3").path))
        #expect(try await show.downloadStates() == ["interrupted"])
        try await show.stop()
    }

    @Test func aSecondProcessDoesNotDownloadTheSameEpisode() async throws {
        let show = try await LoopbackShow.start()
        let (first, _) = try await show.startSlowDownloadOfEpisodeOne(size: 3_000_000, outputName: "first")
        let second = try await show.cli.run(["download", "3"])
        #expect(second.status == 0)
        #expect(second.stdout.hasPrefix("already being downloaded by process \(first.processIdentifier): Episode One"))
        try await waitUntil(timeout: .seconds(30)) { !first.isRunning }
        #expect(first.terminationStatus == 0)
        #expect(show.server.requests(for: "/media/one.mp3").count == 1)
        try await show.stop()
    }

    /// The foreground waits about ten seconds in all (1 s, then 1.4 times longer each time)
    /// before it says so: a server that answers is not waited for as an outage.
    @Test func aServerThatKeepsEndingTheTransferIsAnErrorNotAnOutage() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        show.server.serve(path: "/media/two.mp3", generatedSize: 2_000_000, contentType: "audio/mpeg", etag: "\"two-v2\"")
        show.server.endBodies(path: "/media/two.mp3", atByte: 1_000_000)
        let result = try await show.cli.run(["download", "2"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the server keeps ending the transfer at 50 % (1.0 MB of 2.0 MB)"))
        #expect(try await show.downloadStates() == ["error"])
        // --json carries the failure as a value.
        let listed = try await show.cli.run(["downloads", "--json"])
        let entries = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        let error = entries.first?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "server-keeps-ending")
        #expect(error?["at"] as? Int == 1_000_000)
        #expect(error?["total"] as? Int == 2_000_000)
        #expect((entries.first?["message"] as? String)?.hasSuffix("(1.0 MB of 2.0 MB)") == true)
        let part = show.folder.appendingPathComponent("Episode Two.mp3.part")
        #expect(fileSize(part) == 1_000_000)
        // Five tries in a row from byte 1,000,000 brought nothing new (before them, one answer or
        // more brought the first half: a close can lose bytes the client had not read yet).
        let ranges = show.server.requests(for: "/media/two.mp3").map(\.range)
        #expect(ranges.reversed().prefix { $0 == "bytes=1000000-" }.count == 5, "\(ranges)")
        try await show.stop()
    }

    /// `episodes --json` and `new --json` carry a failed download's `error` (and `message`) as
    /// `downloads --json` has them.
    @Test func aFailedDownloadCarriesItsErrorInEveryListing() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        show.server.remove(path: "/media/three.mp3")
        let failed = try await show.cli.run(["download", "--new"])
        #expect(failed.status == 1)

        func json(_ arguments: [String]) async throws -> Any {
            try JSONSerialization.jsonObject(with: Data(try await show.cli.run(arguments).stdout.utf8))
        }
        let downloads = try #require(try await json(["downloads", "--json"]) as? [[String: Any]])
        let expected = try #require(downloads.first?["error"] as? [String: Any])
        #expect(expected["kind"] as? String == "http-status")
        #expect(expected["status"] as? Int == 404)
        let message = try #require(downloads.first?["message"] as? String)
        #expect(message.hasPrefix(show.server.url("/media/three.mp3").absoluteString) && message.hasSuffix(" answered HTTP 404 Not Found"))

        let listing = try #require(try await json(["episodes", "@1", "--json"]) as? [String: Any])
        let episode = try #require((listing["episodes"] as? [[String: Any]])?.first)
        #expect(episode["state"] as? String == "error")
        #expect((episode["error"] as? NSDictionary) == expected as NSDictionary)
        #expect(episode["message"] as? String == message)
        #expect((listing["episodes"] as? [[String: Any]])?.last?["error"] is NSNull)

        let new = try #require(try await json(["new", "--json"]) as? [[String: Any]])
        #expect((new.first?["error"] as? NSDictionary) == expected as NSDictionary)
        #expect(new.first?["message"] as? String == message)

        // The table says why in a few words.
        let table = try await show.cli.run(["downloads"])
        #expect(table.stdout.contains("error: HTTP 404"), "\(table.stdout)")
        try await show.stop()
    }

    @Test func failuresLeaveNothingAtTheFinalPath() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        show.server.remove(path: "/media/two.mp3")
        let missing = try await show.cli.run(["download", "2"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("\(show.server.url("/media/two.mp3").absoluteString) answered HTTP 404 Not Found"))
        #expect(!FileManager.default.fileExists(atPath: show.folder.appendingPathComponent("Episode Two.mp3").path))

        let noSuch = try await show.cli.run(["download", "9"])
        #expect(noSuch.status == 1)
        #expect(noSuch.stderr == "skipped: there is no episode 9 in Loopback Radio: it has 4 episodes\n")
        let badRange = try await show.cli.run(["download", "3-1"])
        #expect(badRange.status == 64)
        try await show.stop()
    }

    @Test func watchFollowsDownloadsUntilCtrlC() async throws {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        #expect(try await show.cli.run(["download", "2"]).status == 0)
        let watcher = try show.cli.start(["downloads", "--watch"], outputName: "watch")
        let output = show.cli.home.appendingPathComponent("watch.stdout")
        try await waitUntil { ((try? String(contentsOf: output, encoding: .utf8)) ?? "").components(separatedBy: "Total:").count > 2 }
        kill(watcher.processIdentifier, SIGINT)
        try await waitUntil { !watcher.isRunning }
        #expect(watcher.terminationStatus == 0)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("completed  100%"))
        #expect(text.contains("Total: 1 completed, 0 active"))
        try await show.stop()
    }
}
