import Testing

@testable import SinglecastUI

@Suite struct CanvasTests {
    @Test func wideCharactersTakeTwoCellsAndCombiningMarksNone() {
        var canvas = Canvas(width: 10, height: 2)
        #expect(canvas.put("日本x", x: 0, y: 0) == 5)
        #expect(canvas.put("e\u{301}ab", x: 0, y: 1) == 3)
        #expect(canvas.line(0) == "日本x     ")
        #expect(canvas.line(1) == "e\u{301}ab       ")
        #expect(canvas[1, 0].text == "")
    }

    @Test func aWideCharacterThatWouldStraddleTheLimitIsLeftOut() {
        var canvas = Canvas(width: 6, height: 1)
        #expect(canvas.put("ab日本", x: 0, y: 0, limit: 5) == 4)
        #expect(canvas.line(0) == "ab日  ")
    }

    @Test func controlCharactersNeverEnterIt() {
        var canvas = Canvas(width: 20, height: 1)
        canvas.put("A\u{1B}]0;pwned\u{7}B\u{9B}2J", x: 0, y: 0)
        #expect(canvas.line(0) == "A]0;pwnedB2J        ")
    }

    @Test func writingPastTheEdgeIsCut() {
        var canvas = Canvas(width: 4, height: 1)
        #expect(canvas.put("abcdef", x: 2, y: 0) == 2)
        #expect(canvas.put("x", x: 9, y: 0) == 0)
        #expect(canvas.put("x", x: 0, y: 3) == 0)
        #expect(canvas.line(0) == "  ab")
    }

    @Test func onlyChangedRowsAreReported() {
        var first = Canvas(width: 4, height: 3)
        first.put("a", x: 0, y: 0)
        var second = first
        second.put("b", x: 1, y: 2)
        #expect(second.changedRows(since: first) == [2])
        #expect(second.changedRows(since: nil) == [0, 1, 2])
        #expect(Canvas(width: 5, height: 3).changedRows(since: first) == [0, 1, 2])
        second.addStyle(.reverse, to: Rect(x: 0, y: 1, width: 4, height: 1))
        #expect(second.changedRows(since: first) == [1, 2])
    }

    @Test func columnsStartAtTheSameCellWhateverTheTitles() {
        var canvas = Canvas(width: 20, height: 3)
        let columns: [Column] = [.flexible, .fixed(5, alignRight: true)]
        for (row, title) in ["Plain title here", "日本語のポッドキャスト", "e\u{301}"].enumerated() {
            canvas.putColumns([title, "12"], columns, in: Rect(x: 0, y: row, width: 20, height: 1))
        }
        for row in 0..<3 {
            #expect(canvas.line(row).hasSuffix("   12"))
        }
        #expect(canvas.line(0) == "Plain title h…    12")
        #expect(canvas.line(1) == "日本語のポッ…     12")
    }

    @Test func wrappingCutsAtSpacesByDisplayWidth() {
        #expect(wrapped("one two three", width: 7) == ["one two", "three"])
        #expect(wrapped("日本語日本語", width: 4) == ["日本", "語日", "本語"])
        #expect(wrapped("", width: 4) == [])
    }
}
