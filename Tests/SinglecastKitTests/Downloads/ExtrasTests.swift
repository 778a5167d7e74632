import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct ExtrasTests {
    private func episodes() throws -> [Episode] {
        try FeedParser.parse(
            Fixtures.data("feeds/podcasting20-extras.xml"), baseURL: URL(string: "https://example.com/podcast/feed.xml"),
            source: "podcasting20-extras.xml"
        ).episodes
    }

    @Test func chaptersAndThePreferredFormatOfEachLanguage() throws {
        let offered = Extra.offered(by: try episodes()[0])
        #expect(
            offered == [
                Extra(kind: .chapters, url: "https://example.com/ep1-chapters.json", type: "application/json+chapters"),
                // VTT over JSON over text for English.
                Extra(kind: .transcript, url: "https://example.com/ep1.vtt", type: "text/vtt", language: "en"),
                // SRT over HTML for German, whatever the case of the language code; the PDF is no transcript format.
                Extra(
                    kind: .transcript, url: "https://example.com/podcast/transcripts/ep1-de.srt", type: "application/x-subrip",
                    language: "de"),
            ])
    }

    @Test func aTranscriptWithoutTypeTakesItsFormatFromItsURL() throws {
        #expect(Extra.offered(by: try episodes()[1]) == [Extra(kind: .transcript, url: "https://example.com/ep2.srt")])
        #expect(Extra.offered(by: Episode(title: "x", transcripts: [Transcript(url: "https://h/t.php")])).isEmpty)
    }

    struct NameCase: Sendable, CustomTestStringConvertible {
        var extra: Extra
        var episodeFile: String
        var expected: String
        var testDescription: String { expected }
    }

    static let names: [NameCase] = [
        NameCase(extra: Extra(kind: .chapters, url: "https://h/c.json"), episodeFile: "/E/Show/Title.mp3", expected: "/E/Show/Title.chapters.json"),
        NameCase(
            extra: Extra(kind: .transcript, url: "https://h/t", type: "text/vtt", language: "en"),
            episodeFile: "/E/Show/Title.mp3", expected: "/E/Show/Title.en.vtt"),
        NameCase(
            extra: Extra(kind: .transcript, url: "https://h/t", type: "application/srt", language: "pt-BR"),
            episodeFile: "/E/Show/Title.m4a", expected: "/E/Show/Title.pt-br.srt"),
        NameCase(
            extra: Extra(kind: .transcript, url: "https://h/t", type: "text/plain; charset=utf-8"),
            episodeFile: "/E/Show/Title.mp3", expected: "/E/Show/Title.txt"),
        NameCase(
            extra: Extra(kind: .transcript, url: "https://h/t", type: "application/json", language: "../../x y"),
            episodeFile: "/E/Show/Title.mp3", expected: "/E/Show/Title.xy.json"),
        // A title that ends like an extension keeps it: only media extensions are dropped.
        NameCase(
            extra: Extra(kind: .transcript, url: "https://h/t", type: "text/html", language: "en"),
            episodeFile: "/E/Show/Version 2.0", expected: "/E/Show/Version 2.0.en.html"),
        // A language that would read as the chapters file is left out of the name.
        NameCase(
            extra: Extra(kind: .transcript, url: "https://h/t", type: "application/json", language: "chapters"),
            episodeFile: "/E/Show/Title.mp3", expected: "/E/Show/Title.json"),
    ]

    @Test(arguments: names) func extrasAreNamedAfterTheEpisodeFile(_ item: NameCase) {
        #expect(EpisodesFolder.extraFile(item.extra, besideEpisodeFile: item.episodeFile) == item.expected)
    }
}

/// An extra's failure is stored as a value, as a download's is, and read back whole; a sentence
/// an earlier version stored reads as an unexpected failure.
@Suite struct ExtraErrorValueTests {
    static let url = "https://h/en.vtt"

    static let cases: [(ExtraError.Reason, String)] = [
        (.notAURL, "not-a-url"),
        (.http(HTTPError(.status(404), url: URL(string: url)!)), "http-status"),
        (.http(HTTPError(.readTimeout, url: URL(string: url)!)), "read-timeout"),
        (.htmlPage, "html-instead-of-media"),
        (.notChapters, "not-chapters"),
        (.fileSystem(operation: .write, path: "/x/Title.en.vtt.part", errno: 28), "file-system"),
        (.unexpected("odd"), "unexpected"),
    ]

    @Test(arguments: cases)
    func everyKindIsReadBackWhole(reason: ExtraError.Reason, kind: String) throws {
        let error = ExtraError(reason, url: Self.url)
        #expect(error.kind == kind)
        let data = try JSONEncoder().encode(error)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["kind"] as? String == kind)
        #expect(try JSONDecoder().decode(ExtraError.self, from: data) == error)
    }

    @Test func theLibraryStoresTheValueAndReadsOldSentencesAsUnexpected() async throws {
        let show = try await ClaimedShow.make(titles: ["Ep"])
        defer { show.remove() }
        let id = show.downloads["Ep"]!.id
        let extra = Extra(kind: .transcript, url: Self.url, type: "text/vtt", language: "en")
        let failure = ExtraError(.http(HTTPError(.status(404), url: URL(string: Self.url)!)), url: Self.url)
        try await show.library.recordExtras(
            downloadID: id, [ExtraFile(extra: extra, file: "/x/Ep.en.vtt", failure: failure)], offered: ["/x/Ep.en.vtt"])
        #expect(try await show.library.extrasByDownload()[id]?.first?.failure == failure)

        // What an earlier version stored: a sentence.
        #expect(ExtraError.stored("https://h/en.vtt answered HTTP 404 Not Found", url: Self.url).reason
            == .unexpected("https://h/en.vtt answered HTTP 404 Not Found"))
    }
}
