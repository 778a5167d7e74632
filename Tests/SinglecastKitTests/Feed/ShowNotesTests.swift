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

    /// Entities are handed to libxml2 as character references; what it reads must not change.
    @Test(arguments: [
        ("<p>&Eacute;t&eacute; &thetasym; &hellip;&lt;3</p>", ["Été ϑ …<3"], [String]()),
        // Not entities of HTML 4, or not ended by `;`: libxml2 keeps them as text.
        ("<p>&bogus; &eacute &amp;amp; &1x; &thetasymx; & &;</p>", ["&bogus; &eacute &amp; &1x; &thetasymx; & &;"], []),
        ("<p><a href=\"https://example.com/?a=1&amp;b=&eacute;\">page</a></p>", ["page [1]"], ["https://example.com/?a=1&b=é"]),
        ("<script>x = '&eacute;'</script><!-- &eacute; --><p>&#233;&eacute;</p>", ["éé"], []),
    ])
    func entitiesReadTheSameAsLibxml2ReadsThem(html: String, paragraphs: [String], links: [String]) {
        let notes = ShowNotes(html)
        #expect(notes.paragraphs == paragraphs)
        #expect(notes.links == links)
    }

    @Test func onlyTheNamedEntitiesLibxml2KnowsAreNumbered() {
        var entities = EntityNumbers()
        func numbered(_ text: String) -> String? {
            Array(text.utf8).withUnsafeBufferPointer { entities.numbered($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(numbered("&eacute;&Eacute; x&amp;y &bogus; &eacute &thetasym;") == "&#233;&#201; x&#38;y &bogus; &eacute &#977;")
        #expect(numbered("no entity &bogus; &#233; & &;") == nil)
        // Names met before are remembered, known or not.
        #expect(numbered("&bogus;&eacute;") == "&bogus;&#233;")
    }

    /// Notes reduced on every core come back in order, each as reduced alone.
    @Test func notesReducedTogetherMatchNotesReducedAlone() async {
        let notes: [String?] = (0..<300).map { index in
            index % 7 == 0 ? nil : "<p>Note \(index) &eacute;</p><p><a href=\"https://example.com/\(index)\">link</a></p>"
        }
        let texts = await ShowNotes.reduce(notes) { $0.text }
        #expect(texts == notes.map { $0.map { ShowNotes($0).text } })
        #expect(texts[1] == "Note 1 é\n\nlink [1]\n\n[1] https://example.com/1")
    }
}
