import Foundation
import Testing

@testable import SinglecastKit

@Suite struct SubscriptionRemovalTests {
    /// Four episodes: two downloaded into the podcast's folder, one whose file its owner moved
    /// out of it, and one being downloaded; and a file Singlecast did not write.
    @Test func unsubscribingCancelsDownloadsAndDeletesOnlyTheFilesItWroteInThePodcastsFolder() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-unsubscribe-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let library = try await Library.open(directory: home)
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: home))
        let titles = ["One", "Two", "Moved", "Running"]
        let feed = Feed(
            podcast: Podcast(title: "Show"),
            episodes: titles.map { Episode(title: $0, guid: $0, enclosure: Enclosure(url: "http://127.0.0.1:9/\($0).mp3")) })
        let stored = try await library.saveFeed(feed, feedKey: "http://127.0.0.1:9/feed.xml").podcast
        try await library.subscribe(podcastID: stored.id)
        var downloads: [String: Download] = [:]
        for entry in try await library.episodes(podcastID: stored.id) {
            let request = DownloadRequest(podcastTitle: "Show", episode: entry.episode, enclosure: entry.episode.enclosure!)
            guard case .claimed(let claimed) = try await buffer.claim(request) else { throw Unexpected() }
            downloads[entry.episode.title] = claimed
        }
        let folder = buffer.episodes.folder(forPodcast: "Show")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for title in ["One", "Two"] {
            FileManager.default.createFile(atPath: downloads[title]!.file, contents: Data(repeating: 1, count: 10))
            _ = try await buffer.recordCompleted(id: downloads[title]!.id, file: downloads[title]!.file, size: 10)
        }
        let moved = home.appendingPathComponent("Moved.mp3").path
        FileManager.default.createFile(atPath: moved, contents: Data(repeating: 1, count: 10))
        _ = try await buffer.recordCompleted(id: downloads["Moved"]!.id, file: moved, size: 10)
        let foreign = folder.appendingPathComponent("notes.txt").path
        FileManager.default.createFile(atPath: foreign, contents: Data("mine".utf8))

        let removal = SubscriptionRemoval(buffer: buffer, daemon: DaemonClient(libraryDirectory: home))
        let deleted = try await removal.unsubscribe(stored, deleteFiles: true)

        #expect(Set(deleted.map(\.episodeTitle)) == ["One", "Two"])
        #expect(!FileManager.default.fileExists(atPath: downloads["One"]!.file))
        #expect(!FileManager.default.fileExists(atPath: downloads["Two"]!.file))
        #expect(FileManager.default.fileExists(atPath: moved), "outside the podcast's folder")
        #expect(FileManager.default.fileExists(atPath: foreign), "not written by Singlecast")
        #expect(try await library.download(id: downloads["Running"]!.id)?.state == .cancelled)
        #expect(try await library.subscriptions().isEmpty)
        // The podcast stays in the library, as one listed with `episodes` does.
        #expect(try await library.episodes(podcastID: stored.id).count == 4)
    }

    @Test func unsubscribingWithoutDeletingKeepsEveryFile() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-unsubscribe-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let library = try await Library.open(directory: home)
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: home))
        let feed = Feed(
            podcast: Podcast(title: "Show"), episodes: [Episode(title: "One", guid: "One", enclosure: Enclosure(url: "http://127.0.0.1:9/One.mp3"))])
        let stored = try await library.saveFeed(feed, feedKey: "http://127.0.0.1:9/feed.xml").podcast
        try await library.subscribe(podcastID: stored.id)
        let entry = try #require(try await library.episodes(podcastID: stored.id).first)
        let request = DownloadRequest(podcastTitle: "Show", episode: entry.episode, enclosure: entry.episode.enclosure!)
        guard case .claimed(let claimed) = try await buffer.claim(request) else { throw Unexpected() }
        try FileManager.default.createDirectory(at: buffer.episodes.folder(forPodcast: "Show"), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: claimed.file, contents: Data(repeating: 1, count: 10))
        _ = try await buffer.recordCompleted(id: claimed.id, file: claimed.file, size: 10)

        let removal = SubscriptionRemoval(buffer: buffer, daemon: DaemonClient(libraryDirectory: home))
        #expect(try await removal.unsubscribe(stored, deleteFiles: false).isEmpty)
        #expect(FileManager.default.fileExists(atPath: claimed.file))
        #expect(try await library.download(id: claimed.id)?.state == .completed)
    }

    private struct Unexpected: Error {}
}
