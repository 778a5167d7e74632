import SinglecastKit
import Testing

@testable import singlecast

/// A `find` snippet on one line: cut to the terminal in display cells, its matched words in bold
/// on a terminal only, and no control character a feed put in it.
@Suite struct FindTableTests {
    private let snippet = FindSnippet(runs: [
        .init(text: "…about ", isMatch: false), .init(text: "東京", isMatch: true), .init(text: " and\u{1B}[2J ", isMatch: false),
        .init(text: "Café", isMatch: true), .init(text: " culture", isMatch: false),
    ])

    @Test func offATerminalTheSnippetIsPlainAndWhole() {
        #expect(FindTable.snippetLine(snippet, width: nil, bold: false) == "…about 東京 and[2J Café culture")
    }

    @Test func onATerminalTheMatchedWordsAreBold() {
        #expect(
            FindTable.snippetLine(snippet, width: nil, bold: true)
                == "…about \u{1B}[1m東京\u{1B}[22m and[2J \u{1B}[1mCafé\u{1B}[22m culture")
    }

    @Test func aCutKeepsTheBoldOfWhatIsLeftAndEndsInAnEllipsis() {
        let line = FindTable.snippetLine(snippet, width: 12, bold: true)
        #expect(line == "…about \u{1B}[1m東京\u{1B}[22m…")
        #expect(TerminalText.width(FindTable.snippetLine(snippet, width: 12, bold: false)) <= 12)
    }
}
