import Foundation
import Testing

@testable import SinglecastKit

@Suite struct LibraryTests {
    private func feed(_ titles: [String], guidPrefix: String = "g") -> Feed {
        Feed(
            podcast: Podcast(title: "Show", link: URL(string: "https://example.com")),
            episodes: titles.enumerated().map { index, title in
                Episode(
                    title: title, guid: "\(guidPrefix)\(index)",
                    published: Date(timeIntervalSince1970: Double(1_700_000_000 + index)),
                    duration: 60 * index,
                    enclosure: Enclosure(url: "https://cdn.example.com/\(index).mp3", length: 1000, type: "audio/mpeg"))
            })
    }

    @Test func savesAFeedAndListsItInFeedOrder() throws {
        let library = try Library.inMemory()
        let stored = try library.saveFeed(feed(["One", "Two", "Three"]), feedKey: "https://example.com/feed").podcast
        let entries = try library.episodes(podcastID: stored.id)
        #expect(entries.map(\.number) == [1, 2, 3])
        #expect(entries.map(\.episode.title) == ["One", "Two", "Three"])
        #expect(entries[1].episode == feed(["One", "Two", "Three"]).episodes[1])
        #expect(entries.allSatisfy { $0.download == nil })
        #expect(try library.currentPodcast()?.id == stored.id)
    }

    @Test func listingAgainUpdatesByIdentityWithoutDuplicates() throws {
        let library = try Library.inMemory()
        let key = "https://example.com/feed"
        let first = try library.saveFeed(feed(["One", "Two"]), feedKey: key).podcast
        var newer = feed(["One (edited)", "Two"])
        newer.episodes.insert(Episode(title: "Zero", guid: "new"), at: 0)
        let second = try library.saveFeed(newer, feedKey: key).podcast
        #expect(first.id == second.id)
        let entries = try library.episodes(podcastID: second.id)
        #expect(entries.map(\.episode.title) == ["Zero", "One (edited)", "Two"])
        #expect(entries.map(\.number) == [1, 2, 3])
    }

    @Test func repeatedGuidsStillGetTheirOwnNumbers() throws {
        let library = try Library.inMemory()
        var duplicated = feed(["A", "B"])
        duplicated.episodes[1].guid = duplicated.episodes[0].guid
        let stored = try library.saveFeed(duplicated, feedKey: "k").podcast
        #expect(try library.episodes(podcastID: stored.id).map(\.episode.title) == ["A", "B"])
    }

    @Test func savesEpisodesAsTheyAreParsed() async throws {
        let library = try Library.inMemory()
        let whole = feed(["One", "Two", "Three", "Four"])
        let saved = try await library.saveFeed(feedKey: "https://example.com/feed") { handOn in
            handOn(Array(whole.episodes[0..<1]))
            handOn(Array(whole.episodes[1..<3]))
            return Feed(podcast: whole.podcast, episodes: Array(whole.episodes[3...]), warnings: ["cut short"])
        }
        #expect(saved.episodes.map(\.episode) == whole.episodes)
        #expect(saved.warnings == ["cut short"])
        #expect(try library.episodes(podcastID: saved.podcast.id).map(\.episode) == whole.episodes)
        #expect(saved.podcast.podcast.title == "Show")
    }

    @Test func aFailedParseStoresNothing() async throws {
        struct Broken: Error {}
        let library = try Library.inMemory()
        let key = "https://example.com/feed"
        await #expect(throws: Broken.self) {
            try await library.saveFeed(feedKey: key) { handOn in
                handOn(feed(["One", "Two"]).episodes)
                throw Broken()
            }
        }
        #expect(try library.podcast(feedKey: key) == nil)
        #expect(try library.currentPodcast() == nil)
    }

    @Test func remembersTheLastSearch() throws {
        let library = try Library.inMemory()
        try library.replaceSearchResults([
            SearchResult(number: 1, title: "First", feedURL: URL(string: "https://a/rss")),
            SearchResult(number: 2, title: "Second"),
        ])
        #expect(try library.searchResult(number: 1).feedURL == URL(string: "https://a/rss"))
        #expect(try library.searchResult(number: 2).feedURL == nil)
        #expect(throws: LibraryError.noSuchSearchResult(number: 3, count: 2)) {
            try library.searchResult(number: 3)
        }
        try library.replaceSearchResults([])
        #expect(throws: LibraryError.noSuchSearchResult(number: 1, count: 0)) {
            try library.searchResult(number: 1)
        }
    }

    @Test func opensAFolderOnDisk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stored = try Library(directory: folder).saveFeed(feed(["One"]), feedKey: "k").podcast
        let reopened = try Library(directory: folder)
        #expect(try reopened.currentPodcast() == stored)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("library.sqlite").path))
    }

    @Test func aLargeSaveLeavesItsPagesInTheLogUntilTheCheckpoint() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        func size(_ name: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int)
        }
        let library = try Library(directory: folder)
        // Some 7 MB: well over the 1,000 pages at which SQLite would checkpoint on commit.
        let titles = (1...3000).map { "Episode \($0) " + String(repeating: "x", count: 2000) }
        try library.saveFeed(feed(titles), feedKey: "k")
        #expect(try size("library.sqlite") < 1_000_000)
        #expect(try size("library.sqlite-wal") > 6_000_000)

        await library.checkpoint()
        #expect(try size("library.sqlite") > 6_000_000)
        #expect(try size("library.sqlite-wal") == 0)
        let current = try #require(try Library(directory: folder).currentPodcast())
        #expect(try library.episodes(podcastID: current.id).count == 3000)
    }

    @Test func libraryLocationFollowsTheEnvironment() {
        #expect(LibraryLocation.directory(environment: ["SINGLECAST_HOME": "/x/y"]).path == "/x/y")
        #expect(LibraryLocation.directory(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]).path == "/d/singlecast")
        #expect(LibraryLocation.directory(environment: ["HOME": "/h"]).path == "/h/.local/share/singlecast")
    }
}
