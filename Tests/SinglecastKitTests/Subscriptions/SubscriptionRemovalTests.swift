import Foundation
import Testing

@testable import SinglecastKit

@Suite struct SubscriptionRemovalTests {
    /// Four episodes: two downloaded into the podcast's folder, one whose file its owner moved
    /// out of it, and one being downloaded; and a file Singlecast did not write.
    @Test func unsubscribingCancelsDownloadsAndDeletesOnlyTheFilesItWroteInThePodcastsFolder() async throws {
        let show = try await ClaimedShow.make(titles: ["One", "Two", "Moved", "Running"])
        defer { show.remove() }
        try await show.complete("One")
        try await show.complete("Two")
        let moved = show.home.appendingPathComponent("Moved.mp3").path
        try await show.complete("Moved", at: moved)
        let foreign = show.folder.appendingPathComponent("notes.txt").path
        FileManager.default.createFile(atPath: foreign, contents: Data("mine".utf8))

        let removal = SubscriptionRemoval(buffer: show.buffer, daemon: DaemonClient(libraryDirectory: show.home))
        let deleted = try await removal.unsubscribe(show.podcast, deleteFiles: true)

        #expect(Set(deleted.map(\.episodeTitle)) == ["One", "Two"])
        #expect(!FileManager.default.fileExists(atPath: show.downloads["One"]!.file))
        #expect(!FileManager.default.fileExists(atPath: show.downloads["Two"]!.file))
        #expect(FileManager.default.fileExists(atPath: moved), "outside the podcast's folder")
        #expect(FileManager.default.fileExists(atPath: foreign), "not written by Singlecast")
        #expect(try await show.library.download(id: show.downloads["Running"]!.id)?.state == .cancelled)
        #expect(try await show.library.subscriptions().isEmpty)
        // The podcast stays in the library, as one listed with `episodes` does.
        #expect(try await show.library.episodes(podcastID: show.podcast.id).count == 4)
    }

    @Test func unsubscribingWithoutDeletingKeepsEveryFile() async throws {
        let show = try await ClaimedShow.make(titles: ["One"])
        defer { show.remove() }
        try await show.complete("One")

        let removal = SubscriptionRemoval(buffer: show.buffer, daemon: DaemonClient(libraryDirectory: show.home))
        #expect(try await removal.unsubscribe(show.podcast, deleteFiles: false).isEmpty)
        #expect(FileManager.default.fileExists(atPath: show.downloads["One"]!.file))
        #expect(try await show.library.download(id: show.downloads["One"]!.id)?.state == .completed)
    }
}
