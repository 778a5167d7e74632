import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

/// `find`'s index and search: the matching rules, the ranking, transcripts, and keeping the
/// index in step with the library.
@Suite struct LibraryFindTests {
    private static func day(_ number: Int) -> Date { Date(timeIntervalSince1970: 1_719_792_000 + Double(number) * 86_400) }

    private static func episode(_ id: String, _ title: String, notes: String? = nil, day: Int = 1, transcript: Bool = false)
        -> Episode
    {
        Episode(
            title: title, guid: id, published: Self.day(day), description: notes,
            enclosure: Enclosure(url: "https://example.com/\(id).mp3"),
            transcripts: transcript ? [Transcript(url: "https://example.com/\(id).vtt", type: "text/vtt")] : [])
    }

    private static let show = [
        episode("wal", "Write-Ahead Logging", notes: "<p>We talk about <b>SQLite</b>&rsquo;s WAL &amp; checkpoints.</p>", day: 5),
        episode("cafe", "Café Résumé", notes: "<p>Caf&eacute; culture and a barista&rsquo;s r&eacute;sum&eacute;.</p>", day: 4),
        episode("bread", "Sourdough", notes: "Starters, flour and patience.", day: 3),
        episode("tokyo", "日本語ポッドキャスト", notes: "<p>東京 の 話</p>", day: 2),
        episode("light", "Lighthouses", notes: "Keepers of the coast.", day: 1),
    ]

    @discardableResult
    private func save(_ episodes: [Episode], in library: Library, feed: String = "https://example.com/feed") async throws -> SavedFeed {
        try await library.saveFeed(Feed(podcast: Podcast(title: "Loopback Show"), episodes: episodes), feedKey: feed)
    }

    /// Records `fixture` as a transcript saved beside the episode with this enclosure.
    private func saveTranscript(_ fixture: String, type: String, forEpisode id: String, in library: Library, file: String? = nil)
        async throws
    {
        try await library.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO download (enclosureURL, state, file, podcastTitle, episodeTitle, updatedAt)
                    VALUES (?, 'completed', ?, 'Loopback Show', ?, ?)
                    """,
                arguments: ["https://example.com/\(id).mp3", "/tmp/\(id).mp3", id, Date()])
        }
        let downloadID = try await library.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM download WHERE enclosureURL = ?", arguments: ["https://example.com/\(id).mp3"])!
        }
        let extra = Extra(kind: .transcript, url: "https://example.com/\(id).\(fixture.split(separator: ".").last!)", type: type)
        try await library.recordExtras(
            downloadID: downloadID, [ExtraFile(extra: extra, file: file ?? Fixtures.url("find/\(fixture)").path, bytes: 1)],
            offered: [])
    }

    private func find(_ words: String, in library: Library, places: Set<FindPlace> = Set(FindPlace.allCases)) async throws
        -> [String]
    {
        _ = try await library.updateFindIndex()
        return try await library.find(FindQuery([words]), in: places).results.map(\.entry.episode.title)
    }

    // MARK: - Matching rules

    @Test func everyWordMustMatchInAnyOrder() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        #expect(try await find("checkpoints sqlite", in: library) == ["Write-Ahead Logging"])
        #expect(try await find("sqlite sourdough", in: library) == [])
    }

    @Test func caseAndAccentsAreIgnoredBothWays() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        #expect(try await find("CAFE", in: library) == ["Café Résumé"])
        #expect(try await find("resume", in: library) == ["Café Résumé"])
        #expect(try await find("BARISTA’S", in: library) == ["Café Résumé"])
        #expect(try await find("wál", in: library) == ["Write-Ahead Logging"])
    }

    @Test func aPhraseMatchesItsWordsInARow() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        #expect(try await find("\"write ahead\"", in: library) == ["Write-Ahead Logging"])
        #expect(try await find("\"ahead write\"", in: library) == [])
        #expect(try await find("\"starters flour\"", in: library) == ["Sourdough"], "punctuation between is no word")
        #expect(try await find("\"flour patience\"", in: library) == [], "a word between breaks the phrase")
    }

    @Test func aStarMakesAPrefix() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        #expect(try await find("sourd*", in: library) == ["Sourdough"])
        #expect(try await find("sourd", in: library) == [])
        #expect(try await find("日本*", in: library) == ["日本語ポッドキャスト"])
        #expect(try await find("東京", in: library) == ["日本語ポッドキャスト"])
    }

    @Test func orMatchesEither() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        #expect(try await find("lighthouses OR sourdough", in: library) == ["Sourdough", "Lighthouses"])
        #expect(try await find("keepers lighthouses OR sourdough", in: library) == ["Lighthouses"])
    }

    @Test func placesAndAPodcastNarrowTheSearch() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        let other = try await save([Self.episode("x", "Sourdough again")], in: library, feed: "https://example.com/other")
        #expect(try await find("sourdough", in: library, places: [.notes]) == [])
        #expect(try await find("starters", in: library, places: [.notes, .transcript]) == ["Sourdough"])
        let mine = try await library.find(FindQuery(["sourdough"]), podcastID: other.podcast.id)
        #expect(mine.results.map(\.entry.episode.title) == ["Sourdough again"] && mine.total == 1)
    }

    @Test func aHostileQueryIsOnlyEverText() async throws {
        let library = try Library.inMemory()
        try await save(Self.show + [Self.episode("q", "Robert'); DROP TABLE episode;-- NEAR(x) {title}: \"quoted\"")], in: library)
        #expect(try await find("DROP TABLE episode", in: library) == ["Robert'); DROP TABLE episode;-- NEAR(x) {title}: \"quoted\""])
        #expect(try await find("NEAR(x", in: library).count == 1)
        #expect(try await find("{title}: quoted*", in: library).count == 1)
        #expect(try await find("title:sourdough", in: library) == [], "no column filter from the user")
        #expect(try await library.episodeCount(podcastID: 1) == 6)
    }

    // MARK: - Ranking

    @Test func aTitleWeighsMoreThanNotesMoreThanATranscriptAndTiesGoToTheNewest() async throws {
        let library = try Library.inMemory()
        try await save(
            [
                Self.episode("t", "Lighthouse keepers", day: 1),
                Self.episode("n", "Episode two", notes: "About lighthouse keepers.", day: 2),
                Self.episode("s", "Episode three", day: 9, transcript: true),
                Self.episode("old", "Episode four", notes: "Fog horns", day: 3),
                Self.episode("new", "Episode five", notes: "Fog horns", day: 4),
            ], in: library)
        try await saveTranscript("talk.html", type: "text/html", forEpisode: "s", in: library)
        #expect(try await find("lighthouses OR lighthouse", in: library) == ["Lighthouse keepers", "Episode two", "Episode three"])
        #expect(try await find("fog horns", in: library) == ["Episode five", "Episode four"])
    }

    // MARK: - Transcripts

    @Test(arguments: [
        ("talk.vtt", "text/vtt", "write-ahead", 754.5 as Double?),
        ("talk.srt", "application/x-subrip", "kaffeehauser", 187.25),
        ("talk.json", "application/json", "sourdough starter", 95.25),
        ("talk.html", "text/html", "fresnel", nil),
        ("talk.txt", "text/plain", "rooftop hives", nil),
    ])
    func aTranscriptMatchIsPlacedAtItsCue(fixture: String, type: String, words: String, at: Double?) async throws {
        let library = try Library.inMemory()
        try await save([Self.episode("e", "An episode", transcript: true)], in: library)
        try await saveTranscript(fixture, type: type, forEpisode: "e", in: library)
        #expect(try await library.updateFindIndex() == [])
        let found = try await library.find(FindQuery(words.split(separator: " ").map(String.init)))
        let result = try #require(found.results.first)
        #expect(result.matchedIn == .transcript && result.at == at)
        #expect(result.snippet.runs.contains { $0.isMatch }, "\(result.snippet)")
        #expect(try await library.foundMoments().map(\.at) == [at], "remembered for play --found")
    }

    @Test func anUnreadableTranscriptIsReportedOnceAndItsEpisodeStaysFindable() async throws {
        let library = try Library.inMemory()
        try await save([Self.episode("g", "Glaciers", transcript: true)], in: library)
        try await saveTranscript("not-a-transcript.vtt", type: "text/vtt", forEpisode: "g", in: library)
        let path = Fixtures.url("find/not-a-transcript.vtt").path
        #expect(try await library.updateFindIndex() == [UnreadableTranscript(file: path, reason: .notFormat("vtt"))])
        #expect(try await library.updateFindIndex() == [], "once")
        #expect(try await find("glaciers", in: library) == ["Glaciers"])
        #expect(try await find("glacier", in: library) == [], "its words are not indexed")
    }

    @Test func aDeletedTranscriptLeavesTheIndexAndItsWordsNeverMatchALaterDocument() async throws {
        let library = try Library.inMemory()
        try await save([Self.episode("e", "An episode", transcript: true)], in: library)
        // Removing extras deletes their files: a copy of the fixture's.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("find-\(UUID().uuidString).json")
        try Fixtures.data("find/talk.json").write(to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try await saveTranscript("talk.json", type: "application/json", forEpisode: "e", in: library, file: copy.path)
        // The transcript is indexed last: its documents hold the highest numbers.
        #expect(try await find("sourdough", in: library) == ["An episode"])
        try await library.removeExtras(ofDownload: 1)
        #expect(try await find("sourdough", in: library) == [])
        try await save([Self.episode("e", "An episode"), Self.episode("later", "A later one")], in: library)
        #expect(try await find("sourdough", in: library) == [])
        #expect(try await find("later", in: library) == ["A later one"])
    }

    // MARK: - Keeping in step

    @Test func anUpdateThatRemovesAndChangesEpisodesIsFollowed() async throws {
        let library = try Library.inMemory()
        try await save(Self.show, in: library)
        #expect(try await find("keepers", in: library) == ["Lighthouses"])
        #expect(try await find("checkpoints", in: library) == ["Write-Ahead Logging"])
        var changed = Self.show.dropLast()  // Lighthouses leaves the feed
        changed[0].description = "<p>Now about vacuum and page sizes.</p>"
        changed[1].title = "Café Résumé, remastered"
        try await save(Array(changed), in: library)
        #expect(try await find("keepers", in: library) == [])
        #expect(try await find("checkpoints", in: library) == [])
        #expect(try await find("vacuum", in: library) == ["Write-Ahead Logging"])
        #expect(try await find("remastered barista", in: library) == ["Café Résumé, remastered"])
        #expect(try await find("sourdough", in: library) == ["Sourdough"])
        try await save(Self.show, in: library)  // back in the feed
        #expect(try await find("keepers", in: library) == ["Lighthouses"])
    }

    /// A library folder whose database was migrated up to `migration` only, holding a podcast
    /// of two episodes, "Tide tables" and "Harbours", with these notes, and then `rows`.
    private func oldLibrary(upTo migration: String, notes: (String, String), rows: String = "") async throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("find-old-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: directory.appendingPathComponent("library.sqlite").path)
        try Library.migrator.migrate(old, upTo: migration)
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO podcast (id, feedKey, title) VALUES (1, 'https://a.example/feed', 'Old Show');
                    INSERT INTO episode (id, podcastId, identity, position, title, description, published) VALUES
                      (1, 1, 'a', 1, 'Tide tables', ?, 1700000000), (2, 1, 'b', 2, 'Harbours', ?, 1600000000);
                    """, arguments: [notes.0, notes.1])
            try db.execute(sql: rows)
        }
        try old.close()
        return directory
    }

    @Test func anIndexFromBeforeDocumentNumbersIsKeptAndFollowed() async throws {
        // Indexed as the numbering by AUTOINCREMENT did, with words only the index holds.
        let directory = try await oldLibrary(
            upTo: "v12-podcast-counts", notes: ("Moon", "Boats"),
            rows: """
                INSERT INTO findDocument (episodeId, podcastId, published, unlisted) VALUES (1, 1, 1700000000, 0);
                INSERT INTO findText (rowid, title, notes) VALUES (last_insert_rowid(), 'Tide tables', 'lunar');
                INSERT INTO findDocument (episodeId, podcastId, published, unlisted) VALUES (2, 1, 1600000000, 0);
                INSERT INTO findText (rowid, title, notes) VALUES (last_insert_rowid(), 'Harbours', 'lunar quays');
                INSERT INTO setting (key, value) VALUES ('findIndexedThrough', '2');
                """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await Library.open(directory: directory)
        #expect(try await find("lunar", in: library) == ["Tide tables", "Harbours"])
        try await library.writer.write { db in try db.execute(sql: "DELETE FROM episode WHERE id = 1") }
        #expect(try await find("lunar", in: library) == ["Harbours"])
        try await library.close()
    }

    @Test func aLibraryFromBeforeTheIndexIsIndexedOnFirstUse() async throws {
        let directory = try await oldLibrary(
            upTo: "v9-deleted-downloads", notes: ("<p>Moon &amp; sea</p>", "Boats and the moon"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await Library.open(directory: directory)
        #expect(try await find("moon", in: library) == ["Tide tables", "Harbours"])
        try await library.close()
    }

    @Test func anInterruptedIndexingKeepsWhatItDidAndTheNextGoesOn() async throws {
        let library = try Library.inMemory()
        let count = FindIndex.batchSize * 3 + 7
        try await save((1...count).map { Self.episode("e\($0)", "Episode \($0)", notes: "<p>Common words, number \($0).</p>") }, in: library)
        let first = Task {
            try await library.updateFindIndex { progress in
                if progress.done >= FindIndex.batchSize { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: CancellationError.self) { try await first.value }
        let seen = Mutex<[FindIndexProgress]>([])
        _ = try await library.updateFindIndex { progress in seen.withLock { $0.append(progress) } }
        let total = try #require(seen.withLock { $0.first?.total })
        #expect(total < count && total >= count - 2 * FindIndex.batchSize, "the first batches were kept")
        let found = try await library.find(FindQuery(["common", "words"]), limit: 1)
        #expect(found.total == count)
        let indexed = try await library.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM findDocument") }
        #expect(indexed == count, "none twice")
    }
}
