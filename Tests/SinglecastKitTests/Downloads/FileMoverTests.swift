import Foundation
import Testing

@testable import SinglecastKit

@Suite struct FileMoverTests {
    @Test(arguments: [
        ("/a/Show/Title.en.vtt", "/b/Show/2024-07-01 Title.en.vtt"),
        ("/a/Show/Title.chapters.json", "/b/Show/2024-07-01 Title.chapters.json"),
        ("/a/Show/Title.vtt", "/b/Show/2024-07-01 Title.vtt"),
    ])
    func anExtraMovesWithItsEpisodeKeepingItsSuffix(extra: String, moved: String) {
        #expect(EpisodesFolder.extraFile(extraOf: extra, from: "/a/Show/Title.mp3", to: "/b/Show/2024-07-01 Title.mp3") == moved)
    }

    @Test func theTargetKeepsTheExtensionTheFileWasGiven() throws {
        let folder = EpisodesFolder(root: URL(fileURLWithPath: "/b"), template: try FileNameTemplate("{podcast}/{date} {title}"))
        let mover = FileMover(library: try Library.inMemory(), libraryDirectory: URL(fileURLWithPath: "/l"), episodes: folder)
        let episode = Episode(
            title: "Title", published: Date(timeIntervalSince1970: 1_719_820_800), enclosure: Enclosure(url: "http://h/e", type: nil))
        let download = Download(
            id: 1, enclosureURL: "http://h/e", state: .completed, file: "/a/Show/Title.m4a", podcastTitle: "Show",
            episodeTitle: "Title", mediaType: nil)
        #expect(mover.target(of: download, episode: episode, taken: [], present: []).path == "/b/Show/2024-07-01 Title.m4a")
        #expect(
            mover.target(of: download, episode: episode, taken: [], present: ["2024-07-01 Title.mp3"]).path
                == "/b/Show/2024-07-01 Title\(FileNaming.clashTag(forEnclosureURL: "http://h/e")).m4a")
    }
}
