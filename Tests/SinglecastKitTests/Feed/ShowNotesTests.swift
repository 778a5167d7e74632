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

    @Test func oneReducerReadsNoteAfterNoteWithNothingCarriedOver() {
        let entities = HTMLEntities()
        var reducer = HTMLReducer()
        // More made-up names than the entity table keeps: each stays text, and real ones after
        // them are still read.
        let madeUp = (0..<600).map { "&zz\($0);" }.joined(separator: " ")
        let first = ShowNotes("<ul><li>\(madeUp)<li><a href=\"https://example.com/a\">A</a>", entities: entities, reducer: &reducer)
        #expect(first.paragraphs.first?.hasPrefix("• &zz0; &zz1;") == true)
        #expect(first.text.hasSuffix("&zz599;\n\n• A [1]\n\n[1] https://example.com/a"))
        let second = ShowNotes("<p>Caf&eacute; &mdash; &zz1; &eacute;", entities: entities, reducer: &reducer)
        #expect(second.paragraphs == ["Café — &zz1; é"])
        #expect(second.links.isEmpty && second.text == "Café — &zz1; é")
        #expect(ShowNotes("<li>Two</li>", entities: entities, reducer: &reducer).text == "• Two")
    }

    @Test func plainTextKeepsItsParagraphs() {
        let notes = ShowNotes("First   paragraph\nstill first.\n\nSecond one.\n\n\n")
        #expect(notes.paragraphs == ["First paragraph still first.", "Second one."])
        #expect(notes.links.isEmpty)
        #expect(notes.text == "First paragraph still first.\n\nSecond one.")
    }

    /// Text is looked at eight bytes at a time where it is plain: every kind of white space,
    /// at every place within eight bytes, collapses as it does a byte at a time.
    @Test func whiteSpaceCollapsesWhereverItFallsInALongText() {
        let blanks = [" ", "  ", "\t", "\n", "\r\n", "\u{A0}", " \u{A0} ", "   \t"]
        for blank in blanks {
            for offset in 0..<17 {
                let before = String(repeating: "a", count: offset)
                let text = "\(before)\(blank)Caf\u{E9}\(blank)\u{A9}x\(blank)\(before)\(blank)"
                let expected = "\(before) Caf\u{E9} \u{A9}x \(before)".trimmingCharacters(in: .whitespaces)
                #expect(ShowNotes("<p>\(text)</p>").text == expected, "\(blank.unicodeScalars.map(\.value)) at \(offset)")
                #expect(ShowNotes("<p> \(text)<b>\(blank)bold</b></p>").text == expected + " bold", "after a space")
            }
        }
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

    /// Entities read as libxml2's HTML parser read them, which read the notes before.
    @Test(arguments: [
        ("<p>&Eacute;t&eacute; &thetasym; &hellip;&lt;3</p>", ["Été ϑ …<3"], [String]()),
        // Not entities of HTML 4, or not ended by `;`: kept as text.
        ("<p>&bogus; &eacute &amp;amp; &1x; &thetasymx; & &;</p>", ["&bogus; &eacute &amp; &1x; &thetasymx; & &;"], []),
        ("<p><a href=\"https://example.com/?a=1&amp;b=&eacute;\">page</a></p>", ["page [1]"], ["https://example.com/?a=1&b=é"]),
        ("<script>x = '&eacute;'</script><!-- &eacute; --><p>&#233;&eacute;</p>", ["éé"], []),
        // Character references without `;`; references to characters XML forbids give nothing.
        ("<p>&#233 &#xe9 &#x;&#; &amp&eacute</p>", ["é é &amp&eacute"], []),
        ("<p>tab&#9;x&#1;y&#xD800;z&#0;</p>", ["tab xyz"], []),
    ])
    func entitiesReadTheSameAsLibxml2ReadsThem(html: String, paragraphs: [String], links: [String]) {
        let notes = ShowNotes(html)
        #expect(notes.paragraphs == paragraphs)
        #expect(notes.links == links)
    }

    /// Markup read as libxml2's HTML parser read it (each expected text is what it gave).
    @Test(arguments: [
        ("<p>a<!-- <p>hidden</p> -->b<!DOCTYPE html><?php echo 1 ?>c</p>", ["abc"]),
        ("<p>I <3 it, 1 < 2, </ >done <![CDATA[x]]></p>", ["I <3 it, 1 < 2, >done <![CDATA[x]]>"]),
        ("<SCRIPT type=\"text/javascript\">document.write(\"<p>x</p>\")</SCRIPT><p>shown</p>", ["shown"]),
        ("<p><a href=\"https://example.com/?q=a>b\" title='x > y'>quoted</a></p>", ["quoted [1]"]),
        ("<p><a href=https://example.com/bare>bare</a> and <A HREF=\"https://example.com/CASE\">case</A></p>", ["bare [1] and case [2]"]),
        // A start tag ends the open elements HTML 4 says it ends; a stray end tag changes nothing.
        ("<p>a<ul><li>b</ul>c</p>d", ["a", "• b", "cd"]),
        ("<div>a<p>b</div>c</p>d", ["a", "b", "cd"]),
        ("<li>one<li>two</li><li>three", ["• one", "• two", "• three"]),
        ("<p><a href=\"https://example.com/t\">link<table><tr><td>cell</td></tr></table>", ["link [1]", "cell"]),
        ("<p><a href=\"https://example.com/1\">one<a href=\"https://example.com/2\">two</a></p>", ["one [1]two [2]"]),
        ("<title>Page</title><p>body</p>", ["body"]),
        ("<p>x</p><title>left open<body>after", ["x", "after"]),
        ("intro</p>more", ["intro", "more"]),
        ("<p>x<br/>y<br />z<BR>w</p>", ["x\ny\nz\nw"]),
        // The end of the body ends every element; text after it is a paragraph of its own.
        ("<b>a</b></body>b", ["a", "b"]),
        // A tag the notes end inside is dropped.
        ("<p>end <a href=\"https://example.com/x\"", ["end"]),
    ])
    func markupIsReadAsLibxml2ReadIt(html: String, paragraphs: [String]) {
        #expect(ShowNotes(html).paragraphs == paragraphs)
    }

    /// libxml2 dropped every note that began with a stray end tag; its text is kept.
    @Test func textAfterAStrayEndTagAtTheStartIsKept() {
        #expect(ShowNotes("</p>kept <b>bold</b>").paragraphs == ["kept bold"])
    }

    @Test func onlyTheNamedEntitiesOfHTML4AreKnown() {
        let entities = HTMLEntities()
        func character(_ name: String) -> Unicode.Scalar? {
            Array(name.utf8).withUnsafeBufferPointer { entities.character(named: $0) }
        }
        #expect(character("eacute") == "é")
        #expect(character("Eacute") == "É")
        #expect(character("thetasym") == "ϑ")
        #expect(character("amp") == "&")
        #expect(character("EACUTE") == nil)
        #expect(character("bogus") == nil)
        #expect(character("thetasymx") == nil)
        // Names met before are remembered, known or not.
        #expect(character("bogus") == nil)
        #expect(character("eacute") == "é")
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

    /// A listing's page of notes, read as bytes, is reduced as the same notes are as strings:
    /// none, empty, plain text, and HTML, in order.
    @Test func notesReadAsBytesMatchNotesReadAsStrings() async {
        let notes: [String?] = (0..<300).map { index in
            switch index % 5 {
            case 0: nil
            case 1: ""
            case 2: "Plain note \(index)\n\nwith   a second  paragraph &amp; no tag"
            default: "<p>Note \(index) &eacute;&nbsp;caf\u{E9}</p><ul><li><a href=\"https://example.com/\(index)\">link</a></ul>"
            }
        }
        var page = ShowNotes.Page()
        for note in notes { page.append(note.map { Data($0.utf8) }) }
        #expect(page.count == notes.count)
        let texts = await ShowNotes.reduce(page) { $0.text }
        #expect(texts == notes.map { $0.map { ShowNotes($0).text } })
        #expect(texts[0] == nil && texts[1] == "")
        #expect(texts[3] == "Note 3 é café\n\n• link [1]\n\n[1] https://example.com/3")
    }
}
