import Testing

@testable import singlecast

/// The lines a live display redraws in place: what moves the cursor back up over them.
@Suite struct LiveAreaTests {
    @Test func aRedrawMovesUpOverTheLinesDrawnBefore() {
        var area = LiveArea()
        #expect(area.draw(["a", "b"], columns: 80, rows: 24) == "a\nb\n")
        #expect(area.draw(["c"], columns: 80, rows: 24) == "\r\u{1B}[2A\u{1B}[Jc\n")
        #expect(area.clear(columns: 80) == "\r\u{1B}[1A\u{1B}[J")
        #expect(area.clear(columns: 80) == "")
    }

    @Test func aLineWiderThanTheTerminalIsCutToOneRow() {
        var area = LiveArea()
        #expect(area.draw([String(repeating: "x", count: 100)], columns: 80, rows: 24) == String(repeating: "x", count: 79) + "…\n")
        #expect(area.clear(columns: 80) == "\r\u{1B}[1A\u{1B}[J")
    }

    @Test func afterTheTerminalNarrowsALineTakesTheRowsItWrapsTo() {
        var area = LiveArea()
        _ = area.draw([String(repeating: "x", count: 80), "y"], columns: 80, rows: 24)
        #expect(area.clear(columns: 40) == "\r\u{1B}[3A\u{1B}[J")
    }

    @Test func moreLinesThanTheScreenKeepTheFirstAndTheLast() {
        var area = LiveArea()
        let lines = ["header"] + (1...9).map(String.init) + ["total"]
        #expect(area.draw(lines, columns: 80, rows: 6) == "header\n…\n8\n9\ntotal\n")
        #expect(area.clear(columns: 80) == "\r\u{1B}[5A\u{1B}[J")
    }
}
