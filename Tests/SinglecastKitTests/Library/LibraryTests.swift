import Foundation
import GRDB
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

    @Test func savesAFeedAndListsItInFeedOrder() async throws {
        let library = try Library.inMemory()
        let stored = try await library.saveFeed(feed(["One", "Two", "Three"]), feedKey: "https://example.com/feed").podcast
        let entries = try await library.episodes(podcastID: stored.id)
        #expect(entries.map(\.number) == [1, 2, 3])
        #expect(entries.map(\.episode.title) == ["One", "Two", "Three"])
        #expect(entries[1].episode == feed(["One", "Two", "Three"]).episodes[1])
        #expect(entries.allSatisfy { $0.download == nil })
        #expect(try await library.currentPodcast()?.id == stored.id)
    }

    @Test func listingAgainUpdatesByIdentityWithoutDuplicates() async throws {
        let library = try Library.inMemory()
        let key = "https://example.com/feed"
        let first = try await library.saveFeed(feed(["One", "Two"]), feedKey: key).podcast
        var newer = feed(["One (edited)", "Two"])
        newer.episodes.insert(Episode(title: "Zero", guid: "new"), at: 0)
        let second = try await library.saveFeed(newer, feedKey: key).podcast
        #expect(first.id == second.id)
        let entries = try await library.episodes(podcastID: second.id)
        #expect(entries.map(\.episode.title) == ["Zero", "One (edited)", "Two"])
        #expect(entries.map(\.number) == [1, 2, 3])
    }

    @Test func repeatedGuidsStillGetTheirOwnNumbers() async throws {
        let library = try Library.inMemory()
        var duplicated = feed(["A", "B"])
        duplicated.episodes[1].guid = duplicated.episodes[0].guid
        let stored = try await library.saveFeed(duplicated, feedKey: "k").podcast
        #expect(try await library.episodes(podcastID: stored.id).map(\.episode.title) == ["A", "B"])
    }

    /// Guids are told apart by their bytes, as the database tells them apart: two that only
    /// Unicode deems equal are two episodes, each keeping its own when the other leaves.
    @Test func guidsThatDifferInTheirBytesAreDifferentEpisodes() async throws {
        let library = try Library.inMemory()
        var both = feed(["Composed", "Decomposed"])
        both.episodes[0].guid = "caf\u{E9}"
        both.episodes[1].guid = "cafe\u{301}"
        let stored = try await library.saveFeed(both, feedKey: "k").podcast
        let decomposed = try #require(try await library.episodes(podcastID: stored.id).last)
        var onlyDecomposed = both
        onlyDecomposed.episodes.removeFirst()
        try await library.saveFeed(onlyDecomposed, feedKey: "k")
        let listed = try await library.episodes(podcastID: stored.id)
        #expect(listed.map(\.id) == [decomposed.id], "the same episode, not a new one")
    }

    @Test func aFailedSaveStoresNothing() async throws {
        let library = try Library.inMemory()
        var options = Library.SaveOptions()
        options.podcastID = 999  // no such podcast: the save fails inside its transaction
        await #expect(throws: (any Error).self) {
            try await library.saveFeed(feed(["One", "Two"]), feedKey: "k", options: options)
        }
        #expect(try await library.podcast(feedKey: "k") == nil)
        #expect(try await library.currentPodcast() == nil)
    }

    @Test func aDiscardedSaveOfAStoredPodcastLeavesItAsItWas() async throws {
        let library = try Library.inMemory()
        let stored = try await library.saveFeed(feed(["One", "Two"]), feedKey: "k").podcast
        let before = try await library.episodes(podcastID: stored.id)
        let save = await library.beginSave(feedKey: "k")
        try await save.add(feed(["Zero", "One (edited)", "Two"], guidPrefix: "other").episodes)
        try await save.flush()
        await save.discard()
        #expect(try await library.episodes(podcastID: stored.id) == before)
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_temp_master") } == 0)
    }

    @Test func aDiscardedSaveOfANewPodcastLeavesNoTrace() async throws {
        let library = try Library.inMemory()
        let save = await library.beginSave(feedKey: "new")
        try await save.add(feed(["One", "Two"]).episodes)
        try await save.flush()
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") } == 2)
        await save.discard()
        #expect(try await library.podcast(feedKey: "new") == nil)
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") } == 0)
    }

    /// A new podcast's episodes are inserted batch by batch; one that another process saved
    /// meanwhile is updated with what this save has, in its place in the feed, not doubled.
    @Test func aNewPodcastsEpisodeSavedMeanwhileElsewhereIsUpdatedNotDoubled() async throws {
        let library = try Library.inMemory()
        let save = await library.beginSave(feedKey: "k")
        try await save.flush()
        try await library.writer.write { db in
            let podcastID = try #require(try Int64.fetchOne(db, sql: "SELECT id FROM podcast WHERE feedKey = 'k'"))
            try db.execute(
                sql: "INSERT INTO episode (podcastId, identity, position, title) VALUES (?, 'g1', 7, 'Written elsewhere')",
                arguments: [podcastID])
        }
        let titles = ["One", "Two", "Three"]
        try await save.add(feed(titles).episodes)
        let saved = try await save.commit(Feed(podcast: Podcast(title: "Show"), episodes: []))
        let entries = try await library.episodes(podcastID: saved.podcast.id)
        #expect(entries.map(\.episode.title) == titles)
        #expect(entries.map(\.number) == [1, 2, 3])
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") } == 3)
    }

    /// The batches of a new podcast are written without SQLite's foreign key checks; the
    /// podcast's row is checked instead, so a podcast removed meanwhile gets no episodes.
    @Test func aNewPodcastRemovedWhileItIsSavedGetsNoEpisodes() async throws {
        let library = try Library.inMemory()
        let save = await library.beginSave(feedKey: "k")
        try await save.flush()
        try await library.writer.write { db in try db.execute(sql: "DELETE FROM podcast WHERE feedKey = 'k'") }
        await #expect(throws: DatabaseError.self) {
            try await save.add(feed(["One", "Two"]).episodes)
            try await save.flush()
        }
        await save.discard()
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") } == 0)
        #expect(try await library.writer.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") } == true)
    }

    @Test func anUnchangedFeedCostsNoEpisodeWrite() async throws {
        let library = try Library.inMemory()
        let titles = (1...1500).map { "Episode \($0)" }
        let stored = try await library.saveFeed(feed(titles), feedKey: "k").podcast
        let changesBefore = try await library.writer.read { db in db.totalChangesCount }
        let saved = try await library.saveFeed(feed(titles), feedKey: "k")
        let changesAfter = try await library.writer.read { db in db.totalChangesCount }
        // The podcast's own row and the current podcast: nothing of its 1,500 episodes.
        #expect(changesAfter - changesBefore <= 2)
        #expect(saved.episodeCount == 1500)
        #expect(saved.addedCount == 0)
        #expect(try await library.episodes(podcastID: stored.id).map(\.episode.title) == titles)
    }

    @Test func aShiftedFeedMovesItsEpisodesAndAddsTheNewOne() async throws {
        let library = try Library.inMemory()
        let stored = try await library.saveFeed(feed(["One", "Two", "Three"]), feedKey: "k").podcast
        var newer = feed(["One", "Two", "Three"])
        newer.episodes.insert(Episode(title: "Zero", guid: "zero"), at: 0)
        newer.episodes.removeLast()
        let saved = try await library.saveFeed(newer, feedKey: "k")
        #expect(saved.addedCount == 1)
        #expect(saved.episodeCount == 3)
        let entries = try await library.episodes(podcastID: stored.id)
        #expect(entries.map(\.episode.title) == ["Zero", "One", "Two"])
        #expect(entries.map(\.number) == [1, 2, 3])
        // The episode gone from the feed keeps its row, without a number.
        let rows = try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") }
        #expect(rows == 4)
    }

    /// Closing a library copies its log into the database file and removes it, there and
    /// then; the library opens again as it was, and only one that exists opens without creating.
    @Test func aClosedLibraryLeavesOnlyItsDatabaseAndOpensAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Library.openExistingBlocking(directory: folder) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing created")
        let library = try await Library.open(directory: folder)
        try await library.saveFeed(feed(["One", "Two"]), feedKey: "k")
        try await library.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["library.sqlite"])
        await #expect(throws: (any Error).self) { try await library.saveFeed(feed(["Three"]), feedKey: "k") }
        let reopened = try #require(try Library.openExistingBlocking(directory: folder))
        let podcast = try #require(try await reopened.podcast(feedKey: "k"))
        #expect(try await reopened.episodes(podcastID: podcast.id).map(\.episode.title) == ["One", "Two"])
    }

    @Test func aListingComesInPagesOfOneSnapshotInFeedOrder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        let count = Library.pageSize * 2 + 5
        let stored = try await library.saveFeed(feed((0..<count).map { "Episode \($0)" }), feedKey: "k").podcast
        var pages: [[EpisodeEntry]] = []
        try await library.forEachEpisodePage(podcastID: stored.id) { page in
            if pages.isEmpty {
                // A save meanwhile does not change what the listing shows.
                _ = try await library.saveFeed(feed(["Other"]), feedKey: "k")
            }
            pages.append(page)
        }
        #expect(pages.map(\.count) == [Library.pageSize, Library.pageSize, 5])
        #expect(pages.joined().map(\.number) == Array(1...count))
        #expect(pages.joined().map(\.episode.title) == (0..<count).map { "Episode \($0)" })
    }

    @Test func savingManyFeedsLeavesTheLogInTheDatabaseFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        let log = folder.appendingPathComponent("library.sqlite-wal")
        func logSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int) ?? 0 }
        let pagesWrittenDuring = await library.savingFeeds {
            for index in 0..<3 {
                _ = try? await library.saveFeed(feed(Array(repeating: "Episode", count: 200), guidPrefix: "p\(index)-"), feedKey: "k\(index)")
            }
            return logSize()
        }
        // The saves' pages went through the log, and were all copied into the database file.
        #expect(pagesWrittenDuring > 0)
        #expect(logSize() == 0)
        let counts = try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") }
        #expect(counts == 600)
    }

    // MARK: - A save in one transaction

    private func inOneTransaction() -> Library.SaveOptions {
        var options = Library.SaveOptions()
        options.inOneTransaction = true
        return options
    }

    /// Whether another connection could take the library's write lock now.
    private func writeLockIsFree(in folder: URL) throws -> Bool {
        let other = try DatabaseQueue(path: folder.appendingPathComponent("library.sqlite").path)
        defer { try? other.close() }
        do {
            try other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return false
        }
    }

    /// A save in one transaction holds the write lock from its start to its commit: the
    /// library shows none of its episodes, nor its new podcast, until they are all there.
    @Test func aSaveInOneTransactionIsSeenWholeOnceCommitted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        let titles = (1...1200).map { "Episode \($0)" }
        let episodes = feed(titles).episodes
        let save = await library.beginSave(feedKey: "k", options: inOneTransaction())
        try await save.add(Array(episodes[..<600]))
        try await save.flush()
        #expect(try await library.podcast(feedKey: "k") == nil)
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") } == 0)
        #expect(try !writeLockIsFree(in: folder))
        try await save.add(Array(episodes[600..<1000]))
        let saved = try await save.commit(Feed(podcast: Podcast(title: "Show"), episodes: Array(episodes[1000...])))
        #expect(try writeLockIsFree(in: folder))
        #expect(saved.episodeCount == 1200)
        #expect(saved.addedCount == 1200)
        let entries = try await library.episodes(podcastID: saved.podcast.id)
        #expect(entries.map(\.episode.title) == titles)
        #expect(entries.map(\.number) == Array(1...1200))
        #expect(try await library.writer.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") } == true)
    }

    /// Discarding a save in one transaction rolls it back whole, the new podcast's row too,
    /// and lets go of the write lock.
    @Test func aSaveInOneTransactionDiscardedLeavesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        let save = await library.beginSave(feedKey: "k", options: inOneTransaction())
        try await save.add(feed(["One", "Two"]).episodes)
        try await save.flush()
        await save.discard()
        #expect(try writeLockIsFree(in: folder))
        #expect(try await library.podcast(feedKey: "k") == nil)
        #expect(try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") } == 0)
        let saved = try await library.saveFeed(feed(["Three"]), feedKey: "k")
        #expect(try await library.episodes(podcastID: saved.podcast.id).map(\.episode.title) == ["Three"])
    }

    /// A new podcast saved in one transaction gets its row at the commit, under the id its row
    /// would have had at the start: after every podcast's id, even one removed since (ids are
    /// never used twice), with its counts row and its episodes under it.
    @Test func aNewPodcastSavedInOneTransactionGetsTheIdAnInsertWouldHave() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        func saveInOneTransaction(_ key: String) async throws -> SavedFeed {
            let save = await library.beginSave(feedKey: key, options: inOneTransaction())
            try await save.add(feed(["One", "Two"], guidPrefix: key).episodes)
            return try await save.commit(Feed(podcast: Podcast(title: "Show \(key)"), episodes: []))
        }
        let first = try await library.saveFeed(feed(["One"]), feedKey: "a")
        let second = try await saveInOneTransaction("b")
        try await library.writer.write { db in try db.execute(sql: "DELETE FROM podcast WHERE id = ?", arguments: [second.podcast.id]) }
        let third = try await saveInOneTransaction("c")
        #expect([first, second, third].map(\.podcast.id) == [1, 2, 3])
        #expect(third.podcast.podcast.title == "Show c")
        let rows = try await library.writer.read { db in
            (
                try Int64.fetchAll(db, sql: "SELECT DISTINCT podcastId FROM episode ORDER BY podcastId"),
                try Int64.fetchAll(db, sql: "SELECT podcastId FROM podcastCounts ORDER BY podcastId")
            )
        }
        #expect(rows.0 == [1, 3])
        #expect(rows.1 == [1, 3])
        #expect(try await library.episodes(podcastID: third.podcast.id).map(\.episode.title) == ["One", "Two"])
    }

    /// A podcast that has episodes is saved in one transaction as in a transaction per batch:
    /// the same episodes, numbers and rows; and a library in memory, which has no file for a
    /// connection of the save's own, saves a batch at a time.
    @Test func aSaveInOneTransactionStoresWhatATransactionPerBatchDoes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let older = feed((1...700).map { "Episode \($0)" })
        var newer = older
        newer.episodes.insert(Episode(title: "Zero", guid: "zero"), at: 0)
        newer.episodes.removeLast(3)
        newer.episodes[10].title = "Renamed"
        func save(_ feed: Feed, in library: Library, options: Library.SaveOptions) async throws -> SavedFeed {
            let save = await library.beginSave(feedKey: "k", options: options)
            try await save.add(Array(feed.episodes[..<300]))
            return try await save.commit(Feed(podcast: feed.podcast, episodes: Array(feed.episodes[300...])))
        }
        func rows(_ library: Library) async throws -> [String] {
            try await library.writer.read { db in
                try String.fetchAll(db, sql: "SELECT title || ':' || IFNULL(position, '-') FROM episode ORDER BY title")
            }
        }
        let batched = try Library.inMemory()
        _ = try await save(older, in: batched, options: Library.SaveOptions())
        let expected = try await save(newer, in: batched, options: Library.SaveOptions())
        let expectedRows = try await rows(batched)
        #expect(expectedRows.contains("Renamed:11") && expectedRows.contains("Episode 700:-"))
        for library in [try await Library.open(directory: folder), try Library.inMemory()] {
            _ = try await save(older, in: library, options: inOneTransaction())
            let saved = try await save(newer, in: library, options: inOneTransaction())
            #expect((saved.episodeCount, saved.addedCount) == (expected.episodeCount, expected.addedCount))
            #expect(try await rows(library) == expectedRows)
        }
    }

    @Test func aNewLibraryHasPagesOf16KiBAndAnOldOneKeepsItsOwn() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        func pageSize(_ library: Library) async throws -> Int? {
            try await library.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
        }
        #expect(try await pageSize(try await Library.open(directory: folder)) == 16384)
        let old = folder.appendingPathComponent("old")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try await DatabaseQueue(path: old.appendingPathComponent("library.sqlite").path).write { db in
            try db.execute(sql: "PRAGMA page_size = 4096; CREATE TABLE made (id INTEGER)")
        }
        let reopened = try await Library.open(directory: old)
        #expect(try await pageSize(reopened) == 4096)
        #expect(try await reopened.subscriptions().isEmpty)
    }

    @Test func stagingAStoredPodcastTakesNoLockOnTheLibrary() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        let stored = try await library.saveFeed(feed(["One", "Two"]), feedKey: "k").podcast
        let save = await library.beginSave(feedKey: "k")
        try await save.add(feed(["Zero", "One", "Two"], guidPrefix: "n").episodes)
        try await save.flush()
        // Another process's write goes through at once, without waiting for a lock.
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        let other = try DatabaseQueue(path: folder.appendingPathComponent("library.sqlite").path, configuration: configuration)
        try await other.write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES ('other', 'x')")
        }
        let saved = try await save.commit(Feed(podcast: Podcast(title: "Show"), episodes: []))
        #expect(saved.episodeCount == 3)
        #expect(try await library.episodes(podcastID: stored.id).map(\.episode.title) == ["Zero", "One", "Two"])
    }

    @Test func theFingerprintCoversEveryColumnOfTheFeed() async throws {
        let library = try Library.inMemory()
        let columns = try await library.writer.read { db in try db.columns(in: "episode").map(\.name) }
        let declared = EpisodeColumns.fields.map(\.name)
        #expect(Set(columns) == Set(declared + EpisodeColumns.bookkeeping))
        let full = Episode(
            title: "T", guid: "g", link: "https://l", published: Date(timeIntervalSince1970: 5), duration: 7,
            description: "d", enclosure: Enclosure(url: "https://e", length: 9, type: "audio/mpeg"), season: 1,
            episodeNumber: 2, explicit: true, transcripts: [Transcript(url: "https://t", type: "text/vtt", language: "en")],
            chaptersURL: "https://c")
        // Rewriting any one column through its own field must change the fingerprint.
        let changes = try await library.writer.read { db in
            let other: [(String, DatabaseValueConvertible)] = [
                ("title", "other"), ("guid", "other"), ("link", "other"), ("published", 6.0), ("duration", 8),
                ("description", "other"), ("enclosureURL", "https://other"), ("enclosureLength", 10), ("enclosureType", "video/mp4"),
                ("season", 3), ("episodeNumber", 4), ("explicit", false), ("transcriptURL", "other"), ("chaptersURL", "other"),
                ("transcripts", #"[{"url":"https://other","type":"text/plain"}]"#),
            ]
            let row = try #require(
                try Row.fetchOne(
                    db, sql: "SELECT " + other.map { "? AS \($0.0)" }.joined(separator: ", "),
                    arguments: StatementArguments(other.map(\.1))))
            return try EpisodeColumns.fields.map { field in
                var changed = full
                field.read(&changed, row, try #require(other.firstIndex { $0.0 == field.name }))
                return (name: field.name, episode: changed)
            }
        }
        #expect(changes.count == EpisodeColumns.fields.count)
        for (name, changed) in changes {
            #expect(changed != full, "\(name) did not change the episode")
            #expect(EpisodeColumns.fingerprint(of: changed) != EpisodeColumns.fingerprint(of: full), "\(name)")
        }
    }

    /// A save compares each episode's fingerprint with the one stored by an earlier version:
    /// were the hash of the same episode to change, the first update after an upgrade would
    /// rewrite every episode of every feed. (The figures are those of d221ec4's own hash.)
    @Test func anEpisodesFingerprintStaysTheOneStoredBefore() {
        let full = Episode(
            title: "T", guid: "g", link: "https://l", published: Date(timeIntervalSince1970: 5), duration: 7,
            description: "Notes longer than eight bytes, é", enclosure: Enclosure(url: "https://e", length: 9, type: "audio/mpeg"),
            season: 1, episodeNumber: 2, explicit: true,
            transcripts: [Transcript(url: "https://t", type: "text/vtt", language: "en")], chaptersURL: "https://c")
        #expect(EpisodeColumns.fingerprint(of: full) == -8_348_753_372_726_015_322)
        #expect(EpisodeColumns.fingerprint(of: Episode(title: "T")) == 3_552_293_269_714_120_126)
    }

    @Test func subscribingMarksOnlyTheMostRecentEpisodeNewAndAnUpdateMarksWhatItAdds() async throws {
        let library = try Library.inMemory()
        let stored = try await library.saveFeed(feed(["One", "Two", "Three"]), feedKey: "https://example.com/feed").podcast
        #expect(try await library.subscribe(podcastID: stored.id, keep: .mostRecent(2), autoDownload: .new))
        #expect(try await library.newEpisodes().map(\.entry.episode.title) == ["Three"])
        var newer = feed(["One", "Two", "Three"])
        newer.episodes.append(Episode(title: "Four", guid: "g4", published: Date(timeIntervalSince1970: 1_800_000_000)))
        var options = Library.SaveOptions()
        options.newEpisodes = .added
        options.makeCurrent = false
        let saved = try await library.saveFeed(newer, feedKey: "https://example.com/feed", options: options)
        #expect(saved.addedCount == 1)
        #expect(try await library.newEpisodes().map(\.entry.episode.title) == ["Four", "Three"])
        let summary = try #require(try await library.subscriptions().first)
        #expect(summary.number == 1)
        #expect(summary.episodeCount == 4)
        #expect(summary.newCount == 2)
        #expect(summary.podcast.subscription?.keep == 2)
        #expect(summary.podcast.subscription?.autoDownload == .new)
        // Subscribing again changes the settings given, not the others nor the new marks.
        #expect(try await !library.subscribe(podcastID: stored.id, keep: .all))
        #expect(try await library.newEpisodes().count == 2)
        var changed = try #require(try await library.subscriptions().first).podcast.subscription
        #expect(changed?.keep == nil)
        #expect(changed?.autoDownload == .new)
        try await library.subscribe(podcastID: stored.id, autoDownload: AutoDownload.none)
        changed = try #require(try await library.subscriptions().first).podcast.subscription
        #expect(changed?.autoDownload == AutoDownload.none)
        try await library.markOld(episodeIDs: [try #require(try await library.newEpisodes().first).entry.id])
        #expect(try await library.newEpisodes().map(\.entry.episode.title) == ["Three"])
        try await library.unsubscribe(podcastID: stored.id)
        #expect(try await library.subscriptions().isEmpty)
        #expect(try await library.episodes(podcastID: stored.id).count == 4)
    }

    @Test func recordsHowAnUpdateWent() async throws {
        let library = try Library.inMemory()
        let stored = try await library.saveFeed(feed(["One"]), feedKey: "https://example.com/feed").podcast
        try await library.subscribe(podcastID: stored.id)
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        try await library.recordUpdate(
            podcastID: stored.id, UpdateResult(status: .notModified, at: at),
            validators: FeedValidators(etag: "\"v1\"", lastModified: "Tue, 14 Nov 2023 22:13:20 GMT"))
        var summary = try #require(try await library.subscriptions().first)
        #expect(summary.validators.etag == "\"v1\"")
        #expect(summary.podcast.subscription?.lastUpdate == UpdateResult(status: .notModified, at: at))
        #expect(summary.podcast.subscription?.lastSuccessAt == at)
        let recorded = try await library.recordUpdate(podcastID: stored.id, UpdateResult(status: .failed(.unexpected("boom")), at: at + 60))
        summary = try #require(try await library.subscriptions().first)
        #expect(recorded == summary.podcast)
        #expect(summary.podcast.subscription?.lastUpdate?.status == .failed(.unexpected("boom")))
        #expect(summary.podcast.subscription?.lastSuccessAt == at)
        try await library.recordUpdate(podcastID: stored.id, UpdateResult(status: .gone, at: at + 120))
        #expect(try await library.subscriptions().first?.podcast.subscription?.isGone == true)
    }

    @Test func remembersTheLastSearch() async throws {
        let library = try Library.inMemory()
        try await library.replaceSearchResults([
            SearchResult(number: 1, title: "First", feedURL: URL(string: "https://a/rss")),
            SearchResult(number: 2, title: "Second"),
        ])
        #expect(try await library.searchResult(number: 1).feedURL == URL(string: "https://a/rss"))
        #expect(try await library.searchResult(number: 2).feedURL == nil)
        await #expect(throws: LibraryError.noSuchSearchResult(number: 3, count: 2)) {
            try await library.searchResult(number: 3)
        }
        try await library.replaceSearchResults([])
        await #expect(throws: LibraryError.noSuchSearchResult(number: 1, count: 0)) {
            try await library.searchResult(number: 1)
        }
    }

    @Test func opensAFolderOnDisk() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stored = try await Library.open(directory: folder).saveFeed(feed(["One"]), feedKey: "k").podcast
        let reopened = try await Library.open(directory: folder)
        #expect(try await reopened.currentPodcast() == stored)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("library.sqlite").path))
    }

    @Test func closingALibraryThatWasReadLeavesNoLog() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Library.open(directory: folder).close()
        // Opened ahead as the command line does, with a connection ready to read.
        let library = try #require(try Library.openExistingBlocking(directory: folder))
        _ = try await library.subscriptions()
        try await library.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.filter { $0.hasPrefix("library.sqlite") } == ["library.sqlite"])
    }

    /// A library opened serially (a brief command's) reads, and lists the current podcast
    /// again, without writing a byte to the database file; it stays in WAL mode and leaves no log.
    @Test func aSerialOpenThatOnlyReadsLeavesTheDatabaseFileAsItWas() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = try await Library.open(directory: folder)
        let stored = try await created.saveFeed(feed(["One", "Two"]), feedKey: "k").podcast
        try await created.close()
        let database = folder.appendingPathComponent("library.sqlite")
        let before = try Data(contentsOf: database)

        let library = try #require(try Library.openExistingBlocking(directory: folder, access: .serial))
        #expect(try await library.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        try await library.setCurrentPodcast(id: stored.id)
        #expect(try await library.episodes(podcastID: stored.id).map(\.episode.title) == ["One", "Two"])
        await library.checkpoint()
        try await library.close()

        #expect(try Data(contentsOf: database) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["library.sqlite"])
    }

    /// Making another podcast current is written, and read back, on a serial library too.
    @Test func aSerialOpenWritesWhatChanges() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = try await Library.open(directory: folder)
        let first = try await created.saveFeed(feed(["One"]), feedKey: "first").podcast
        let second = try await created.saveFeed(feed(["Two"], guidPrefix: "s"), feedKey: "second").podcast
        #expect(try await created.currentPodcast()?.id == second.id)
        try await created.close()

        let library = try #require(try Library.openExistingBlocking(directory: folder, access: .serial))
        try await library.setCurrentPodcast(id: first.id)
        try await library.close()
        let reopened = try await Library.open(directory: folder)
        #expect(try await reopened.currentPodcast()?.id == first.id)
    }

    @Test func aLargeSaveLeavesItsPagesInTheLogUntilTheCheckpoint() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        func size(_ name: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int)
        }
        let library = try await Library.open(directory: folder)
        // Some 7 MB: well over the 1,000 pages at which SQLite would checkpoint on commit.
        let titles = (1...3000).map { "Episode \($0) " + String(repeating: "x", count: 2000) }
        try await library.saveFeed(feed(titles), feedKey: "k")
        #expect(try size("library.sqlite") < 1_000_000)
        #expect(try size("library.sqlite-wal") > 6_000_000)

        await library.checkpoint()
        #expect(try size("library.sqlite") > 6_000_000)
        #expect(try size("library.sqlite-wal") == 0)
        let current = try #require(try await Library.open(directory: folder).currentPodcast())
        #expect(try await library.episodes(podcastID: current.id).count == 3000)
    }

    @Test func libraryLocationFollowsTheEnvironment() {
        #expect(LibraryLocation.directory(environment: ["SINGLECAST_HOME": "/x/y"]).path == "/x/y")
        #expect(LibraryLocation.directory(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]).path == "/d/singlecast")
        #expect(LibraryLocation.directory(environment: ["HOME": "/h"]).path == "/h/.local/share/singlecast")
    }
}
