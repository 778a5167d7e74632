import SinglecastKit
import Testing

@testable import singlecast

/// The live lines of `download` on a terminal, rendered as values at a given width.
@Suite struct ProgressRendererTests {
    typealias Line = ProgressRenderer.LiveDownload

    let two = [
        Line(title: "p1.mp3", received: 120_000_000, total: 300_000_000, speed: 52_000_000),
        Line(title: "Episode Two", received: 30_000_000, total: 300_000_000, speed: 5_000_000),
    ]

    @Test func aLinePerDownloadAndATotalInAlignedColumnsWithABar() {
        #expect(
            ProgressRenderer.liveLines(two, width: 80, utf8: true) == [
                "p1.mp3       40%  ━━━━──────  120 MB of 300 MB   52 MB/s  0:03 left",
                "Episode Two  10%  ━─────────   30 MB of 300 MB  5.0 MB/s  0:54 left",
                "Total        25%  ━━────────  150 MB of 600 MB   57 MB/s  0:07 left",
            ])
    }

    @Test func withoutUTF8TheBarIsHashes() {
        let lines = ProgressRenderer.liveLines(two, width: 80, utf8: false)
        #expect(lines[0].contains("####------  120 MB"))
        #expect(!lines.joined().contains("━"))
    }

    @Test func columnsStayAlignedWhateverTheTitlesWidths() {
        let lines = ProgressRenderer.liveLines(
            [
                Line(title: "Hand Show 日本語ポッドキャスト", received: 1_000_000, total: 2_000_000, speed: 1_000_000),
                Line(title: "e\u{301}", received: 500_000, total: 2_000_000, speed: 1_000_000),
            ], width: 80, utf8: true)
        let percentEnds = lines.map { line in TerminalText.width(String(line.prefix { $0 != "%" })) }
        #expect(Set(percentEnds).count == 1, "\(lines)")
    }

    @Test func longTitlesAreCutToTheTerminalsWidth() {
        let long = [
            Line(title: "Hand Show 日本語ポッドキャスト: the very long episode title of a long show", received: 1, total: 10, speed: 1),
            Line(title: "A stalled one", received: 1, total: 10, speed: 0, stalled: true),
            Line(title: "A waiting one", received: 1, total: nil, speed: 0, waiting: "retrying in 2 s: connection refused"),
        ]
        for width in [50, 80, 120] {
            let lines = ProgressRenderer.liveLines(long, width: width, utf8: true)
            #expect(lines.count == 4)
            #expect(lines.allSatisfy { TerminalText.width($0) <= width }, "\(lines)")
            #expect(lines[0].contains("…"))
        }
        let wide = ProgressRenderer.liveLines(long, width: 160, utf8: true)
        #expect(wide[1].hasSuffix("stalled"))
        #expect(wide[2].hasPrefix("A waiting one") && wide[2].hasSuffix("  retrying in 2 s: connection refused"), "\(wide)")
    }
}
