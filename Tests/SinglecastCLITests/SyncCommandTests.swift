import Foundation
import Testing
import TestSupport

/// `singlecast sync` and `update --sync` against an in-process gpodder-API server, with feeds
/// on a local server.
@Suite(.timeLimit(.minutes(3))) struct SyncCommandTests {
    static let password = "pa55-w0rd-XYZ"

    struct World {
        let sync: GpodderServer
        let feeds: TestServer
        let cli: CLI

        static func start(environment: [String: String] = ["SINGLECAST_SYNC_PASSWORD": SyncCommandTests.password]) async throws
            -> World
        {
            let sync = try await GpodderServer.start(users: ["alice": SyncCommandTests.password])
            let feeds = try await TestServer.start()
            var environment = environment
            // No test here waits for a timeout; a loaded machine must never turn a slow answer into one.
            environment["SINGLECAST_TIMEOUT"] = "30"
            environment["HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("no-home-\(UUID().uuidString)").path
            return World(sync: sync, feeds: feeds, cli: try CLI(environment: environment))
        }

        var server: String { sync.baseURL.absoluteString }
        var host: String { "127.0.0.1:\(sync.port)" }

        func serveFeed(_ path: String, title: String) -> String {
            let feed = """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>\(title)</title>
                <item><title>\(title) 2</title><guid>\(title)-2</guid><enclosure url="\(feeds.url("/media/\(title)-2.mp3"))" length="1" type="audio/mpeg"/></item>
                <item><title>\(title) 1</title><guid>\(title)-1</guid><enclosure url="\(feeds.url("/media/\(title)-1.mp3"))" length="1" type="audio/mpeg"/></item>
                </channel></rss>
                """
            feeds.serve(path: path, data: Data(feed.utf8), contentType: "application/rss+xml")
            return feeds.url(path).absoluteString
        }

        func stop() async throws {
            try await sync.stop()
            try await feeds.stop()
            cli.removeHome()
        }
    }

    static func expectNoPassword(_ result: CLI.Result) {
        #expect(!result.stdout.contains(password) && !result.stderr.contains(password), "the password never appears")
    }

    @Test func aBareSyncWithNothingRememberedAsksForServerAndUser() async throws {
        let world = try await World.start()
        let result = try await world.cli.run(["sync"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--server") && result.stderr.contains("--user"), "\(result.stderr)")
        #expect(world.sync.requests.isEmpty)
        try await world.stop()
    }

    @Test func withoutAPasswordItNamesTheThreeWays() async throws {
        let world = try await World.start(environment: [:])
        let result = try await world.cli.run(["sync", "--server", world.server, "--user", "alice"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("~/.netrc") && result.stderr.contains("SINGLECAST_SYNC_PASSWORD"), "\(result.stderr)")
        #expect(result.stderr.contains("terminal"))
        #expect(world.sync.requests.isEmpty)
        try await world.stop()
    }

    @Test func syncsSubscriptionsAndPositionsThenRemembersTheAccount() async throws {
        let world = try await World.start()
        let alpha = world.serveFeed("/alpha.xml", title: "Alpha")
        let beta = world.serveFeed("/beta.xml", title: "Beta")
        #expect(try await world.cli.run(["subscribe", alpha]).status == 0)
        // On the phone: Beta subscribed, and Alpha 2 heard to 1:40.
        world.sync.subscriptionChange(user: "alice", device: "laptop", add: [beta])
        world.sync.uploadActions(
            user: "alice",
            [[
                "podcast": alpha, "episode": world.feeds.url("/media/Alpha-2.mp3").absoluteString, "action": "play",
                "timestamp": "2023-11-14T22:13:20", "started": 0, "position": 100, "total": 1000,
            ]])
        let first = try await world.cli.run(["sync", "--server", world.server, "--user", "alice", "--device", "laptop"])
        #expect(first.status == 0, "\(first.stderr)")
        // The server found by asking it, with the login made while the library opened: one.
        #expect(world.sync.requests(to: .login).count == 1)
        #expect(
            first.stdout
                == "Synced with \(world.host): subscriptions here +1 -0, there +1 -0; actions received 1, applied 1, sent 0\n")
        Self.expectNoPassword(first)
        #expect(world.sync.subscriptions(user: "alice", device: "laptop").sorted() == [alpha, beta].sorted())
        // Beta's feed was fetched at once.
        let podcasts = try await world.cli.run(["podcasts"])
        #expect(podcasts.stdout.contains("Beta"), "\(podcasts.stdout)")
        let episodes = try await world.cli.run(["episodes", alpha])
        #expect(episodes.stdout.contains("1:40"), "\(episodes.stdout)")

        // Remembered: a bare sync, as JSON.
        let second = try await world.cli.run(["sync", "--json", "--verbose"])
        #expect(second.status == 0, "\(second.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        #expect(object["server"] as? String == world.server)
        #expect(object["api"] as? String == "gpodder")
        #expect((object["actions"] as? [String: Any])?["received"] as? Int == 1, "since is inclusive")
        #expect((object["actions"] as? [String: Any])?["applied"] as? Int == 0)
        #expect(second.stderr.contains("/api/2/episodes/alice.json"), "the requests are logged: \(second.stderr)")
        Self.expectNoPassword(second)
        #expect(!second.stderr.contains("Authorization") && !second.stderr.contains("sessionid"))

        // Forgotten: a bare sync needs the server and user again.
        let forget = try await world.cli.run(["sync", "--forget"])
        #expect(forget.status == 0 && forget.stdout == "Forgot the sync account and its state.\n")
        let count = world.sync.requests.count
        #expect(try await world.cli.run(["sync"]).status == 64)
        #expect(world.sync.requests.count == count)
        try await world.stop()
    }

    @Test func onATerminalThePasswordIsAskedForWithoutEcho() async throws {
        let world = try await World.start(environment: [:])
        // `script` gives the binary a terminal; the password is typed once the prompt shows.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = [CLI.executable.path, "sync", "--server", world.server, "--user", "alice", "--device", "laptop"]
        process.arguments = ["-qec", command.joined(separator: " "), "/dev/null"]
        process.environment = world.cli.environment
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let transcript: String = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var text = Data()
                var typed = false
                while true {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    text.append(chunk)
                    if !typed, String(decoding: text, as: UTF8.self).contains("Password for alice at \(world.host): ") {
                        typed = true
                        input.fileHandleForWriting.write(Data((SyncCommandTests.password + "\n").utf8))
                    }
                }
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: text, as: UTF8.self))
            }
        }
        #expect(process.terminationStatus == 0, "\(transcript)")
        #expect(transcript.contains("Password for alice at \(world.host): "))
        #expect(transcript.contains("Synced with \(world.host)"), "\(transcript)")
        #expect(!transcript.contains(Self.password), "typed without echo: \(transcript)")
        try await world.stop()
    }

    @Test func aRefusedPasswordNamesServerUserAndWhereThePasswordCameFrom() async throws {
        let netrc = FileManager.default.temporaryDirectory.appendingPathComponent("netrc-\(UUID().uuidString)")
        try "machine 127.0.0.1 login alice password wrong-one-123\n".write(to: netrc, atomically: true, encoding: .utf8)
        let world = try await World.start(environment: ["NETRC": netrc.path, "SINGLECAST_SYNC_PASSWORD": Self.password])
        let result = try await world.cli.run(["sync", "--server", world.server, "--user", "alice"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(world.host) refused user alice: check the password in \(netrc.path)\n")
        #expect(!result.stderr.contains("wrong-one-123") && !result.stdout.contains("wrong-one-123"))
        Self.expectNoPassword(result)
        try? FileManager.default.removeItem(at: netrc)
        try await world.stop()
    }

    @Test func aServerErrorNamesTheServerAndChangesNothing() async throws {
        let world = try await World.start()
        let alpha = world.serveFeed("/alpha.xml", title: "Alpha")
        world.sync.subscriptionChange(user: "alice", device: "laptop", add: [alpha])
        world.sync.addFaults([.status(500)], for: .actions)
        let result = try await world.cli.run(["sync", "--server", world.server, "--user", "alice", "--device", "laptop"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: \(world.host) answered HTTP 500 Internal Server Error for the episode actions; nothing was changed here\n")
        #expect(try await world.cli.run(["podcasts"]).stdout.contains("Alpha") == false)
        world.sync.addFaults([.cutConnection], for: .subscriptions)
        let cut = try await world.cli.run(["sync"])
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("could not reach \(world.host) for the subscription changes"), "\(cut.stderr)")
        // Then the server is back.
        let ok = try await world.cli.run(["sync"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try await world.cli.run(["podcasts"]).stdout.contains("Alpha"))
        try await world.stop()
    }

    @Test func listsTheAccountsDevices() async throws {
        let world = try await World.start()
        world.sync.addDevice(user: "alice", id: "pixel", caption: "AntennaPod", type: "mobile")
        let result = try await world.cli.run(["sync", "--devices", "--server", world.server, "--user", "alice"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ID     TYPE     SUBS  CAPTION\npixel  mobile      0  AntennaPod\n")
        try await world.stop()
    }

    /// A show unsubscribed on the phone ends here as `unsubscribe` ends it: its unfinished
    /// downloads are cancelled, its downloaded files kept.
    @Test func aRemoteRemoveCancelsTheShowsUnfinishedDownloads() async throws {
        let world = try await World.start()
        let alpha = world.serveFeed("/alpha.xml", title: "Alpha")
        world.feeds.serve(path: "/media/Alpha-1.mp3", generatedSize: 50_000, contentType: "audio/mpeg")
        world.feeds.serve(path: "/media/Alpha-2.mp3", generatedSize: 4_000_000, contentType: "audio/mpeg", bytesPerSecond: 1_000_000)
        #expect(try await world.cli.run(["subscribe", alpha]).status == 0)
        #expect(try await world.cli.run(["sync", "--server", world.server, "--user", "alice", "--device", "laptop"]).status == 0)
        // Alpha 1 downloaded; Alpha 2 stopped part way (Ctrl-C), its part kept to resume.
        let folder = world.cli.episodesDirectory.appendingPathComponent("Alpha", isDirectory: true)
        let part = folder.appendingPathComponent("Alpha 2.mp3.part")
        let download = try world.cli.start(["download", "1", "2", "--feed", alpha])
        try await waitUntil { fileSize(part) > 100_000 && fileSize(folder.appendingPathComponent("Alpha 1.mp3")) == 50_000 }
        kill(download.processIdentifier, SIGINT)
        try await waitUntil { !download.isRunning }
        #expect(download.terminationStatus == 130)

        world.sync.subscriptionChange(user: "alice", device: "laptop", remove: [alpha])
        let sync = try await world.cli.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("subscriptions here +0 -1"), "\(sync.stdout)")
        let listed = try await world.cli.run(["downloads", "--json"])
        let downloads = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        let states = Dictionary(uniqueKeysWithValues: downloads.map { ($0["title"] as? String ?? "", $0["state"] as? String ?? "") })
        #expect(states == ["Alpha 1": "completed", "Alpha 2": "cancelled"], "\(listed.stdout)")
        #expect(fileSize(folder.appendingPathComponent("Alpha 1.mp3")) == 50_000, "downloaded files are kept")
        #expect(fileSize(part) == 0)
        try await world.stop()
    }

    /// A world whose sync account is set up, and whose server holds a subscription (Alpha) made
    /// on another device, for the next sync to receive.
    static func worldWithASubscriptionToReceive() async throws -> World {
        let world = try await World.start()
        let alpha = world.serveFeed("/alpha.xml", title: "Alpha")
        #expect(try await world.cli.run(["sync", "--server", world.server, "--user", "alice", "--api", "gpodder", "--device", "laptop"]).status == 0)
        world.sync.subscriptionChange(user: "alice", device: "laptop", add: [alpha])
        return world
    }

    @Test func updateSyncsBeforeAndAfter() async throws {
        let world = try await Self.worldWithASubscriptionToReceive()
        let before = world.sync.requests(to: .actions).count
        let update = try await world.cli.run(["update", "--sync"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(world.sync.requests(to: .actions).count == before + 2)
        #expect(update.stdout.contains("Synced with"))
        try await world.stop()
    }

    /// A timed update (`--changes-only`) that syncs says what the sync changed, and nothing
    /// once nothing changes.
    @Test func aTimedUpdateSyncsSilentlyWhenNothingChanged() async throws {
        let world = try await Self.worldWithASubscriptionToReceive()
        let changed = try await world.cli.run(["update", "--sync", "--changes-only"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("Synced with") && changed.stdout.contains("here +1"), "\(changed.stdout)")
        let before = world.sync.requests(to: .actions).count
        let quiet = try await world.cli.run(["update", "--sync", "--changes-only"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout == "" && quiet.stderr == "", "\(quiet.stdout)\(quiet.stderr)")
        #expect(world.sync.requests(to: .actions).count == before + 2, "it did sync, before and after")
        try await world.stop()
    }

    @Test func updateSyncJSONIsOneDocument() async throws {
        let world = try await Self.worldWithASubscriptionToReceive()
        let update = try await world.cli.run(["update", "--sync", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [String: Any])
        #expect(Set(document.keys) == ["syncBefore", "update", "syncAfter"])
        let before = try #require(document["syncBefore"] as? [String: Any])
        #expect((before["subscriptions"] as? [String: Any])?["addedHere"] as? Int == 1)
        #expect((document["update"] as? [[String: Any]])?.count == 1)
        #expect((document["syncAfter"] as? [String: Any])?["api"] as? String == "gpodder")
        try await world.stop()
    }
}
