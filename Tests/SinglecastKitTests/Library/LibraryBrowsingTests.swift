import Foundation
import Testing

@testable import SinglecastKit

@Suite struct LibraryBrowsingTests {
    private func feed(_ count: Int) -> Feed {
        Feed(
            podcast: Podcast(title: "Show"),
            episodes: (1...count).map { index in
                Episode(
                    title: index % 10 == 0 ? "Ten 100%_\(index)" : "Episode \(index)", guid: "g\(index)",
                    description: "<p>Notes \(index)</p>",
                    enclosure: Enclosure(url: "https://cdn.example.com/\(index).mp3"))
            })
    }

    @Test func aWindowHoldsItsEpisodesInFeedOrderAndTheListingsLength() async throws {
        let library = try Library.inMemory()
        let podcast = try await library.saveFeed(feed(50), feedKey: "k").podcast
        let window = try await library.episodeWindow(podcastID: podcast.id, start: 10, limit: 5)
        #expect(window.total == 50)
        #expect(window.entries.map(\.number) == [11, 12, 13, 14, 15])
        #expect(window.entries.map(\.episode.title) == ["Episode 11", "Episode 12", "Episode 13", "Episode 14", "Episode 15"])
        let end = try await library.episodeWindow(podcastID: podcast.id, start: 48, limit: 5)
        #expect(end.entries.map(\.number) == [49, 50])
    }

    @Test func aFilterKeepsTitlesHoldingItsTextWildcardsTakenLiterally() async throws {
        let library = try Library.inMemory()
        let podcast = try await library.saveFeed(feed(50), feedKey: "k").podcast
        let tens = try await library.episodeWindow(podcastID: podcast.id, titleContaining: "ten 100%_", start: 1, limit: 10)
        #expect(tens.total == 5)
        #expect(tens.entries.map(\.number) == [20, 30, 40, 50])
        #expect(try await library.episodeWindow(podcastID: podcast.id, titleContaining: "%", start: 0, limit: 100).total == 5)
        #expect(try await library.episodeWindow(podcastID: podcast.id, titleContaining: "nothing", start: 0, limit: 10).total == 0)
    }

    @Test func aWindowCarriesTheDownloadsOfItsEpisodes() async throws {
        let library = try Library.inMemory()
        let podcast = try await library.saveFeed(feed(5), feedKey: "k").podcast
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("browsing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: folder))
        let entries = try await library.episodes(podcastID: podcast.id)
        _ = try await buffer.claim(DownloadRequest(podcastTitle: "Show", episode: entries[3].episode, enclosure: entries[3].episode.enclosure!))
        let window = try await library.episodeWindow(podcastID: podcast.id, start: 2, limit: 3)
        #expect(window.entries.map { $0.download != nil } == [false, true, false])
    }

    @Test func theSubscriptionsAndAnEpisodesNotesAreRead() async throws {
        let library = try Library.inMemory()
        let podcast = try await library.saveFeed(feed(3), feedKey: "k").podcast
        #expect(try await library.subscribedPodcasts().isEmpty)
        try await library.subscribe(podcastID: podcast.id)
        #expect(try await library.subscribedPodcasts().map(\.podcast.title) == ["Show"])
        let first = try await library.episodes(podcastID: podcast.id)[0]
        #expect(try await library.episodeDescription(id: first.id) == "<p>Notes 1</p>")
        #expect(try await library.episodeDescription(id: 9999) == nil)
    }
}
