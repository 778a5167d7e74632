import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite("EpisodesFolder", .timeLimit(.minutes(1)))
struct EpisodesFolderTests {
    static func request(_ url: String, title: String = "Title", type: String? = "audio/mpeg") -> DownloadRequest {
        let enclosure = Enclosure(url: url, type: type)
        return DownloadRequest(podcastTitle: "Show", episode: Episode(title: title, enclosure: enclosure), enclosure: enclosure)
    }

    static func tag(_ url: String) -> String { FileNaming.clashTag(forEnclosureURL: url) }
    static let folder = EpisodesFolder(libraryDirectory: URL(fileURLWithPath: "/library"))

    // MARK: - Reserving a name

    @Test func episodesSharingATitleGetTheirOwnTaggedNames() {
        let one = Self.request("http://h/1.mp3")
        let two = Self.request("http://h/2.mp3")
        #expect(Self.folder.reserveName(for: one, inUse: [], present: []) == "Title.mp3")
        #expect(Self.folder.reserveName(for: two, inUse: ["Title.mp3"], present: []) == "Title\(Self.tag("http://h/2.mp3")).mp3")
        // The same episode gets the same name whoever asks first.
        #expect(Self.folder.reserveName(for: one, inUse: ["Title.mp3"], present: [])
            == "Title\(Self.tag("http://h/1.mp3")).mp3")
    }

    @Test func aNameWithoutExtensionClashesWithAnyFileOfItsStem() {
        let bare = Self.request("http://h/download?id=3", type: nil)
        #expect(Self.folder.reserveName(for: bare, inUse: [], present: []) == "Title")
        #expect(Self.folder.reserveName(for: bare, inUse: ["Title.mp3"], present: [])
            == "Title\(Self.tag("http://h/download?id=3"))")
        #expect(Self.folder.reserveName(for: bare, inUse: [], present: ["Title.m4a"])
            == "Title\(Self.tag("http://h/download?id=3"))")
        // And a name with an extension clashes with a download whose extension is still to come.
        #expect(Self.folder.reserveName(for: Self.request("http://h/1.mp3"), inUse: ["Title"], present: [])
            == "Title\(Self.tag("http://h/1.mp3")).mp3")
    }

    @Test func bothCandidatesTakenIsNumberedWithinTheLimit() {
        let long = String(repeating: "x", count: 300)
        let request = Self.request("http://h/a.mp3", title: long)
        let candidates = Self.folder.candidateNames(for: request.episode, enclosure: request.enclosure, podcastTitle: request.podcastTitle)
        let name = Self.folder.reserveName(for: request, inUse: Set(candidates), present: [])
        #expect(name.hasSuffix(" (2).mp3"))
        #expect(name.utf8.count <= FileNaming.maximumNameBytes)
        #expect(candidates.allSatisfy { $0.utf8.count <= FileNaming.maximumNameBytes })
    }

    @Test func theExtensionAtCompletionIsAddedOnlyToANameWithoutOne() {
        let bare = URL(fileURLWithPath: "/x/Ep. 12 The Start")
        #expect(EpisodesFolder.finalFile(reserved: bare, contentType: "audio/x-m4a", announcedType: nil).lastPathComponent
            == "Ep. 12 The Start.m4a")
        #expect(EpisodesFolder.finalFile(reserved: bare, contentType: nil, announcedType: "audio/mpeg").lastPathComponent
            == "Ep. 12 The Start.mp3")
        #expect(EpisodesFolder.finalFile(reserved: bare, contentType: "text/plain", announcedType: nil) == bare)
        let named = URL(fileURLWithPath: "/x/Ep.mp3")
        #expect(EpisodesFolder.finalFile(reserved: named, contentType: "audio/ogg", announcedType: nil) == named)
    }

    // MARK: - The move into place

    @Test func theMoveNeverReplacesAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let part = directory.appendingPathComponent("b.mp3.part")
        let final = directory.appendingPathComponent("a.mp3")
        try Data("theirs".utf8).write(to: final)
        try Data("mine".utf8).write(to: part)

        #expect(EpisodesFolder.moveIntoPlace(part, to: final) == EEXIST)
        #expect(try Data(contentsOf: final) == Data("theirs".utf8))
        #expect(try Data(contentsOf: part) == Data("mine".utf8))

        let free = directory.appendingPathComponent("b.mp3")
        #expect(EpisodesFolder.moveIntoPlace(part, to: free) == nil)
        #expect(try Data(contentsOf: free) == Data("mine".utf8))
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    // MARK: - Re-adopting after a lost database

    @Test func taggedNamesAreAdoptedAndThePlainNameByElimination() {
        let urls = ["http://h/1.mp3", "http://h/2.mp3", "http://h/3"]
        let episodes = urls.map { url in
            let enclosure = Enclosure(url: url, type: url.hasSuffix(".mp3") ? "audio/mpeg" : nil)
            return (Episode(title: "Title", enclosure: enclosure), enclosure)
        }
        let files = ["Title.mp3", "Title\(Self.tag(urls[1])).mp3", "Title\(Self.tag(urls[2])).mp3", "Title.chapters.json",
                     "Other.mp3.part"]
        let adopted = Self.folder.adoptions(files: files, inUse: [], episodes: episodes, podcastTitle: "Show")
        #expect(adopted == [urls[0]: "Title.mp3", urls[1]: files[1], urls[2]: files[2]])
    }

    @Test func aPlainNameSeveralEpisodesCouldHaveIsNotAdopted() {
        let episodes = ["http://h/1.mp3", "http://h/2.mp3"].map { url in
            let enclosure = Enclosure(url: url, type: "audio/mpeg")
            return (Episode(title: "Title", enclosure: enclosure), enclosure)
        }
        #expect(Self.folder.adoptions(files: ["Title.mp3"], inUse: [], episodes: episodes, podcastTitle: "Show").isEmpty)
        // Once one of them is downloaded under its own name, the plain name is the other's.
        let tagged = "Title\(Self.tag("http://h/1.mp3")).mp3"
        #expect(Self.folder.adoptions(files: ["Title.mp3"], inUse: [tagged], episodes: Array(episodes.suffix(1)), podcastTitle: "Show")
            == ["http://h/2.mp3": "Title.mp3"])
        // A file another entry has is never adopted.
        #expect(Self.folder.adoptions(files: ["Title.mp3"], inUse: ["Title.mp3"], episodes: Array(episodes.suffix(1)), podcastTitle: "Show").isEmpty)
    }

    // MARK: - The issue's scenario, end to end

    /// Three episodes of one feed share a title; the third's enclosure has neither an extension
    /// nor a type, so its extension comes from the server's `Content-Type`. Each ends with its
    /// own bytes; after the database is lost, the rebuild gives each its own file back.
    @Test func threeEpisodesSharingATitleKeepTheirOwnFilesThroughALostDatabase() async throws {
        try await TransferHarness.run { h in
            let bodies = (1...3).map { TransferHarness.sample(3_000 + $0 * 100, offset: Int64($0) * 7_919) }
            h.server.serve(path: "/1.mp3", data: bodies[0], contentType: "audio/mpeg")
            h.server.serve(path: "/2.mp3", data: bodies[1], contentType: "audio/mpeg")
            h.server.serve(path: "/download", data: bodies[2], contentType: "audio/mpeg")
            let enclosures = [
                Enclosure(url: h.server.url("/1.mp3").absoluteString, type: "audio/mpeg"),
                Enclosure(url: h.server.url("/2.mp3").absoluteString, type: "audio/mpeg"),
                Enclosure(url: h.server.url("/download?id=3").absoluteString, type: nil),
            ]
            let feed = Feed(
                podcast: Podcast(title: "Show"),
                episodes: enclosures.enumerated().map { index, enclosure in
                    Episode(title: "Title", guid: "g\(index)", enclosure: enclosure)
                })
            let episodes = EpisodesFolder(libraryDirectory: h.directory)

            let library = try Library.inMemory()
            let podcast = try await library.saveFeed(feed, feedKey: "http://h/feed.xml").podcast
            let buffer = ProgressBuffer(library: library, episodes: episodes)
            let engine = DownloadEngine(buffer: buffer, transfer: h.transfer, maximumConcurrentDownloads: 3)
            let requests = try await library.episodes(podcastID: podcast.id).map { entry in
                DownloadRequest(podcastTitle: "Show", episode: entry.episode, enclosure: entry.episode.enclosure!)
            }
            try await engine.enqueue(requests)
            await engine.waitUntilIdle()

            var files: [String: String] = [:]
            for (enclosure, body) in zip(enclosures, bodies) {
                let download = try #require(try await library.download(enclosureURL: enclosure.url))
                #expect(download.state == .completed)
                #expect(try Data(contentsOf: URL(fileURLWithPath: download.file)) == body)
                files[enclosure.url] = download.file
            }
            #expect(Set(files.values).count == 3)

            // The database is lost: a new library, the same Episodes folder.
            let rebuilt = try Library.inMemory()
            let again = try await rebuilt.saveFeed(feed, feedKey: "http://h/feed.xml").podcast
            let rebuiltBuffer = ProgressBuffer(library: rebuilt, episodes: episodes)
            try await rebuiltBuffer.adoptCompleteFiles(of: again)
            for (enclosure, request) in zip(enclosures, requests) {
                let claim = try await rebuiltBuffer.claim(request)
                guard case .alreadyDownloaded(let download) = claim else {
                    Issue.record("expected .alreadyDownloaded, got \(claim)")
                    continue
                }
                #expect(download.file == files[enclosure.url])
            }
            #expect(h.server.requests.count == 3)
        }
    }
}
