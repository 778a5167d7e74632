import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct ShowNotesTests {
    @Test func htmlBecomesParagraphsWithItsLinksListed() throws {
        let html = try String(contentsOf: Fixtures.url("shownotes/links-and-lists.html"), encoding: .utf8)
        let notes = ShowNotes(html)
        #expect(
            notes.paragraphs == [
                "In this episode we talk about SQLite\u{2019}s WAL [1] & more.",
                "• Café culture",
                "• Résumé tips: tips [2]",
                "Line one\nline two",
                "Find us at the same page [2] or mail. Raw link: https://example.com/raw",
            ])
        // A link whose text is its URL shows it already, and is not listed again.
        #expect(notes.links == ["https://sqlite.org/wal.html", "https://example.com/tips"])
        #expect(notes.text.hasSuffix("example.com/raw\n\n[1] https://sqlite.org/wal.html\n[2] https://example.com/tips"))
    }

    @Test func plainTextKeepsItsParagraphs() {
        let notes = ShowNotes("First   paragraph\nstill first.\n\nSecond one.\n\n\n")
        #expect(notes.paragraphs == ["First paragraph still first.", "Second one."])
        #expect(notes.links.isEmpty)
        #expect(notes.text == "First paragraph still first.\n\nSecond one.")
    }

    @Test(arguments: [
        ("<p>Tom &amp; Jerry &eacute;t&eacute; &#x263A; &nbsp;x</p>", ["Tom & Jerry été ☺ x"]),
        ("Unclosed <b>bold <i>and italic", ["Unclosed bold and italic"]),
        ("<div><div>nested</div>after</div>", ["nested", "after"]),
        ("<p></p><p>  </p>", []),
        ("<style>p { color: red }</style><p>only this</p>", ["only this"]),
        ("<p>中文 <em>日本語</em></p>", ["中文 日本語"]),
        ("a < b and <unknown>tag</unknown>", ["a < b and tag"]),
    ])
    func brokenAndEncodedHTMLIsReadAsABrowserWould(html: String, paragraphs: [String]) {
        #expect(ShowNotes(html).paragraphs == paragraphs)
    }
}
