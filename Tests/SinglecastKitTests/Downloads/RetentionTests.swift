import Foundation
import Testing

@testable import SinglecastKit

@Suite struct RetentionTests {
    /// A subscription keeping 1 episode, with four episodes whose downloads are in every
    /// situation retention must respect.
    @Test func deletesOnlyOlderCompleteFilesItWroteInThePodcastsFolder() async throws {
        let show = try await ClaimedShow.make(titles: ["Newest", "Older", "Oldest", "Running"], keep: .mostRecent(1))
        defer { show.remove() }
        let (library, buffer, downloads) = (show.library, show.buffer, show.downloads)
        try await show.complete("Newest")
        try await show.complete("Older")
        // "Oldest" was moved out of the podcast's folder by its owner; retention never follows it.
        let outside = show.home.appendingPathComponent("Oldest.mp3").path
        try await show.complete("Oldest", at: outside)
        // "Running" is being downloaded: only its part exists.
        let runningPart = EpisodesFolder.partialFile(for: URL(fileURLWithPath: downloads["Running"]!.file)).path
        FileManager.default.createFile(atPath: runningPart, contents: Data(repeating: 1, count: 5))
        // A file Singlecast did not write.
        let foreign = show.folder.appendingPathComponent("notes.txt").path
        FileManager.default.createFile(atPath: foreign, contents: Data("mine".utf8))

        let newest = try #require(try await library.download(id: downloads["Newest"]!.id))
        let removed = try await buffer.applyRetention(after: newest)

        #expect(removed.map(\.episodeTitle) == ["Older"])
        #expect(FileManager.default.fileExists(atPath: downloads["Newest"]!.file))
        #expect(!FileManager.default.fileExists(atPath: downloads["Older"]!.file))
        #expect(FileManager.default.fileExists(atPath: outside), "outside the podcast's folder")
        #expect(FileManager.default.fileExists(atPath: runningPart), "being downloaded")
        #expect(FileManager.default.fileExists(atPath: foreign), "not written by Singlecast")
        #expect(try await library.download(id: downloads["Older"]!.id)?.state == .deleted)
        let entries = try await library.episodes(podcastID: show.podcast.id)
        #expect(entries.filter(\.isDeleted).map(\.episode.title) == ["Older"])
    }

    @Test func aPodcastWithoutAPolicyKeepsEverything() async throws {
        let library = try Library.inMemory()
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: URL(fileURLWithPath: "/nonexistent")))
        let download = Download(id: 1, enclosureURL: "http://127.0.0.1:9/a.mp3", state: .completed, file: "/nonexistent/a.mp3",
            podcastTitle: "Show", episodeTitle: "A")
        #expect(try await buffer.applyRetention(after: download).isEmpty)
    }

    /// Keeping 2 of three downloaded episodes: the played one goes first, though it is the newest,
    /// and the half-heard one stays.
    @Test func playedEpisodesGoBeforeUnplayedAndHalfHeardOnes() async throws {
        let show = try await ClaimedShow.make(titles: ["Newest", "Older", "Oldest"], keep: .mostRecent(2))
        defer { show.remove() }
        let (library, buffer, downloads) = (show.library, show.buffer, show.downloads)
        for title in ["Newest", "Older", "Oldest"] { try await show.complete(title) }
        let entries = try await library.episodes(podcastID: show.podcast.id)
        let byTitle = Dictionary(uniqueKeysWithValues: entries.map { ($0.episode.title, $0.id) })
        try await library.recordPlayback(episodeID: byTitle["Newest"]!, .played(total: 60))
        try await library.recordPlayback(episodeID: byTitle["Oldest"]!, .position(20, started: 0, total: 60))

        let oldest = try #require(try await library.download(id: downloads["Oldest"]!.id))
        let removed = try await buffer.applyRetention(after: oldest)

        #expect(removed.map(\.episodeTitle) == ["Newest"])
        #expect(!FileManager.default.fileExists(atPath: downloads["Newest"]!.file))
        #expect(FileManager.default.fileExists(atPath: downloads["Older"]!.file))
        #expect(FileManager.default.fileExists(atPath: downloads["Oldest"]!.file))
    }

    /// Keeping 2 of three: a file asked for by hand and not played stays, however old; the played
    /// one goes, then the oldest of those an update fetched.
    @Test func aFileAskedForStaysUntilItIsPlayed() async throws {
        let show = try await ClaimedShow.make(
            titles: ["Newest", "Middle", "Asked"], keep: .mostRecent(2), fetchedByUpdate: ["Newest", "Middle"])
        defer { show.remove() }
        let (library, buffer, downloads) = (show.library, show.buffer, show.downloads)
        for title in ["Newest", "Middle", "Asked"] { try await show.complete(title) }

        let asked = try #require(try await library.download(id: downloads["Asked"]!.id))
        #expect(try await buffer.filesRetentionWouldDelete(podcastID: show.podcast.id, keep: .mostRecent(2)).map(\.episodeTitle) == ["Middle"])
        #expect(try await buffer.applyRetention(after: asked).map(\.episodeTitle) == ["Middle"])
        #expect(FileManager.default.fileExists(atPath: downloads["Asked"]!.file), "asked for, not played")
        #expect(FileManager.default.fileExists(atPath: downloads["Newest"]!.file))

        let entries = try await library.episodes(podcastID: show.podcast.id)
        let asksID = try #require(entries.first { $0.episode.title == "Asked" }?.id)
        try await library.recordPlayback(episodeID: asksID, .played(total: 60))
        try await library.subscribe(podcastID: show.podcast.id, keep: .mostRecent(1))
        #expect(try await buffer.applyRetention(after: asked).map(\.episodeTitle) == ["Asked"], "played now")
        #expect(FileManager.default.fileExists(atPath: downloads["Newest"]!.file))
    }

    @Test(arguments: [
        // (played, fetched by update) per file, newest first; keep; the files deleted.
        ([(false, true), (false, true), (false, true)], 1, [2, 1]),
        ([(false, false), (false, false), (false, false)], 1, []),
        ([(true, false), (false, true), (false, false)], 1, [0, 1]),
        ([(false, true), (true, false), (true, true)], 2, [2]),
        ([(false, true)], 3, []),
    ])
    func theRuleDeletesPlayedThenTheOldestFetchedByUpdate(files: [(Bool, Bool)], keep: Int, deleted: [Int]) {
        let candidates = files.enumerated().map { index, file in
            RetentionRule.File(
                download: Download(
                    id: Int64(index), enclosureURL: "u\(index)", state: .completed, file: "f\(index)", podcastTitle: "P",
                    episodeTitle: "E\(index)", fetchedByUpdate: file.1),
                isPlayed: file.0)
        }
        #expect(RetentionRule.filesToDelete(candidates, keep: keep).map(\.id) == deleted.map(Int64.init))
    }
}
