import Foundation
import Testing

@testable import SinglecastKit

/// The queue's rule once listening ends (``Library/advanceQueue(after:_:)`` by ``ListeningRules``).
@Suite struct QueueListeningTests {
    @Test func anEpisodeHeardToItsEndLeavesTheQueueAndTheNextFollowsOnlyAfterTheAudioEnded() async throws {
        let library = try Library.inMemory()
        let episodes = try await LibraryQueueTests.show(library)
        try await library.enqueue(episodeIDs: [episodes[0].id, episodes[1].id, episodes[2].id])
        let quit = ListeningEnd(position: 100, duration: 600, played: false, reason: .quit)
        #expect(try await library.advanceQueue(after: episodes[0].id, quit) == nil)
        #expect(try await LibraryQueueTests.queuedTitles(library) == ["E0", "E1", "E2"], "stopped: it stays")
        let failed = ListeningEnd(position: nil, duration: nil, played: true, reason: .failed(PlayerFailure(kind: .notAudio)))
        #expect(try await library.advanceQueue(after: episodes[0].id, failed) == nil)
        #expect(try await LibraryQueueTests.queuedTitles(library) == ["E0", "E1", "E2"], "nothing heard: it stays")

        let finished = ListeningEnd(position: 600, duration: 600, played: true, reason: .end)
        let next = try await library.advanceQueue(after: episodes[0].id, finished)
        #expect(next?.entry.id == episodes[1].id && next?.number == 1)
        #expect(try await LibraryQueueTests.queuedTitles(library) == ["E1", "E2"])
        // Quit within the finish rule's reach: played, it leaves, and nothing starts.
        let quitAtTheEnd = ListeningEnd(position: 590, duration: 600, played: true, reason: .quit)
        #expect(try await library.advanceQueue(after: episodes[1].id, quitAtTheEnd) == nil)
        #expect(try await LibraryQueueTests.queuedTitles(library) == ["E2"])
        #expect(try await library.advanceQueue(after: episodes[2].id, finished) == nil, "the last one")
        #expect(try await library.queue().isEmpty)
        #expect(try await library.advanceQueue(after: episodes[3].id, finished) == nil, "never queued")
    }

    @Test func theListenersNextGoesToTheFollowingEpisodeOrTheQueuesFirst() async throws {
        let library = try Library.inMemory()
        let episodes = try await LibraryQueueTests.show(library)
        try await library.enqueue(episodeIDs: [episodes[0].id, episodes[1].id])
        let skipped = ListeningEnd(position: 100, duration: 600, played: false, reason: .next)
        #expect(try await library.advanceQueue(after: episodes[0].id, skipped)?.entry.id == episodes[1].id)
        #expect(try await LibraryQueueTests.queuedTitles(library) == ["E0", "E1"], "skipped before its end: it stays")
        #expect(try await library.advanceQueue(after: episodes[1].id, skipped) == nil, "the last one")
        // An episode played from outside the queue: its Next plays the queue's first, as the UI's n.
        #expect(try await library.advanceQueue(after: episodes[3].id, skipped)?.entry.id == episodes[0].id)
        let skippedAtTheEnd = ListeningEnd(position: 590, duration: 600, played: true, reason: .next)
        #expect(try await library.advanceQueue(after: episodes[0].id, skippedAtTheEnd)?.entry.id == episodes[1].id)
        #expect(try await LibraryQueueTests.queuedTitles(library) == ["E1"], "heard to its end: it leaves")
    }
}
