import Foundation
import GRDB
import Testing

@testable import SinglecastKit

@Suite struct LibraryExtrasTests {
    private let transcripts = [
        Transcript(url: "https://example.com/1.vtt", type: "text/vtt", language: "en", rel: "captions"),
        Transcript(url: "https://example.com/1.srt", type: "application/x-subrip", language: "de"),
    ]

    private func save(_ library: Library) async throws -> SavedFeed {
        let episode = Episode(
            title: "One", guid: "g1", enclosure: Enclosure(url: "https://example.com/1.mp3"), transcripts: transcripts,
            chaptersURL: "https://example.com/1.json")
        return try await library.saveFeed(Feed(podcast: Podcast(title: "Show"), episodes: [episode]), feedKey: "https://example.com/feed")
    }

    @Test func everyTranscriptIsStoredAndARowFromBeforeTheColumnKeepsItsOne() async throws {
        let library = try Library.inMemory()
        let saved = try await save(library)
        #expect(try await library.episodes(podcastID: saved.podcast.id).first?.episode.transcripts == transcripts)

        // A row saved before `v4-extras` has only the first transcript's URL.
        try await library.writer.write { db in try db.execute(sql: "UPDATE episode SET transcripts = NULL") }
        #expect(
            try await library.episodes(podcastID: saved.podcast.id).first?.episode.transcripts
                == [Transcript(url: "https://example.com/1.vtt")])
    }

    @Test func aSubscriptionAsksForExtrasOnlyOnceSetAndWhileSubscribed() async throws {
        let library = try Library.inMemory()
        let podcastID = try await save(library).podcast.id
        let url = "https://example.com/1.mp3"
        try await library.subscribe(podcastID: podcastID)
        #expect(try await library.subscriptions().first?.podcast.subscription?.extras == false)
        #expect(try await !library.subscriptionWantsExtras(enclosureURL: url))

        try await library.setExtras(podcastID: podcastID, enabled: true)
        #expect(try await library.subscriptions().first?.podcast.subscription?.extras == true)
        #expect(try await library.subscriptionWantsExtras(enclosureURL: url))
        #expect(try await !library.subscriptionWantsExtras(enclosureURL: "https://example.com/other.mp3"))
        #expect(try await library.episodeOfferingExtras(enclosureURL: url)?.chaptersURL == "https://example.com/1.json")

        try await library.unsubscribe(podcastID: podcastID)
        #expect(try await !library.subscriptionWantsExtras(enclosureURL: url))
    }
}
