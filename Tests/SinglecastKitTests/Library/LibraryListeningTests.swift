import Foundation
import Testing

@testable import SinglecastKit

@Suite struct LibraryListeningTests {
    private static let feedKey = "https://example.com/feed.xml"

    private func show(_ library: Library, count: Int = 3) async throws -> (StoredPodcast, [EpisodeEntry]) {
        let feed = Feed(
            podcast: Podcast(title: "Show"),
            episodes: (0..<count).map { index in
                Episode(
                    title: "E\(index)", guid: "g\(index)", published: Date(timeIntervalSince1970: Double(1_700_000_000 - index)),
                    duration: 3600, enclosure: Enclosure(url: "https://cdn.example.com/\(index).mp3"))
            })
        var options = Library.SaveOptions()
        options.newEpisodes = .added
        let podcast = try await library.saveFeed(feed, feedKey: Self.feedKey, options: options).podcast
        return (podcast, try await library.episodes(podcastID: podcast.id))
    }

    @Test func aPositionIsListedAndRecordedAsAPlayAction() async throws {
        let library = try Library.inMemory()
        let (podcast, entries) = try await show(library)
        let at = Date(timeIntervalSince1970: 1_750_000_000)
        let playback = try await library.recordPlayback(
            episodeID: entries[1].id, .position(1390.5, started: 600, total: 3723), at: at)
        #expect(playback == Playback(position: 1390.5))
        let listed = try await library.episodes(podcastID: podcast.id)
        #expect(listed.map(\.playback) == [Playback(), Playback(position: 1390.5), Playback()])
        #expect(
            try await library.episodeActions() == [
                EpisodeAction(
                    podcastURL: Self.feedKey, episodeURL: "https://cdn.example.com/1.mp3", guid: "g1", kind: .play,
                    timestamp: at, started: 600, position: 1390, total: 3723)
            ])
        let last = try #require(try await library.lastHeardEpisode())
        #expect(last.podcast.id == podcast.id)
        #expect(last.entry.number == 2)
    }

    @Test func playedClearsThePositionLeavesNewAndRecordsAPlayToTheEnd() async throws {
        let library = try Library.inMemory()
        let (podcast, entries) = try await show(library)
        try await library.subscribe(podcastID: podcast.id)
        let newBefore = try await library.newEpisodes().map(\.entry.episode.title)
        try await library.recordPlayback(
            episodeID: entries[0].id, .position(100, started: 0, total: 3600), at: Date(timeIntervalSince1970: 1_750_000_000))
        let at = Date(timeIntervalSince1970: 1_750_000_100)
        let playback = try await library.recordPlayback(episodeID: entries[0].id, .played(total: 3600), at: at)
        #expect(playback == Playback(position: nil, playedAt: at))
        #expect(newBefore.contains("E0"))
        #expect(try await library.newEpisodes().map(\.entry.episode.title) == newBefore.filter { $0 != "E0" })
        #expect(try await library.lastHeardEpisode() == nil, "a played episode is not continued")
        let action = try #require(try await library.episodeActions().last)
        #expect(action.kind == .play)
        #expect(action.position == 3600 && action.total == 3600 && action.started == 0)
        #expect(try await library.subscriptions().first?.unplayedCount == 2)
    }

    @Test func unplayedLeavesNoPositionAndRecordsNew() async throws {
        let library = try Library.inMemory()
        let (podcast, entries) = try await show(library)
        try await library.recordPlayback(episodeID: entries[2].id, .played(total: nil))
        try await library.recordPlayback(episodeID: entries[2].id, .unplayed)
        let listed = try await library.episodes(podcastID: podcast.id)
        #expect(listed[2].playback == Playback())
        #expect(try await library.episodeActions().map(\.kind) == [.play, .new])
    }

    @Test func aReplayedEpisodeStaysPlayedUntilStoppedBeforeItsEnd() async throws {
        let library = try Library.inMemory()
        let (_, entries) = try await show(library)
        let id = entries[0].id
        try await library.recordPlayback(episodeID: id, .played(total: 3600))
        let during = try await library.recordPlayback(episodeID: id, .position(40, started: 0, total: 3600, keepsPlayed: true))
        #expect(during.isPlayed && during.position == 40)
        let stopped = try await library.recordPlayback(episodeID: id, .position(50, started: 0, total: 3600))
        #expect(stopped == Playback(position: 50))
    }

    @Test func downloadsAndDeletionsAreRecordedAsActions() async throws {
        let library = try Library.inMemory()
        let (_, entries) = try await show(library)
        let url = try #require(entries[0].episode.enclosure?.url)
        try await library.withDownloadStore { store in
            var download = try #require(
                try store.insert(
                    Download(id: 0, enclosureURL: url, state: .downloading, file: "/tmp/x.mp3", podcastTitle: "Show", episodeTitle: "E0")))
            download.state = .completed
            try store.update(download)
            try store.update(download)  // completed again: no second action
            try store.markEpisodesDeleted(enclosureURLs: [url])
        }
        #expect(try await library.episodeActions().map(\.kind) == [.download, .delete])
        #expect(try await library.episodeActions().allSatisfy { $0.episodeURL == url && $0.podcastURL == Self.feedKey })
    }

    @Test func rememberedSpeedIsThePodcasts() async throws {
        let library = try Library.inMemory()
        let (podcast, _) = try await show(library)
        #expect(podcast.playbackSpeed == nil)
        try await library.setPlaybackSpeed(1.5, podcastID: podcast.id)
        #expect(try await library.podcast(id: podcast.id)?.playbackSpeed == 1.5)
    }
}
