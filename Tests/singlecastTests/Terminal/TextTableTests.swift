import SinglecastKit
import Testing

@testable import singlecast

/// Tables measured in display cells, and fitted to a terminal's width by cutting their title
/// and path columns.
@Suite struct TextTableTests {
    let episodes = TextTable(
        headers: ["ID", "Episode", "File"], rightAligned: [0], shrinking: [1, 2], keepingEnd: [2],
        rows: [["1", "Loopback Radio: Episode Three: Café & Résumé", "/tmp/home/Episodes/Loopback Radio/Episode Three.mp3"]])

    @Test func columnsAreMeasuredInDisplayCells() {
        let table = TextTable(
            headers: ["#", "Title", "Episodes"], rightAligned: [0, 2],
            rows: [["@1", "Hand Show 日本語ポッドキャスト", "12"], ["@2", "Plain", "3"]])
        let spaces = { (count: Int) in String(repeating: " ", count: count) }
        #expect(
            table.render(width: nil).split(separator: "\n") == [
                " #  Title\(spaces(25))  Episodes",
                "@1  Hand Show 日本語ポッドキャスト        12",
                "@2  Plain\(spaces(25))         3",
            ])
    }

    @Test func aTableWiderThanTheTerminalCutsItsTitleThenItsPath() {
        #expect(
            episodes.render(width: 60).split(separator: "\n") == [
                "ID  Episode     File",
                " 1  Loopback …  …e/Episodes/Loopback Radio/Episode Three.mp3",
            ])
    }

    @Test func withoutAWidthOrWithRoomValuesStayWhole() {
        let whole = [
            "ID  Episode                                       File",
            " 1  Loopback Radio: Episode Three: Café & Résumé  /tmp/home/Episodes/Loopback Radio/Episode Three.mp3",
        ]
        #expect(episodes.render(width: nil).split(separator: "\n").map(String.init) == whole)
        #expect(episodes.render(width: 200).split(separator: "\n").map(String.init) == whole)
    }

    @Test func linesNeverRunPastANarrowTerminal() {
        for width in [20, 26, 40] {
            for line in episodes.render(width: width).split(separator: "\n") {
                #expect(TerminalText.width(String(line)) <= width, "\(line) at \(width)")
            }
        }
    }

    @Test func controlCharactersNeverReachTheTable() {
        let table = TextTable(headers: ["#", "Title"], rows: [["1", "Evil \u{9B}2J\nShow\u{1B}[2J"]])
        #expect(table.render(width: nil) == "#  Title\n1  Evil 2J Show[2J")
    }
}
