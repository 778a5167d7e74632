import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct OPMLTests {
    private func read(_ name: String) async throws -> OPMLDocument {
        try await OPMLReader.read(file: Fixtures.url("opml/\(name)"))
    }

    private func urls(_ document: OPMLDocument) -> [String] {
        document.entries.map(\.feedURL.absoluteString)
    }

    @Test func readsWhatGPodderWrote() async throws {
        let document = try await read("gpodder-3.11-export.opml")
        #expect(document.title == "gPodder subscriptions")
        #expect(urls(document) == ["alpha", "beta", "gamma"].map { "http://127.0.0.1:18777/\($0).xml?src=opml&x=1" })
        #expect(document.entries.map(\.title) == ["Show Alpha & Friends", "Show Beta & Friends", "Show Gamma & Friends"])
        #expect(document.problems.isEmpty)
    }

    @Test func readsWhatNewsboatWrote() async throws {
        let document = try await read("newsboat-2.21-export.opml")
        #expect(urls(document) == [
            "http://127.0.0.1:18777/alpha.xml?src=opml&x=1", "http://127.0.0.1:18777/beta.xml", "http://127.0.0.1:18777/gamma.xml",
        ])
        #expect(document.problems.isEmpty)
    }

    @Test func walksIntoCategoryOutlines() async throws {
        let document = try await read("nested-categories.opml")
        #expect(urls(document) == ["https://example.com/swift.xml", "https://example.com/linux.xml", "https://example.com/top.xml"])
        #expect(document.entries.map(\.line) == [6, 8, 11])
        #expect(document.problems.isEmpty)
    }

    @Test func takesURLAndAttributeNamesInAnyCase() async throws {
        let document = try await read("url-attribute.opml")
        #expect(urls(document) == ["https://example.com/url.xml", "https://example.com/upper.xml"])
        #expect(document.entries.map(\.title) == ["Written with url", "Upper-case names"])
    }

    @Test func keepsTheFirstOfDuplicates() async throws {
        let document = try await read("duplicates.opml")
        #expect(urls(document) == ["https://example.com/feed.xml", "https://example.com/other/"])
        #expect(document.problems.map(\.kind) == [.duplicate(firstLine: 4), .duplicate(firstLine: 4), .duplicate(firstLine: 7)])
        #expect(document.problems.map(\.line) == [5, 6, 8])
    }

    @Test func reportsUnusableOutlinesByLineAndKeepsTheRest() async throws {
        let document = try await read("unusable-urls.opml")
        #expect(urls(document) == ["https://example.com/good.xml"])
        #expect(document.problems == [
            OPMLProblem(kind: .relativeURL, line: 4, title: "Relative", url: "feeds/show.xml"),
            OPMLProblem(kind: .unsupportedScheme, line: 5, title: "FTP", url: "ftp://example.com/show.xml"),
            OPMLProblem(kind: .unsupportedScheme, line: 6, title: "Script", url: "javascript:alert(1)"),
            OPMLProblem(kind: .missingURL, line: 7, title: "No URL", url: nil),
        ])
    }

    @Test func anEmptyListIsNotAnError() async throws {
        let document = try await read("no-outlines.opml")
        #expect(document.title == "Nothing here")
        #expect(document.entries.isEmpty && document.problems.isEmpty)
    }

    @Test(arguments: [
        ("empty.opml", OPMLError.Reason.empty),
        ("not-opml-rss.xml", .notOPML(root: "rss")),
    ])
    func filesThatAreNotUsableOPMLAreErrorsNamingThem(name: String, reason: OPMLError.Reason) async throws {
        let path = Fixtures.url("opml/\(name)").path
        do {
            _ = try await read(name)
            Issue.record("\(name) was accepted")
        } catch let error as OPMLError {
            #expect(error.source == path)
            #expect(error.reason == reason)
        }
    }

    @Test func anInternalDTDCostsOnlyTheOutlinesUsingItsEntities() async throws {
        let document = try await read("internal-dtd-entities.opml")
        #expect(document.title == "Entities & friends")
        // An entity in a title costs only the title; one in a URL costs the outline.
        #expect(
            urls(document) == ["https://example.com/first.xml?a=1&b=2", "https://example.com/laughs.xml", "https://example.com/last.xml"])
        #expect(document.entries.map(\.title) == ["First & fine", nil, "Last, fine"])
        #expect(document.entries.map(\.line) == [16, 17, 20])
        #expect(
            document.problems == [
                OPMLProblem(kind: .unreadableTitle(entity: "h"), line: 17, title: nil, url: "https://example.com/laughs.xml"),
                OPMLProblem(kind: .undefinedEntity(name: "host"), line: 18, title: "Host from the DTD", url: nil),
                OPMLProblem(kind: .unsupportedScheme, line: 19, title: "Script", url: "javascript:alert(1)"),
            ])
    }

    @Test(arguments: [("billion-laughs.opml", 11, "g"), ("external-entity.opml", 3, "secret")])
    func anEntityTheFileDefinesIsNeverExpanded(name: String, line: Int, entity: String) async throws {
        let document = try await read(name)
        #expect(urls(document) == ["https://example.com/feed.xml"], "the URL is whole; only the title used the entity")
        #expect(document.entries.map(\.title) == [nil])
        #expect(
            document.problems == [
                OPMLProblem(kind: .unreadableTitle(entity: entity), line: line, title: nil, url: "https://example.com/feed.xml")
            ])
    }

    @Test func anExternalDTDIsNeverLoaded() async throws {
        let document = try await read("external-dtd.opml")
        #expect(urls(document) == ["https://example.com/feed.xml"])
    }

    @Test func aMissingFileNamesThePath() async {
        await #expect(throws: OPMLError.unreadable(source: "/nonexistent.opml", errno: ENOENT)) {
            try await OPMLReader.read(file: URL(fileURLWithPath: "/nonexistent.opml"))
        }
    }

    @Test func thousandsOfEntries() throws {
        let outlines = (1...5000).map { #"<outline text="Show \#($0)" xmlUrl="https://example.com/\#($0).xml"/>"# }
        let data = Data(("<opml version=\"2.0\"><body>\n" + outlines.joined(separator: "\n") + "\n</body></opml>").utf8)
        let document = try OPMLReader.parse(data, source: "big.opml")
        #expect(document.entries.count == 5000)
        #expect(document.entries.last?.feedURL.absoluteString == "https://example.com/5000.xml")
    }

    @Test(arguments: ["gpodder-3.11-export.opml", "newsboat-2.21-export.opml", "nested-categories.opml"])
    func whatWeWriteReadsBackToTheSameFeeds(name: String) async throws {
        let original = try await read(name)
        let written = OPMLWriter.document(
            title: "Singlecast subscriptions",
            feeds: original.entries.map { OPMLFeed(title: $0.title ?? "", feedURL: $0.feedURL) })
        let again = try OPMLReader.parse(written, source: "written.opml")
        #expect(urls(again) == urls(original))
        #expect(again.entries.map(\.title) == original.entries.map(\.title))
        #expect(again.title == "Singlecast subscriptions")
        #expect(String(decoding: written, as: UTF8.self).contains("<opml version=\"2.0\">"))
    }

    @Test func writesTitlesAndURLsEscaped() throws {
        let written = OPMLWriter.document(
            title: "A & B", feeds: [OPMLFeed(title: "Q \"&\" <A>", feedURL: URL(string: "https://e.com/f?a=1&b=2")!)],
            created: Date(timeIntervalSince1970: 1_700_000_000))
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains("<dateCreated>Tue, 14 Nov 2023 22:13:20 GMT</dateCreated>"))
        #expect(text.contains(#"text="Q &quot;&amp;&quot; &lt;A&gt;""#))
        #expect(text.contains(#"xmlUrl="https://e.com/f?a=1&amp;b=2""#))
        let again = try OPMLReader.parse(written, source: "x")
        #expect(again.entries.first?.title == "Q \"&\" <A>")
        #expect(again.entries.first?.feedURL.absoluteString == "https://e.com/f?a=1&b=2")
    }
}
