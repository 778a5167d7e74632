import Foundation
import Testing

@testable import SinglecastKit

@Suite struct RetentionTests {
    /// A subscription keeping 1 episode, with four episodes whose downloads are in every
    /// situation retention must respect.
    @Test func deletesOnlyOlderCompleteFilesItWroteInThePodcastsFolder() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-keep-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let library = try await Library.open(directory: home)
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: home))
        let titles = ["Newest", "Older", "Oldest", "Running"]
        let feed = Feed(
            podcast: Podcast(title: "Show"),
            episodes: titles.enumerated().map { index, title in
                Episode(
                    title: title, guid: title, published: Date(timeIntervalSince1970: Double(2_000_000 - index * 1000)),
                    enclosure: Enclosure(url: "http://127.0.0.1:9/\(title).mp3", type: "audio/mpeg"))
            })
        let stored = try await library.saveFeed(feed, feedKey: "http://127.0.0.1:9/feed.xml")
        try await library.subscribe(podcastID: stored.podcast.id, keep: .mostRecent(1))

        var downloads: [String: Download] = [:]
        for entry in try await library.episodes(podcastID: stored.podcast.id) {
            let request = DownloadRequest(podcastTitle: "Show", episode: entry.episode, enclosure: entry.episode.enclosure!)
            guard case .claimed(let claimed) = try await buffer.claim(request) else { throw Unexpected() }
            downloads[entry.episode.title] = claimed
        }
        let folder = buffer.episodes.folder(forPodcast: "Show")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // "Oldest" was moved out of the podcast's folder by its owner; retention never follows it.
        let outside = home.appendingPathComponent("Oldest.mp3").path
        for title in ["Newest", "Older"] {
            let file = downloads[title]!.file
            FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 10))
            _ = try await buffer.recordCompleted(id: downloads[title]!.id, file: file, size: 10)
        }
        FileManager.default.createFile(atPath: outside, contents: Data(repeating: 1, count: 10))
        _ = try await buffer.recordCompleted(id: downloads["Oldest"]!.id, file: outside, size: 10)
        // "Running" is being downloaded: only its part exists.
        let runningPart = FileTransfer.partURL(for: URL(fileURLWithPath: downloads["Running"]!.file)).path
        FileManager.default.createFile(atPath: runningPart, contents: Data(repeating: 1, count: 5))
        // A file Singlecast did not write.
        let foreign = folder.appendingPathComponent("notes.txt").path
        FileManager.default.createFile(atPath: foreign, contents: Data("mine".utf8))

        let newest = try #require(try await library.download(id: downloads["Newest"]!.id))
        let removed = try await buffer.applyRetention(after: newest)

        #expect(removed.map(\.episodeTitle) == ["Older"])
        #expect(FileManager.default.fileExists(atPath: downloads["Newest"]!.file))
        #expect(!FileManager.default.fileExists(atPath: downloads["Older"]!.file))
        #expect(FileManager.default.fileExists(atPath: outside), "outside the podcast's folder")
        #expect(FileManager.default.fileExists(atPath: runningPart), "being downloaded")
        #expect(FileManager.default.fileExists(atPath: foreign), "not written by Singlecast")
        #expect(try await library.download(id: downloads["Older"]!.id)?.state == .notStarted)
        let entries = try await library.episodes(podcastID: stored.podcast.id)
        #expect(entries.filter(\.isDeleted).map(\.episode.title) == ["Older"])
    }

    @Test func aPodcastWithoutAPolicyKeepsEverything() async throws {
        let library = try Library.inMemory()
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: URL(fileURLWithPath: "/nonexistent")))
        let download = Download(id: 1, enclosureURL: "http://127.0.0.1:9/a.mp3", state: .completed, file: "/nonexistent/a.mp3",
            podcastTitle: "Show", episodeTitle: "A")
        #expect(try await buffer.applyRetention(after: download).isEmpty)
    }

    private struct Unexpected: Error {}
}
