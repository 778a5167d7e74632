import Foundation
import SinglecastKit
import Testing
import TestSupport

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

    @Test func aFailureNeverShowsTheURLsPassword() throws {
        let url = "https://user:secret@example.com/ep1.vtt"
        let reasons: [ExtraError.Reason] = [
            .notAURL, .htmlPage, .notChapters, .http(HTTPError(.status(404), url: try #require(URL(string: url)))),
        ]
        for reason in reasons {
            let message = try #require(ExtraError(reason, url: url).errorDescription)
            #expect(!message.contains("secret"), "\(message)")
            #expect(message.contains("user:***@example.com"), "\(message)")
        }
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
