import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite("Extras", .timeLimit(.minutes(1)))
struct ExtrasFetcherTests {
    private static let audioSize: Int64 = 50_000

    @Test func savesTheChaptersAndThePreferredTranscriptOfEachLanguageBesideTheEpisode() async throws {
        try await EngineHarness.run(limit: 3) { h in
            try h.serveExtras()
            try await h.engine.enqueue([h.request(withExtras: true)])
            await h.engine.waitUntilIdle()

            let download = try #require(try await h.library.downloads().first)
            #expect(download.state == .completed)
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.mp3")) == TestServer.generatedBytes(offset: 0, count: Int(Self.audioSize)))
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.chapters.json")) == Fixtures.data("extras/chapters.json"))
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.en.vtt")) == Fixtures.data("extras/transcript.en.vtt"))
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.de.srt")) == Fixtures.data("extras/transcript.de.srt"))
            #expect(try h.filesInShowFolder() == ["Title.chapters.json", "Title.de.srt", "Title.en.vtt", "Title.mp3"])
            #expect(!h.server.requests.contains { $0.path == "/en.txt" }, "the VTT is preferred to the text")

            let reported = h.log.extras
            #expect(reported.map(\.file) == [h.showFolder.appendingPathComponent("Title.chapters.json").path, h.showFolder.appendingPathComponent("Title.en.vtt").path, h.showFolder.appendingPathComponent("Title.de.srt").path])
            #expect(reported.allSatisfy { $0.isSaved })
            #expect(reported.map(\.bytes) == [
                try Int64(Fixtures.data("extras/chapters.json").count), try Int64(Fixtures.data("extras/transcript.en.vtt").count),
                try Int64(Fixtures.data("extras/transcript.de.srt").count),
            ])
            #expect(try await h.library.extrasByDownload()[download.id] == reported)
        }
    }

    @Test func withoutTheFlagOrASubscriptionAskingNoExtraIsFetched() async throws {
        try await EngineHarness.run(limit: 3) { h in
            try h.serveExtras()
            try await h.engine.enqueue([h.request(withExtras: false)])
            await h.engine.waitUntilIdle()
            #expect(try h.filesInShowFolder() == ["Title.mp3"])
            #expect(h.server.requests.map(\.path) == ["/ep.mp3"])
            #expect(h.log.extras.isEmpty)
        }
    }

    @Test func aFailingExtraWarnsTheEpisodeCompletesAndTheNextDownloadRetriesOnlyIt() async throws {
        // The stall lasts until the client goes: only the read timeout ends it (an extra is tried
        // once). The episode's own transfer, should a loaded machine stall it past the timeout
        // too, is tried again until it is through.
        let patient = FileTransfer.RetryPolicy(giveUpAfter: .seconds(40), baseDelay: .milliseconds(10), growth: 2, maxDelay: .seconds(1))
        try await EngineHarness.run(limit: 3, readTimeout: .seconds(3), retryPolicy: patient) { h in
            try h.serveExtras()
            h.server.addFaults([.notFound], for: "/de.srt")
            h.server.addFaults([.stall(afterBytes: 10, seconds: 600)], for: "/en.vtt")
            try await h.engine.enqueue([h.request(withExtras: true)])
            await h.engine.waitUntilIdle()

            let download = try #require(try await h.library.downloads().first)
            #expect(download.state == .completed)
            #expect(h.log.failed.isEmpty)
            let first = h.log.extras
            #expect(first.map(\.isSaved) == [true, false, false])
            #expect(first[1].failure?.reason == .http(HTTPError(.readTimeout, url: h.server.url("/en.vtt"))))
            #expect(first[1].failure?.kind == "read-timeout")
            #expect(first[2].failure?.reason == .http(HTTPError(.status(404), url: h.server.url("/de.srt"))))
            #expect(first[2].failure?.kind == "http-status")
            #expect(try h.filesInShowFolder() == ["Title.chapters.json", "Title.mp3"], "no partial extra is left")
            #expect(try await h.library.extrasByDownload()[download.id]?.map(\.isSaved) == [true, false, false])

            h.server.clearRequests()
            h.log.clear()
            try await h.engine.enqueue([h.request(withExtras: true)])
            await h.engine.waitUntilIdle()
            #expect(h.log.lifecycle == ["alreadyDownloaded \(download.id)", "extras \(download.id)"])
            #expect(Set(h.server.requests.map(\.path)) == ["/en.vtt", "/de.srt"], "only the missing extras")
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.en.vtt")) == Fixtures.data("extras/transcript.en.vtt"))
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.de.srt")) == Fixtures.data("extras/transcript.de.srt"))
            #expect(try await h.library.extrasByDownload()[download.id]?.allSatisfy { $0.isSaved } == true)

            // Complete: a third download asks nothing of the server.
            h.server.clearRequests()
            h.log.clear()
            try await h.engine.enqueue([h.request(withExtras: true)])
            await h.engine.waitUntilIdle()
            #expect(h.server.requests.isEmpty)
            #expect(h.log.lifecycle == ["alreadyDownloaded \(download.id)"])
        }
    }

    @Test func anHTMLPageAnOversizedFileAndChaptersThatAreNotJSONAreRefused() async throws {
        try await EngineHarness.run(limit: 3) { h in
            try h.serveExtras()
            h.server.addFaults([.htmlPage], for: "/en.vtt")
            h.server.serve(path: "/de.srt", generatedSize: Int64(ExtrasFetcher.maximumBytes) + 1, contentType: "application/x-subrip")
            h.server.serve(path: "/chapters.json", data: try Fixtures.data("extras/not-chapters.txt"), contentType: "application/json")
            try await h.engine.enqueue([h.request(withExtras: true)])
            await h.engine.waitUntilIdle()

            #expect(try await h.library.downloads().first?.state == .completed)
            #expect(h.log.extras.map(\.failure?.kind) == ["not-chapters", "html-instead-of-media", "body-too-large"])
            #expect(h.log.extras.map(\.failure?.reason) == [
                .notChapters, .htmlPage, .http(HTTPError(.bodyTooLarge(10 * 1_048_576), url: h.server.url("/de.srt"))),
            ])
            #expect(h.log.extras.map(\.failure?.url) == ["/chapters.json", "/en.vtt", "/de.srt"].map { h.server.url($0).absoluteString })
            #expect(try h.filesInShowFolder() == ["Title.mp3"])
        }
    }

    @Test func anHTMLTranscriptIsAnHTMLPageByDesign() async throws {
        try await EngineHarness.run(limit: 3) { h in
            try h.serveExtras()
            h.server.serve(path: "/en.html", data: try Fixtures.data("extras/transcript.en.html"), contentType: "text/html; charset=utf-8")
            var episode = h.episode(title: "Title", path: "/ep.mp3")
            episode.chaptersURL = nil
            episode.transcripts = [Transcript(url: h.server.url("/en.html").absoluteString, type: "text/html", language: "en")]
            try await h.engine.enqueue([h.request(withExtras: true, episode: episode)])
            await h.engine.waitUntilIdle()
            #expect(try h.filesInShowFolder() == ["Title.en.html", "Title.mp3"])
            #expect(try Data(contentsOf: h.showFolder.appendingPathComponent("Title.en.html")) == Fixtures.data("extras/transcript.en.html"))
        }
    }

    @Test func deletingAnEpisodeRemovesItsExtras() async throws {
        try await EngineHarness.run(limit: 3) { h in
            try h.serveExtras()
            let saved = try await h.library.saveFeed(
                Feed(podcast: Podcast(title: "Show"), episodes: [h.episode(title: "Title", path: "/ep.mp3")]),
                feedKey: h.server.url("/feed.xml").absoluteString)
            try await h.engine.enqueue([h.request(withExtras: true)])
            await h.engine.waitUntilIdle()
            #expect(try h.filesInShowFolder().count == 4)

            let entries = try await h.library.episodes(podcastID: saved.podcast.id)
            let deleted = try await h.buffer.deleteFiles(of: entries)
            #expect(deleted.count == 1)
            #expect(try h.filesInShowFolder().isEmpty)
            #expect(try await h.library.extrasByDownload().isEmpty)
        }
    }

    @Test func aSubscriptionAskingForExtrasGetsThemAndRetentionRemovesThemWithTheFile() async throws {
        try await EngineHarness.run(limit: 3) { h in
            try h.serveExtras()
            h.server.serve(path: "/new.mp3", generatedSize: Self.audioSize, contentType: "audio/mpeg")
            let older = h.episode(title: "Title", path: "/ep.mp3", published: Date(timeIntervalSince1970: 1_000_000))
            let newer = h.episode(title: "Newer", path: "/new.mp3", published: Date(timeIntervalSince1970: 2_000_000))
            let saved = try await h.library.saveFeed(
                Feed(podcast: Podcast(title: "Show"), episodes: [newer, older]), feedKey: h.server.url("/feed.xml").absoluteString)
            try await h.library.subscribe(podcastID: saved.podcast.id, keep: .mostRecent(1), autoDownload: .new)
            try await h.library.setExtras(podcastID: saved.podcast.id, enabled: true)

            // Requests as `update --download` makes them: without the flag, fetched by the update.
            var olderRequest = h.request(withExtras: false, episode: older)
            olderRequest.fetchedByUpdate = true
            try await h.engine.enqueue([olderRequest])
            await h.engine.waitUntilIdle()
            #expect(try h.filesInShowFolder() == ["Title.chapters.json", "Title.de.srt", "Title.en.vtt", "Title.mp3"])

            try await h.engine.enqueue([h.request(withExtras: false, episode: newer)])
            await h.engine.waitUntilIdle()
            #expect(h.log.deletedByRetention.map(\.episodeTitle) == ["Title"])
            #expect(
                try h.filesInShowFolder() == ["Newer.chapters.json", "Newer.de.srt", "Newer.en.vtt", "Newer.mp3"],
                "the older episode's extras went with its file")
            let remaining = try await h.library.extrasByDownload()
            #expect(remaining.count == 1)
            #expect(remaining.values.first?.allSatisfy { $0.file.contains("/Newer.") } == true)
        }
    }
}

/// The episode and extras these tests serve, on the engine harness.
private extension EngineHarness {
    /// Serves `/ep.mp3` and the extras of ``episode(title:path:published:)``.
    func serveExtras() throws {
        server.serve(path: "/ep.mp3", generatedSize: 50_000, contentType: "audio/mpeg")
        server.serve(path: "/chapters.json", data: try Fixtures.data("extras/chapters.json"), contentType: "application/json+chapters")
        server.serve(path: "/en.txt", data: try Fixtures.data("extras/transcript.en.txt"), contentType: "text/plain")
        server.serve(path: "/en.vtt", data: try Fixtures.data("extras/transcript.en.vtt"), contentType: "text/vtt")
        server.serve(path: "/de.srt", data: try Fixtures.data("extras/transcript.de.srt"), contentType: "application/x-subrip")
    }

    /// An episode with chapters, an English transcript as text and as VTT, and a German one as SRT.
    func episode(title: String, path: String, published: Date? = nil) -> Episode {
        Episode(
            title: title, guid: title, published: published,
            enclosure: Enclosure(url: server.url(path).absoluteString, type: "audio/mpeg"),
            transcripts: [
                Transcript(url: server.url("/en.txt").absoluteString, type: "text/plain", language: "en"),
                Transcript(url: server.url("/en.vtt").absoluteString, type: "text/vtt", language: "en"),
                Transcript(url: server.url("/de.srt").absoluteString, type: "application/x-subrip", language: "de"),
            ],
            chaptersURL: server.url("/chapters.json").absoluteString)
    }

    func request(withExtras: Bool, episode: Episode? = nil) -> DownloadRequest {
        let episode = episode ?? self.episode(title: "Title", path: "/ep.mp3")
        return DownloadRequest(podcastTitle: "Show", episode: episode, enclosure: episode.enclosure!, withExtras: withExtras)
    }
}
