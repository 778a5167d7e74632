import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

/// The listening coordinator over a scripted player and a clock the test moves: what it saves,
/// when, and how it reports the end.
@Suite struct EpisodeListeningTests {
    @Test func savesEveryFourSecondsOfWallTimeAndAtOnceOnAPause() async throws {
        let fixture = try await Fixture.make()
        let listening = try await fixture.start()
        var events = listening.events.makeAsyncIterator()
        fixture.player.send(.started(position: 0, duration: 120))
        #expect(await events.next() == .started(position: 0, duration: 120, speed: 1))
        await fixture.clock.advance(by: .seconds(1))
        fixture.player.send(.position(1))
        fixture.player.send(.resumed(1))
        #expect(await events.next() == .resumed(1), "the position after 1 s is neither saved nor reported")
        #expect(try await fixture.saved() == Playback())
        await fixture.clock.advance(by: .seconds(3))
        fixture.player.send(.position(4))
        #expect(await events.next() == .position(4))
        #expect(try await fixture.saved() == Playback(position: 4))
        await fixture.clock.advance(by: .seconds(1))
        fixture.player.send(.paused(5))
        #expect(await events.next() == .paused(5))
        #expect(await events.next() == .position(5))
        #expect(try await fixture.saved() == Playback(position: 5))
        fixture.player.send(.ended(PlaybackEnd(position: 5.5, duration: 120, reason: .quit)))
        #expect(await events.next() == .ended(ListeningEnd(position: 5.5, duration: 120, played: false, reason: .quit)))
        #expect(try await fixture.saved() == Playback(position: 5.5))
    }

    @Test func resumesFiveSecondsBeforeTheSavedPosition() async throws {
        let fixture = try await Fixture.make()
        try await fixture.library.recordPlayback(episodeID: fixture.entry.id, .position(60, started: 0, total: 120))
        _ = try await fixture.start()
        #expect(fixture.player.requests.first?.start == 55)
    }

    @Test func stoppingWithinTheEndMarksPlayedAndAStopIsASignal() async throws {
        let fixture = try await Fixture.make()
        let listening = try await fixture.start()
        var events = listening.events.makeAsyncIterator()
        fixture.player.send(.started(position: 0, duration: 120))
        _ = await events.next()
        fixture.player.send(.seeked(100))
        #expect(await events.next() == .position(100))
        let stopping = Task { await listening.stop() }
        fixture.player.send(.ended(PlaybackEnd(position: 100, duration: 120, reason: .stopped)))
        await stopping.value
        #expect(await events.next() == .ended(ListeningEnd(position: 100, duration: 120, played: true, reason: .stopped)))
        let saved = try await fixture.saved()
        #expect(saved.isPlayed && saved.position == nil)
    }

    @Test func aReplayStaysPlayedUntilStoppedBeforeTheEnd() async throws {
        let fixture = try await Fixture.make()
        try await fixture.library.recordPlayback(episodeID: fixture.entry.id, .played(total: 120))
        let listening = try await fixture.start()
        var events = listening.events.makeAsyncIterator()
        #expect(fixture.player.requests.first?.start == 0)
        fixture.player.send(.started(position: 0, duration: 120))
        _ = await events.next()
        fixture.player.send(.paused(30))
        _ = await events.next()
        _ = await events.next()
        #expect(try await fixture.saved().isPlayed)
        fixture.player.send(.ended(PlaybackEnd(position: 30, duration: 120, reason: .playerDied)))
        #expect(await events.next() == .ended(ListeningEnd(position: 30, duration: 120, played: false, reason: .playerDied)))
        #expect(try await fixture.saved() == Playback(position: 30))
    }

    @Test func aFailureLeavesTheSavedPositionAlone() async throws {
        let fixture = try await Fixture.make()
        try await fixture.library.recordPlayback(episodeID: fixture.entry.id, .position(60, started: 0, total: 120))
        let listening = try await fixture.start()
        var events = listening.events.makeAsyncIterator()
        let failure = PlayerFailure(kind: .httpStatus(404))
        fixture.player.send(.ended(PlaybackEnd(position: nil, duration: nil, reason: .failed(failure))))
        #expect(await events.next() == .ended(ListeningEnd(position: nil, duration: nil, played: false, reason: .failed(failure))))
        #expect(try await fixture.saved() == Playback(position: 60))
    }

    @Test func aSpeedAskedForIsRememberedAndSavedChaptersAreHandedOver() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.start(options: EpisodeListening.Options(speed: 1.5))
        #expect(fixture.player.requests.first?.speed == 1.5)
        #expect(try await fixture.library.podcast(id: fixture.podcast.id)?.playbackSpeed == 1.5)
        let document = try Data(contentsOf: Fixtures.url("extras/chapters.json"))
        #expect(
            ChaptersDocument.chapters(document) == [
                PlaybackChapter(title: "Welcome", start: 0), PlaybackChapter(title: "Café & Résumé", start: 95.5),
            ])
        #expect(ChaptersDocument.chapters(Data("not json".utf8)).isEmpty)
    }

    @Test func anEpisodeWithoutAudioIsRefused() async throws {
        let fixture = try await Fixture.make()
        var entry = fixture.entry
        entry.episode.enclosure = nil
        await #expect(throws: ListeningError.noAudio(number: 1, title: "Talk")) {
            try await EpisodeListening.start(entry, of: fixture.podcast, library: fixture.library, player: fixture.player)
        }
    }
}

/// A library with one episode, a scripted player and a clock moved by hand.
private struct Fixture {
    let library: Library
    let podcast: StoredPodcast
    let entry: EpisodeEntry
    let player = ScriptedPlayer()
    let clock = TestClock()

    static func make() async throws -> Fixture {
        let library = try Library.inMemory()
        let feed = Feed(
            podcast: Podcast(title: "Show"),
            episodes: [Episode(title: "Talk", guid: "t", duration: 120, enclosure: Enclosure(url: "http://127.0.0.1:9/talk.mp3"))])
        let podcast = try await library.saveFeed(feed, feedKey: "http://127.0.0.1:9/feed.xml").podcast
        let entry = try #require(try await library.episodes(podcastID: podcast.id).first)
        return Fixture(library: library, podcast: podcast, entry: entry)
    }

    func start(options: EpisodeListening.Options = EpisodeListening.Options()) async throws -> EpisodeListening {
        let entry = try #require(try await library.episodes(podcastID: podcast.id).first)
        let podcast = try #require(try await library.podcast(id: podcast.id))
        return try await EpisodeListening.start(entry, of: podcast, library: library, player: player, options: options, clock: clock)
    }

    func saved() async throws -> Playback {
        try #require(try await library.episodes(podcastID: podcast.id).first).playback
    }
}

/// A player whose events the test sends.
private final class ScriptedPlayer: Player, PlaybackSession {
    let events: AsyncStream<PlayerEvent>
    private let continuation: AsyncStream<PlayerEvent>.Continuation
    private let asked = Mutex<[PlaybackRequest]>([])

    init() {
        (events, continuation) = AsyncStream.makeStream(of: PlayerEvent.self)
    }

    var requests: [PlaybackRequest] { asked.withLock { $0 } }

    func send(_ event: PlayerEvent) {
        continuation.yield(event)
        if case .ended = event { continuation.finish() }
    }

    func play(_ request: PlaybackRequest) async throws -> any PlaybackSession {
        asked.withLock { $0.append(request) }
        return self
    }

    func seek(to seconds: Double) async throws {}
    func setPaused(_ paused: Bool) async throws {}
    func setSpeed(_ speed: Double) async throws {}
    func currentPosition() async -> Double? { nil }
    func stop() async {}
}
