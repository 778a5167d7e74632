import Foundation
import GRDB
import Testing
import TestSupport

@testable import SinglecastKit

/// Syncs against an in-process gpodder-API server speaking both dialects.
@Suite(.timeLimit(.minutes(2))) struct SynchronizerTests {
    static let feedURL = "https://shows.example/feed.xml"

    static func feed(_ count: Int = 3, feedURL: String = feedURL) -> Feed {
        Feed(
            podcast: Podcast(title: "Show", link: URL(string: "https://shows.example")),
            episodes: (0..<count).map { index in
                Episode(
                    title: "Episode \(index)", guid: "guid-\(index)",
                    published: Date(timeIntervalSince1970: Double(1_700_000_000 - index * 86_400)), duration: 3600,
                    enclosure: Enclosure(url: episodeURL(index), length: 1000, type: "audio/mpeg"))
            })
    }

    static func episodeURL(_ index: Int) -> String { "https://cdn.shows.example/\(index).mp3" }

    /// A library with the show subscribed, a server with the user, and a session.
    struct World {
        let library: Library
        let server: GpodderServer
        let session: HTTPSession
        let podcastID: Int64
        var password = "s3cret-pass"

        static func start(dialects: Set<GpodderServer.Dialect> = [.gpodder, .nextcloud], api: SyncDialect? = .gpodder) async throws
            -> World
        {
            let library = try Library.inMemory()
            let server = try await GpodderServer.start(users: ["alice": "s3cret-pass"], dialects: dialects)
            let saved = try await library.saveFeed(SynchronizerTests.feed(), feedKey: SynchronizerTests.feedURL)
            try await library.subscribe(podcastID: saved.podcast.id)
            var configuration = HTTPSession.Configuration()
            configuration.readTimeout = .seconds(10)
            let world = World(library: library, server: server, session: HTTPSession(configuration: configuration), podcastID: saved.podcast.id)
            try await library.rememberSyncAccount(SyncAccount(server: server.baseURL, user: "alice", device: "laptop", dialect: api))
            return world
        }

        func sync(password: String? = nil) async throws -> SyncReport {
            let account = try #require(try await library.syncAccount())
            return try await Synchronizer(
                library: library, session: session, credentials: SyncCredentials(user: "alice", password: password ?? self.password)
            ).sync(account, caption: "Singlecast on test")
        }

        func entry(_ index: Int) async throws -> EpisodeEntry {
            try await library.episodes(podcastID: podcastID)[index]
        }

        func stop() async throws {
            try await session.shutdown()
            try await server.stop()
        }
    }

    static func play(_ index: Int, position: Int, total: Int? = 3600, at timestamp: String, device: String = "phone")
        -> [String: Any]
    {
        var object: [String: Any] = [
            "podcast": feedURL, "episode": episodeURL(index), "action": "play", "timestamp": timestamp, "started": 0,
            "position": position, "device": device,
        ]
        if let total { object["total"] = total }
        return object
    }

    /// A login made ahead is the sync's when it is the account's; one in another dialect is
    /// left, and the sync logs in itself.
    @Test func aLoginMadeAheadServesOnlyItsAccount() async throws {
        let world = try await World.start(api: .gpodder)
        let credentials = SyncCredentials(user: "alice", password: world.password)
        let synchronizer = Synchronizer(library: world.library, session: world.session, credentials: credentials)
        let account = try #require(try await world.library.syncAccount())
        let ahead = try await Synchronizer.logIn(
            to: world.server.baseURL, credentials: credentials, dialect: .gpodder, session: world.session)
        #expect(world.server.requests(to: .login).count == 1)
        #expect(try await synchronizer.sync(account, caption: "test", login: ahead).api == .gpodder)
        #expect(world.server.requests(to: .login).count == 1, "the login made ahead")
        let otherDialect = try await Synchronizer.logIn(
            to: world.server.baseURL, credentials: credentials, dialect: .nextcloud, session: world.session)
        #expect(try await synchronizer.sync(account, caption: "test", login: otherDialect).api == .gpodder)
        #expect(world.server.requests(to: .login).count == 2, "a login of its own")
        try await world.stop()
    }

    @Test func aPositionMakesTheRoundTrip() async throws {
        let world = try await World.start()
        let episode = try await world.entry(0)
        // Heard here to 23:10, synced: the server has it as the API spells it.
        try await world.library.recordPlayback(
            episodeID: episode.id, .position(1390, started: 0, total: 3600), at: Date(timeIntervalSince1970: 1_700_000_000))
        let first = try await world.sync()
        #expect(first.actionsSent == 1)
        #expect(first.addedThere == 1, "the first sync sends every subscription")
        #expect(world.server.subscriptions(user: "alice", device: "laptop") == [Self.feedURL])
        let sent = try #require(world.server.storedActions.first?.object)
        #expect(sent["timestamp"] as? String == "2023-11-14T22:13:20")
        #expect(sent["position"] as? Int == 1390 && sent["total"] as? Int == 3600 && sent["started"] as? Int == 0)
        #expect(sent["device"] as? String == "laptop")
        #expect(sent["guid"] as? String == "guid-0")
        #expect(world.server.devices["alice"]?["laptop"]?.type == "laptop")
        // The login's cookie is used after the login; the password goes only to the login.
        let later = world.server.requests.filter { $0.path != "/api/2/auth/alice/login.json" }
        #expect(later.allSatisfy { $0.header("Authorization") == nil && $0.header("Cookie")?.hasPrefix("sessionid=") == true })

        // The phone goes on to 40:00 later; the next sync applies it without sending it back.
        world.server.uploadActions(user: "alice", [Self.play(0, position: 2400, at: "2023-11-14T23:00:00Z")])
        let actionsBefore = try await world.library.episodeActions().count
        let second = try await world.sync()
        #expect(second.actionsApplied == 1)
        #expect(second.actionsSent == 0)
        #expect(try await world.entry(0).playback.position == 2400)
        #expect(try await world.library.episodeActions().count == actionsBefore, "a received play is not a local action")
        try await world.stop()
    }

    @Test func theNewestTimestampWinsWhateverTheOrder() async throws {
        let world = try await World.start()
        let episode = try await world.entry(1)
        try await world.library.recordPlayback(
            episodeID: episode.id, .position(600, started: 0, total: 3600), at: Date(timeIntervalSince1970: 1_700_000_000))
        // Older than what was heard here: changes nothing. For episode 2, the newer comes first in the list.
        world.server.uploadActions(
            user: "alice",
            [
                Self.play(1, position: 100, at: "2023-11-14T22:00:00"),
                Self.play(2, position: 900, at: "2023-11-15T10:00:00"),
                Self.play(2, position: 300, at: "2023-11-15T09:00:00"),
                ["podcast": Self.feedURL, "episode": Self.episodeURL(2), "action": "new", "timestamp": "2023-11-15T08:00:00"],
            ])
        let report = try await world.sync()
        #expect(report.actionsReceived == 4)
        #expect(report.actionsApplied == 1)
        #expect(try await world.entry(1).playback.position == 600)
        #expect(try await world.entry(2).playback.position == 900)

        // A newer played mark from the phone (position within 30 s of the end) marks it played.
        world.server.uploadActions(user: "alice", [Self.play(1, position: 3590, at: "2023-11-16T10:00:00")])
        #expect(try await world.sync().actionsApplied == 1)
        let played = try await world.entry(1).playback
        #expect(played.isPlayed && played.position == nil)
        #expect(played.playedAt == Date(timeIntervalSince1970: 1_700_128_800))

        // Marked unplayed on the phone later still.
        world.server.uploadActions(
            user: "alice",
            [["podcast": Self.feedURL, "episode": Self.episodeURL(1), "action": "new", "timestamp": "2023-11-17T10:00:00"]])
        #expect(try await world.sync().actionsApplied == 1)
        #expect(try await world.entry(1).playback == Playback())
        try await world.stop()
    }

    @Test func sinceIsInclusiveAndARepeatedActionIsAppliedOnce() async throws {
        let world = try await World.start()
        world.server.uploadActions(user: "alice", [Self.play(0, position: 100, at: "2023-11-14T22:00:00")])
        #expect(try await world.sync().actionsApplied == 1)
        let since = world.server.requests(to: .actions).last.map { $0.uri }
        #expect(since?.hasSuffix("since=0") == true)
        // Heard here meanwhile, after the phone's action: the phone's action comes back (since is
        // inclusive) and is neither applied again nor allowed to undo the local position.
        let episode = try await world.entry(0)
        try await world.library.recordPlayback(episodeID: episode.id, .position(200, started: 100, total: 3600))
        let again = try await world.sync()
        let phoneStamp = try #require(world.server.storedActions.first?.stamp)
        #expect(world.server.requests(to: .actions).last?.uri.hasSuffix("since=\(phoneStamp)") == true)
        #expect(again.actionsReceived >= 1)
        #expect(again.actionsApplied == 0)
        #expect(try await world.entry(0).playback.position == 200)
        // Its own action, echoed back by the server, is not applied either.
        #expect(try await world.sync().actionsApplied == 0)
        try await world.stop()
    }

    @Test func anActionForAnUnknownEpisodeIsAppliedWhenTheEpisodeAppears() async throws {
        let world = try await World.start()
        world.server.uploadActions(user: "alice", [Self.play(5, position: 777, at: "2023-11-14T22:00:00")])
        let report = try await world.sync()
        #expect(report.actionsWaiting == 1 && report.actionsApplied == 0)
        #expect(try await world.library.waitingSyncActionCount() == 1)
        // The feed now lists a sixth episode: the save applies the position.
        try await world.library.saveFeed(Self.feed(6), feedKey: Self.feedURL)
        let entries = try await world.library.episodes(podcastID: world.podcastID)
        #expect(entries.first { $0.episode.enclosure?.url == Self.episodeURL(5) }?.playback.position == 777)
        #expect(try await world.library.waitingSyncActionCount() == 0)
        try await world.stop()
    }

    @Test func aNewerActionForAnUnknownEpisodeTakesTheWaitingOnesPlace() async throws {
        let world = try await World.start()
        world.server.uploadActions(user: "alice", [Self.play(5, position: 777, at: "2023-11-14T22:00:00")])
        #expect(try await world.sync().actionsWaiting == 1)
        // Marked unplayed on the phone later; an older play comes too: only the newest waits.
        world.server.uploadActions(
            user: "alice",
            [
                ["podcast": Self.feedURL, "episode": Self.episodeURL(5), "action": "new", "timestamp": "2023-11-15T08:00:00"],
                Self.play(5, position: 500, at: "2023-11-14T21:00:00"),
            ])
        #expect(try await world.sync().actionsWaiting == 1)
        #expect(try await world.library.waitingSyncActionCount() == 1)
        try await world.library.saveFeed(Self.feed(6), feedKey: Self.feedURL)
        let entries = try await world.library.episodes(podcastID: world.podcastID)
        #expect(entries.first { $0.episode.enclosure?.url == Self.episodeURL(5) }?.playback == Playback())
        #expect(try await world.library.waitingSyncActionCount() == 0)
        // Applied once: the play the server sends again (since is inclusive) is older than the mark.
        #expect(try await world.sync().actionsApplied == 0)
        try await world.stop()
    }

    @Test func subscriptionsGoBothWaysAndURLRewritesAreApplied() async throws {
        let world = try await World.start()
        _ = try await world.sync()
        // On the phone (the same device, as gpodder.net keeps them): one added, the show removed.
        world.server.subscriptionChange(user: "alice", device: "laptop", add: ["https://other.example/rss"], remove: [Self.feedURL])
        let report = try await world.sync()
        #expect(report.addedHere == 1 && report.removedHere == 1)
        let added = try #require(try await world.library.podcast(feedKey: "https://other.example/rss"))
        #expect(added.subscription != nil)
        #expect(report.podcastsToFetch == [added.id])
        #expect(try await world.library.podcast(id: world.podcastID)?.subscription == nil)
        #expect(report.podcastsRemoved == [world.podcastID])
        #expect(report.addedThere == 0 && report.removedThere == 0, "what came from the server is not sent back")

        // Subscribed here again, and a feed read from a file: only the http one is sent, and the
        // server's rewrite of it is applied to the stored feed.
        world.server.rewrite(Self.feedURL, to: "https://shows.example/feed")
        try await world.library.subscribe(podcastID: world.podcastID)
        let local = try await world.library.saveFeed(Self.feed(1), feedKey: "file:///home/me/show.xml")
        try await world.library.subscribe(podcastID: local.podcast.id)
        try await world.library.recordPlayback(
            episodeID: try await world.library.episodes(podcastID: local.podcast.id)[0].id, .position(9, started: 0, total: 60))
        let third = try await world.sync()
        #expect(third.addedThere == 1 && third.rewrittenURLs == 1)
        #expect(try await world.library.podcast(id: world.podcastID)?.feedKey == "https://shows.example/feed")
        let uploads = world.server.requests(to: .subscriptionUpload)
        #expect(uploads.allSatisfy { !String(decoding: $0.body, as: UTF8.self).contains("file:") })
        #expect(third.actionsSent == 0, "an action of a feed read from a file stays here")
        #expect(world.server.requests(to: .actionUpload).isEmpty)
        #expect(world.server.subscriptions(user: "alice", device: "laptop").sorted() == ["https://other.example/rss", "https://shows.example/feed"])
        let fourth = try await world.sync()
        #expect(fourth.addedThere == 0 && fourth.removedThere == 0, "the server's rewrite is not sent back")
        try await world.stop()
    }

    @Test func theFirstSyncsSubscriptionsAreSentAgainWhenTheirUploadFailed() async throws {
        let world = try await World.start()
        world.server.addFaults([.status(502)], for: .subscriptionUpload)
        await #expect(throws: SyncError(.status(502, request: .subscriptionUpload), server: world.server.baseURL)) {
            try await world.sync()
        }
        #expect(world.server.subscriptions(user: "alice", device: "laptop").isEmpty)
        let report = try await world.sync()
        #expect(report.addedThere == 1)
        #expect(world.server.subscriptions(user: "alice", device: "laptop") == [Self.feedURL])
        try await world.stop()
    }

    @Test func aMovedFeedIsSentAsARemoveAndAnAdd() async throws {
        let world = try await World.start()
        _ = try await world.sync()
        // An update followed a permanent redirect: the feed is saved under its new URL.
        var options = Library.SaveOptions()
        options.podcastID = world.podcastID
        try await world.library.saveFeed(Self.feed(), feedKey: "https://shows.example/new.xml", options: options)
        let report = try await world.sync()
        #expect(report.addedThere == 1 && report.removedThere == 1)
        #expect(world.server.subscriptions(user: "alice", device: "laptop") == ["https://shows.example/new.xml"])
        try await world.stop()
    }

    /// The server's rewrite of a feed URL comes with the subscription changes sent first; the
    /// episode actions sent after them name the feed by its new URL.
    @Test func actionsSentAfterARewriteNameTheFeedByItsNewURL() async throws {
        let world = try await World.start()
        _ = try await world.sync()
        world.server.rewrite(Self.feedURL, to: "https://shows.example/feed")
        try await world.library.unsubscribe(podcastID: world.podcastID)
        try await world.library.subscribe(podcastID: world.podcastID)
        try await world.library.recordPlayback(episodeID: try await world.entry(0).id, .position(42, started: 0, total: 3600))
        let report = try await world.sync()
        #expect(report.rewrittenURLs == 1 && report.actionsSent == 1)
        let sent = try #require(world.server.storedActions.last?.object)
        #expect(sent["podcast"] as? String == "https://shows.example/feed")
        try await world.stop()
    }

    @Test func aServerErrorAppliesNothingAndLosesNothing() async throws {
        let world = try await World.start()
        _ = try await world.sync()
        world.server.subscriptionChange(user: "alice", device: "laptop", add: ["https://other.example/rss"])
        world.server.uploadActions(user: "alice", [Self.play(0, position: 100, at: "2023-11-15T22:00:00")])
        let episode = try await world.entry(1)
        try await world.library.recordPlayback(episodeID: episode.id, .position(50, started: 0, total: 3600))
        let faults: [(GpodderServer.Fault, SyncError.Reason)] = [
            (.status(500), .status(500, request: .actions)),
            (.cutConnection, .transport(.connectionClosed, request: .actions)),
            (.malformedBody, .malformed(request: .actions)),
        ]
        for (fault, reason) in faults {
            world.server.addFaults([fault], for: .actions)
            let error = await #expect(throws: SyncError.self) { try await world.sync() }
            #expect(error?.reason == reason)
            #expect(error?.server == world.server.baseURL)
            #expect(try await world.library.podcast(feedKey: "https://other.example/rss") == nil, "nothing half-applied")
            #expect(try await world.entry(0).playback.position == nil)
        }
        // An upload that fails keeps the action for the next sync.
        world.server.addFaults([.status(503)], for: .actionUpload)
        await #expect(throws: SyncError(.status(503, request: .actionUpload), server: world.server.baseURL)) { try await world.sync() }
        #expect(try await world.entry(0).playback.position == 100, "what was received was applied")
        let report = try await world.sync()
        #expect(report.actionsSent == 1)
        #expect(world.server.storedActions.filter { ($0.object["position"] as? Int) == 50 }.count == 1)
        #expect(try await world.sync().actionsSent == 0, "an acknowledged action is never sent again")
        try await world.stop()
    }

    @Test func anUnreachableServerChangesNothing() async throws {
        let world = try await World.start()
        try await world.server.stop()
        let error = await #expect(throws: SyncError.self) { try await world.sync() }
        guard case .transport(_, let request) = error?.reason else {
            Issue.record("not a transport error: \(String(describing: error))")
            return
        }
        #expect(request == .login)
        #expect(try await world.library.syncAccount()?.subscriptionsSince == nil)
        try await world.session.shutdown()
    }

    @Test func aWrongPasswordIsRefusedWithTheBasicChallenge() async throws {
        let world = try await World.start(api: nil)
        await #expect(throws: SyncError(.unauthorized(user: "alice"), server: world.server.baseURL)) {
            try await world.sync(password: "wrong")
        }
        let login = try #require(world.server.requests.first)
        #expect(login.path == "/api/2/auth/alice/login.json")
        #expect(world.server.requests.count == 1, "one request, nothing else tried")
        // Without credentials the server challenges, as gPodder's client expects.
        let response = try await world.session.send(
            HTTPSession.Request(.GET, world.server.baseURL.appendingPathComponent("api/2/episodes/alice.json"), credentials: { _ in [] }))
        #expect(response.status == 401)
        #expect(response.headers.first(name: "WWW-Authenticate")?.hasPrefix("Basic") == true)
        try await world.stop()
    }

    @Test func findsAndSpeaksTheNextcloudDialect() async throws {
        let world = try await World.start(dialects: [.nextcloud], api: nil)
        world.server.uploadActions(user: "alice", [Self.play(0, position: 321, at: "2023-11-14T22:00:00")])
        let episode = try await world.entry(2)
        try await world.library.recordPlayback(episodeID: episode.id, .played(total: 3600))
        let report = try await world.sync()
        #expect(report.api == .nextcloud)
        #expect(try await world.library.syncAccount()?.dialect == .nextcloud)
        #expect(report.actionsApplied == 1 && report.actionsSent == 1 && report.addedThere == 1)
        #expect(try await world.entry(0).playback.position == 321)
        let paths = world.server.requests.map(\.path)
        #expect(paths.first == "/api/2/auth/alice/login.json")
        #expect(paths.dropFirst().allSatisfy { $0.hasPrefix("/index.php/apps/gpoddersync/") })
        #expect(world.server.requests.dropFirst().allSatisfy { $0.header("Authorization")?.hasPrefix("Basic ") == true })
        let sent = try #require(world.server.storedActions.last?.object)
        #expect(sent["device"] == nil)
        #expect(sent["position"] as? Int == 3600 && sent["total"] as? Int == 3600, "a played mark is a play to the end")
        // Remembered: the next sync asks no more.
        _ = try await world.sync()
        #expect(world.server.requests.filter { $0.path.hasPrefix("/api/") }.count == 1)
        try await world.stop()
    }

    /// A batch the server took stays acknowledged when the next one fails: the next sync sends
    /// only what is left.
    @Test func aBatchTakenBeforeAFailingOneIsNeverSentAgain() async throws {
        let world = try await World.start()
        let episode = try await world.entry(0)
        let changes = (0..<1500).map { (episodeID: episode.id, change: PlaybackChange.position(Double($0), started: 0, total: 3600)) }
        _ = try await world.library.recordPlayback(changes)
        world.server.addFaults([.asUsual, .status(503)], for: .actionUpload)
        await #expect(throws: SyncError(.status(503, request: .actionUpload), server: world.server.baseURL)) { try await world.sync() }
        #expect(world.server.storedActions.count == 1000)
        let report = try await world.sync()
        #expect(report.actionsSent == 500)
        #expect(world.server.storedActions.count == 1500)
        try await world.stop()
    }

    @Test func actionsAreSentInBatchesAndARefusedOneDoesNotBlockTheQueue() async throws {
        let world = try await World.start()
        let episode = try await world.entry(0)
        let changes = (0..<2500).map { (episodeID: episode.id, change: PlaybackChange.position(Double($0), started: 0, total: 3600)) }
        _ = try await world.library.recordPlayback(changes)
        // A played mark of a show not followed, and a refused URL: never sent; the rest goes on.
        let other = try await world.library.saveFeed(Self.feed(1, feedURL: "https://gone.example/rss"), feedKey: "https://gone.example/rss")
        try await world.library.recordPlayback(episodeID: try await world.library.episodes(podcastID: other.podcast.id)[0].id, .played(total: 10))
        let refused = try await world.library.saveFeed(Self.feed(1), feedKey: "https://refuse.example/rss")
        try await world.library.subscribe(podcastID: refused.podcast.id)
        try await world.library.recordPlayback(
            episodeID: try await world.library.episodes(podcastID: refused.podcast.id)[0].id, .position(5, started: 0, total: 60))
        world.server.refuseActions(containing: "refuse.example")
        let report = try await world.sync()
        #expect(report.actionsSent == 2500)
        #expect(report.actionsRefused == 1 && report.refusalStatus == 400)
        #expect(report.refusedActions == ["play \(Self.episodeURL(0))"])
        let uploads = world.server.requests(to: .actionUpload)
        let sizes = uploads.compactMap { ($0.json as? [Any])?.count }
        #expect(sizes.allSatisfy { $0 <= 1000 })
        #expect(world.server.storedActions.count == 2500)
        #expect(world.server.storedActions.allSatisfy { ($0.object["podcast"] as? String) == Self.feedURL })
        let again = try await world.sync()
        #expect(again.actionsSent == 0 && again.actionsRefused == 0)
        try await world.stop()
    }

    @Test func joiningThePhonesDeviceKeepsItsCaptionAndReadsItsSubscriptions() async throws {
        let world = try await World.start()
        world.server.addDevice(user: "alice", id: "phone", caption: "AntennaPod on Pixel", type: "mobile")
        world.server.subscriptionChange(user: "alice", device: "phone", add: ["https://a.example/rss"])
        try await world.library.rememberSyncAccount(
            SyncAccount(server: world.server.baseURL, user: "alice", device: "phone", dialect: .gpodder))
        let report = try await world.sync()
        #expect(report.addedHere == 1)
        #expect(world.server.devices["alice"]?["phone"]?.caption == "AntennaPod on Pixel")
        #expect(world.server.devices["alice"]?["phone"]?.type == "mobile")
        #expect(world.server.requests(to: .device).isEmpty)
        try await world.stop()
    }

    @Test func aPlayedMarkWithoutAKnownLengthIsNotSent() async throws {
        let world = try await World.start()
        var feed = Self.feed(2)
        feed.episodes[1].duration = nil
        try await world.library.saveFeed(feed, feedKey: Self.feedURL)
        try await world.library.recordPlayback(episodeID: try await world.entry(0).id, .played(total: nil))
        try await world.library.recordPlayback(episodeID: try await world.entry(1).id, .played(total: nil))
        let report = try await world.sync()
        #expect(report.actionsSent == 1, "the first takes the feed's length")
        #expect(report.playedWithoutLength == 1)
        let sent = try #require(world.server.storedActions.first?.object)
        #expect(sent["position"] as? Int == 3600 && sent["total"] as? Int == 3600 && sent["started"] as? Int == 0)
        try await world.stop()
    }

    @Test func aPlayedMarkWithoutALengthInTheFeedTakesTheDownloadedFilesLength() async throws {
        let world = try await World.start()
        var feed = Self.feed(2)
        feed.episodes[0].duration = nil
        feed.episodes[1].duration = nil
        try await world.library.saveFeed(feed, feedKey: Self.feedURL)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-length-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("episode.wav")
        try TestAudio.wavData(seconds: 7).write(to: file)
        let downloaded = try await world.entry(0)
        let url = try #require(downloaded.episode.enclosure?.url)
        try await world.library.withDownloadStore { store in
            var download = try #require(
                try store.insert(
                    Download(id: 0, enclosureURL: url, state: .downloading, file: file.path, podcastTitle: "Show", episodeTitle: "E0")))
            download.state = .completed
            try store.update(download)
        }
        try await world.library.recordPlayback(episodeID: downloaded.id, .played(total: nil))
        try await world.library.recordPlayback(episodeID: try await world.entry(1).id, .played(total: nil))
        let report = try await world.sync()
        #expect(report.playedWithoutLength == 1, "the episode without a file has no length")
        let played = world.server.storedActions.map(\.object).filter { $0["action"] as? String == "play" }
        #expect(played.count == 1)
        #expect(played.first?["episode"] as? String == url)
        #expect(played.first?["position"] as? Int == 7 && played.first?["total"] as? Int == 7)
        try await world.stop()
    }

    @Test func listsDevices() async throws {
        let world = try await World.start()
        world.server.addDevice(user: "alice", id: "phone", caption: "AntennaPod on Pixel", type: "mobile")
        world.server.subscriptionChange(user: "alice", device: "phone", add: ["https://a.example/rss"])
        let account = try #require(try await world.library.syncAccount())
        let devices = try await Synchronizer(
            library: world.library, session: world.session, credentials: SyncCredentials(user: "alice", password: world.password)
        ).devices(account).devices
        #expect(devices == [SyncDevice(id: "phone", caption: "AntennaPod on Pixel", type: "mobile", subscriptions: 1)])
        try await world.stop()
    }
}
