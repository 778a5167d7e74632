import Foundation
import GRDB
import Testing

@testable import SinglecastKit

/// The counts kept for each podcast agree with the episodes after every kind of change.
@Suite struct PodcastCountsTests {
    private static let key = "https://example.com/feed"

    private func feed(_ titles: [String]) -> Feed {
        Feed(
            podcast: Podcast(title: "Show"),
            episodes: titles.enumerated().map { index, title in
                Episode(
                    title: title, guid: title, published: Date(timeIntervalSince1970: Double(1_700_000_000 + index)),
                    enclosure: Enclosure(url: "https://cdn.example.com/\(title).mp3", length: 1000, type: "audio/mpeg"))
            })
    }

    private struct Counts: Equatable, CustomStringConvertible {
        var episodes, new, unplayed, downloaded: Int
        var description: String { "\(episodes) listed, \(new) new, \(unplayed) unplayed, \(downloaded) downloaded" }
    }

    /// What `podcasts` shows of the only subscription.
    private func shown(_ library: Library) async throws -> Counts {
        let summary = try #require(try await library.subscriptions().first)
        return Counts(
            episodes: summary.episodeCount, new: summary.newCount, unplayed: summary.unplayedCount,
            downloaded: summary.downloadedCount)
    }

    /// The same counts read from the episodes themselves.
    private func counted(_ library: Library, podcastID: Int64) async throws -> Counts {
        try await library.writer.read { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql, arguments: [podcastID]) ?? -1 }
            return Counts(
                episodes: try count("SELECT COUNT(*) FROM episode WHERE podcastId = ? AND position IS NOT NULL"),
                new: try count("SELECT COUNT(*) FROM episode WHERE podcastId = ? AND isNew"),
                unplayed: try count(
                    """
                    SELECT COUNT(*) FROM episode LEFT JOIN episodePlayback ON episodeId = episode.id
                    WHERE podcastId = ? AND position IS NOT NULL AND playedAt IS NULL
                    """),
                downloaded: try count(
                    """
                    SELECT COUNT(*) FROM episode JOIN download ON download.enclosureURL = episode.enclosureURL
                    WHERE podcastId = ? AND state = 'completed'
                    """))
        }
    }

    private func expectCounts(
        _ library: Library, podcastID: Int64, _ expected: Counts, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let shown = try await shown(library)
        #expect(shown == expected, sourceLocation: sourceLocation)
        #expect(try await counted(library, podcastID: podcastID) == shown, sourceLocation: sourceLocation)
    }

    private func setDownload(_ library: Library, _ title: String, _ state: DownloadState, id: Int64) async throws {
        let download = Download(
            id: id, enclosureURL: "https://cdn.example.com/\(title).mp3", state: state, file: "/episodes/\(title).mp3",
            podcastTitle: "Show", episodeTitle: title)
        try await library.withDownloadStore { store in
            if try store.download(id: id) == nil {
                _ = try store.insert(download)
            } else {
                try store.update(download)
            }
        }
    }

    @Test func countsFollowSavesMarksAndDownloads() async throws {
        let library = try Library.inMemory()
        let podcast = try await library.saveFeed(feed(["A", "B", "C"]), feedKey: Self.key).podcast
        try await library.subscribe(podcastID: podcast.id)
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 1, unplayed: 3, downloaded: 0))

        let entries = try await library.episodes(podcastID: podcast.id)
        let ids = Dictionary(uniqueKeysWithValues: entries.map { ($0.episode.title, $0.id) })
        try await library.recordPlayback(episodeID: ids["A"]!, .played(total: 60))
        try await library.recordPlayback(episodeID: ids["B"]!, .played(total: 60))
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 1, unplayed: 1, downloaded: 0))
        try await library.recordPlayback(episodeID: ids["B"]!, .unplayed)
        try await library.recordPlayback(episodeID: ids["C"]!, .position(10, started: 0, total: 60))
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 1, unplayed: 2, downloaded: 0))

        try await setDownload(library, "A", .downloading, id: 1)
        try await setDownload(library, "A", .completed, id: 1)
        try await setDownload(library, "B", .completed, id: 2)
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 1, unplayed: 2, downloaded: 2))
        try await setDownload(library, "B", .deleted, id: 2)
        try await library.withDownloadStore { store in try store.db.execute(sql: "DELETE FROM download WHERE id = 1") }
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 1, unplayed: 2, downloaded: 0))

        // An update drops A (played) and adds D, marked new.
        try await setDownload(library, "C", .completed, id: 3)
        var options = Library.SaveOptions()
        options.newEpisodes = .added
        try await library.saveFeed(feed(["B", "C", "D"]), feedKey: Self.key, options: options)
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 2, unplayed: 3, downloaded: 1))

        try await library.markOld(episodeIDs: [ids["C"]!])
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 3, new: 1, unplayed: 3, downloaded: 1))
    }

    @Test func aPodcastListedAgainWithFewerEpisodesIsCountedAgain() async throws {
        let library = try Library.inMemory()
        let podcast = try await library.saveFeed(feed(["A", "B", "C", "D"]), feedKey: Self.key).podcast
        try await library.subscribe(podcastID: podcast.id)
        try await library.saveFeed(feed(["D"]), feedKey: Self.key)
        try await expectCounts(library, podcastID: podcast.id, Counts(episodes: 1, new: 1, unplayed: 1, downloaded: 0))
    }

    @Test func aLibraryFromBeforeTheCountsIsCountedWhenOpened() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("counts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await Library.open(directory: directory)
        let podcast = try await library.saveFeed(feed(["A", "B"]), feedKey: Self.key).podcast
        try await library.subscribe(podcastID: podcast.id)
        // As a library before migration v12 was: no counts kept.
        try await library.writer.write { db in
            for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'podcastCounts_%'") {
                try db.execute(sql: "DROP TRIGGER \(trigger)")
            }
            try db.execute(sql: "DROP TABLE podcastCounts; DELETE FROM grdb_migrations WHERE identifier = 'v12-podcast-counts'")
        }
        try await library.close()
        let reopened = try await Library.open(directory: directory)
        try await expectCounts(reopened, podcastID: podcast.id, Counts(episodes: 2, new: 1, unplayed: 2, downloaded: 0))
    }
}
