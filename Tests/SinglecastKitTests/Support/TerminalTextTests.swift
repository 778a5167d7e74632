import Testing

@testable import SinglecastKit

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("Plain", 5),
        ("日本語", 6),
        ("ﾊﾝｶｸ", 4),  // halfwidth katakana: one cell each
        ("e\u{301}", 1),  // e and a combining acute accent
        ("🎧 Show", 7),
        ("한국어", 6),
        ("a\u{200D}b", 2),  // a zero-width joiner takes no cell
        ("Evil \u{9B}2J", 7),  // the C1 CSI takes none
        ("", 0),
    ])
    func widthInCells(text: String, cells: Int) {
        #expect(TerminalText.width(text) == cells)
    }

    @Test func controlsOfEveryRangeAreRemoved() {
        #expect(TerminalText.sanitized("Evil \u{9B}2J Show") == "Evil 2J Show")
        #expect(TerminalText.sanitized("\u{1B}]0;pwned\u{7}Title") == "]0;pwnedTitle")
        #expect(TerminalText.sanitized("a\u{7F}b\u{85}c\u{9F}d") == "abcd")
        #expect(TerminalText.sanitized("line\none\ttab") == "line one tab")
        #expect(TerminalText.sanitized("Café — 日本") == "Café — 日本")
    }

    @Test func wholeLinesKeepTheirBreaksAndLoseTheirControls() {
        #expect(TerminalText.sanitized("done: Evil \u{9B}2J\nnext\r\u{1B}[2J", keepingLineBreaks: true) == "done: Evil 2J\nnext [2J")
        #expect(TerminalText.sanitized("two\nlines", keepingLineBreaks: true) == "two\nlines")
        // U+00A9 shares the C1 controls' first UTF-8 byte and stays.
        #expect(TerminalText.sanitized("© 2024\u{85}", keepingLineBreaks: true) == "© 2024")
    }

    @Test func cutsEndInAnEllipsisWithinTheWidth() {
        #expect(TerminalText.truncated("Hello world", toWidth: 8) == "Hello w…")
        #expect(TerminalText.truncated("Hello", toWidth: 5) == "Hello")
        #expect(TerminalText.truncated("日本語ポッドキャスト", toWidth: 7) == "日本語…")
        #expect(TerminalText.width(TerminalText.truncated("日本語ポッドキャスト", toWidth: 8)) == 7)
        #expect(TerminalText.truncated("anything", toWidth: 0) == "")
        #expect(TerminalText.truncated("ab", toWidth: 1) == "…")
    }

    @Test func aCutKeepingTheEndKeepsTheFileName() {
        #expect(TerminalText.truncated("/home/me/Episodes/Show/Episode One.mp3", toWidth: 16, keepingEnd: true) == "…Episode One.mp3")
        #expect(TerminalText.truncated("/x/日本語.mp3", toWidth: 9, keepingEnd: true) == "…本語.mp3")
        #expect(TerminalText.truncated("/x/a.mp3", toWidth: 8, keepingEnd: true) == "/x/a.mp3")
    }

    @Test func fittedTextTakesExactlyItsCells() {
        #expect(TerminalText.fitted("日本", toWidth: 6) == "日本  ")
        #expect(TerminalText.fitted("42", toWidth: 4, alignRight: true) == "  42")
        #expect(TerminalText.fitted("日本語", toWidth: 5) == "日本…")
        for cells in 1...12 {
            #expect(TerminalText.width(TerminalText.fitted("Hand Show 日本語ポッドキャスト", toWidth: cells)) == cells)
        }
    }
}
