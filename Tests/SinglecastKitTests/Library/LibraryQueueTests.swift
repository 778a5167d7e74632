import Foundation
import GRDB
import Testing

@testable import SinglecastKit

/// The queue: a list of episodes kept in the library, shared by the command line and the UI.
@Suite struct LibraryQueueTests {
    private static let feedKey = "https://example.com/feed.xml"

    private static func feed(count: Int) -> Feed {
        Feed(
            podcast: Podcast(title: "Show"),
            episodes: (0..<count).map { index in
                Episode(
                    title: "E\(index)", guid: "g\(index)", published: Date(timeIntervalSince1970: Double(1_700_000_000 - index)),
                    duration: 600 + index, enclosure: Enclosure(url: "https://cdn.example.com/\(index).mp3"))
            })
    }

    /// A library with one podcast of `count` episodes; their entries in feed order.
    static func show(_ library: Library, count: Int = 4) async throws -> [EpisodeEntry] {
        let podcast = try await library.saveFeed(feed(count: count), feedKey: feedKey).podcast
        return try await library.episodes(podcastID: podcast.id)
    }

    /// The titles of the queued episodes, in order.
    static func queuedTitles(_ library: Library) async throws -> [String] {
        try await library.queue().map(\.entry.episode.title)
    }


    @Test func addingPutsEpisodesAtTheEndOnceAndTheListingHasWhatATableNeeds() async throws {
        let library = try Library.inMemory()
        let episodes = try await Self.show(library)
        #expect(try await library.queue().isEmpty)
        #expect(try await library.enqueue(episodeIDs: [episodes[2].id, episodes[0].id]) == [.added(number: 1), .added(number: 2)])
        #expect(
            try await library.enqueue(episodeIDs: [episodes[0].id, episodes[3].id])
                == [.alreadyQueued(number: 2), .added(number: 3)])
        try await library.recordPlayback(episodeID: episodes[0].id, .position(42, started: 0, total: 600))
        let queue = try await library.queue()
        #expect(queue.map(\.number) == [1, 2, 3])
        #expect(queue.map(\.entry.episode.title) == ["E2", "E0", "E3"])
        #expect(queue.allSatisfy { $0.podcast.podcast.title == "Show" })
        #expect(queue[0].entry.number == 3, "the episode's number in its feed")
        #expect(queue[0].entry.episode.duration == 602)
        #expect(queue[0].entry.episode.published == Date(timeIntervalSince1970: 1_699_999_998))
        #expect(queue[1].entry.playback.position == 42)
        #expect(queue.allSatisfy { $0.entry.download == nil })
    }

    @Test func removingMovingAndClearing() async throws {
        let library = try Library.inMemory()
        let episodes = try await Self.show(library)
        try await library.enqueue(episodeIDs: episodes.map(\.id))
        #expect(try await library.dequeue(episodeIDs: [episodes[1].id, episodes[1].id]) == 1)
        #expect(try await Self.queuedTitles(library) == ["E0", "E2", "E3"])
        #expect(try await library.moveInQueue(episodeID: episodes[3].id, to: 1))
        #expect(try await Self.queuedTitles(library) == ["E3", "E0", "E2"])
        #expect(try await library.moveInQueue(episodeID: episodes[3].id, to: 99))
        #expect(try await Self.queuedTitles(library) == ["E0", "E2", "E3"])
        #expect(try await library.moveInQueue(episodeID: episodes[2].id, to: 1))
        #expect(try await Self.queuedTitles(library) == ["E2", "E0", "E3"])
        #expect(try await library.moveInQueue(episodeID: episodes[1].id, to: 1) == false, "not queued")
        // An episode added after a move goes after the last one.
        try await library.enqueue(episodeIDs: [episodes[1].id])
        #expect(try await Self.queuedTitles(library) == ["E2", "E0", "E3", "E1"])
        #expect(try await library.clearQueue() == 4)
        #expect(try await library.queue().isEmpty)
    }

    @Test func theNextEpisodeFollowsTheOneGivenOrIsTheFirst() async throws {
        let library = try Library.inMemory()
        let episodes = try await Self.show(library)
        #expect(try await library.nextInQueue(after: nil) == nil)
        try await library.enqueue(episodeIDs: [episodes[0].id, episodes[1].id])
        #expect(try await library.nextInQueue(after: nil)?.entry.id == episodes[0].id)
        #expect(try await library.nextInQueue(after: episodes[0].id)?.entry.id == episodes[1].id)
        #expect(try await library.nextInQueue(after: episodes[1].id) == nil)
        #expect(try await library.nextInQueue(after: episodes[3].id)?.entry.id == episodes[0].id, "not queued: the first")
    }

    @Test func theEntryAfterAnEpisodeWithTheEpisodeTakenOutOrNot() async throws {
        let library = try Library.inMemory()
        let episodes = try await Self.show(library)
        try await library.enqueue(episodeIDs: [episodes[0].id, episodes[1].id, episodes[2].id])
        let kept = try await library.queueEntry(after: episodes[0].id, removing: false)
        #expect(kept?.entry.id == episodes[1].id && kept?.number == 2)
        #expect(try await Self.queuedTitles(library) == ["E0", "E1", "E2"])
        let next = try await library.queueEntry(after: episodes[0].id, removing: true)
        #expect(next?.entry.id == episodes[1].id && next?.number == 1)
        #expect(try await Self.queuedTitles(library) == ["E1", "E2"])
        #expect(try await library.queueEntry(after: episodes[2].id, removing: true) == nil, "the last")
        #expect(try await library.queueEntry(after: episodes[3].id, removing: true) == nil, "never queued")
        #expect(try await Self.queuedTitles(library) == ["E1"])
    }

    @Test func anEpisodeThatLeavesTheLibraryLeavesTheQueue() async throws {
        let library = try Library.inMemory()
        let episodes = try await Self.show(library)
        try await library.enqueue(episodeIDs: episodes.map(\.id))
        try await library.writer.write { db in
            try db.execute(sql: "DELETE FROM episode WHERE id = ?", arguments: [episodes[1].id])
        }
        #expect(try await Self.queuedTitles(library) == ["E0", "E2", "E3"])
        try await library.writer.write { db in try db.execute(sql: "DELETE FROM podcast") }
        #expect(try await library.queue().isEmpty)
    }

    @Test func aSubscriptionWithQueueNewQueuesTheEpisodesAnUpdateAdds() async throws {
        let library = try Library.inMemory()
        let other = try await library.saveFeed(Self.feed(count: 1), feedKey: "https://example.com/other.xml").podcast
        let episodes = try await Self.show(library, count: 2)
        let podcast = try #require(try await library.podcast(feedKey: Self.feedKey))
        try await library.subscribe(podcastID: podcast.id, queueNew: true)
        try await library.subscribe(podcastID: other.id)
        #expect(try await library.podcast(id: podcast.id)?.subscription?.queuesNew == true)
        #expect(try await library.podcast(id: other.id)?.subscription?.queuesNew == false)
        #expect(try await library.queue().isEmpty, "subscribing queues nothing")
        try await library.enqueue(episodeIDs: [episodes[1].id])

        var update = Library.SaveOptions()
        update.newEpisodes = .added
        var grown = Self.feed(count: 2)
        grown.episodes.insert(Episode(title: "Fresh", guid: "fresh", enclosure: Enclosure(url: "https://cdn.example.com/f.mp3")), at: 0)
        grown.episodes.insert(Episode(title: "Fresher", guid: "fresher"), at: 0)
        try await library.saveFeed(grown, feedKey: Self.feedKey, options: update)
        #expect(try await Self.queuedTitles(library) == ["E1", "Fresher", "Fresh"])
        // The same feed again adds nothing; the other subscription queues nothing.
        try await library.saveFeed(grown, feedKey: Self.feedKey, options: update)
        var otherGrown = Self.feed(count: 1)
        otherGrown.episodes.append(Episode(title: "Elsewhere", guid: "elsewhere"))
        try await library.saveFeed(otherGrown, feedKey: "https://example.com/other.xml", options: update)
        #expect(try await Self.queuedTitles(library) == ["E1", "Fresher", "Fresh"])
        try await library.subscribe(podcastID: podcast.id)
        #expect(try await library.podcast(id: podcast.id)?.subscription?.queuesNew == true, "unchanged when not given")
        try await library.subscribe(podcastID: podcast.id, queueNew: false)
        #expect(try await library.podcast(id: podcast.id)?.subscription?.queuesNew == false)
    }
}
