import Foundation
import Testing

@testable import SinglecastKit
@testable import SinglecastUI

@Suite struct UIViewTests {
    @Test func belowSixtyByFifteenOneLineSaysSo() {
        let canvas = UIView.render(UIState(width: 59, height: 30))
        #expect(canvas.line(0).hasPrefix("The window is too small: make it at least 60×15."))
        #expect(canvas.lines.dropFirst().allSatisfy { $0.allSatisfy { $0 == " " } })
        #expect(UIView.render(UIState(width: 80, height: 14)).line(0).hasPrefix("The window is too small"))
        #expect(!UIView.render(UIState(width: 60, height: 15)).line(0).hasPrefix("The window is too small"))
    }

    @Test func theBrowseScreenDrawsThreePanes() {
        let state = UIFixtures.browsing(width: 140, height: 16)
        let lines = UIView.render(state).lines
        #expect(lines[0].hasPrefix(" 1 Podcasts   2 New   3 Queue   4 Downloads   5 Search "))
        #expect(lines[1].hasPrefix("Podcasts (2)"))
        #expect(lines[1].contains("│Episodes (5): First Show"))
        #expect(lines[3].hasPrefix("  First Show"))
        #expect(lines[4].hasPrefix("  日本語ポッドキャスト"))
        #expect(lines[3].contains("│  Episode 1"))
        #expect(lines[3].contains("2024-07-02   10:00"))
        #expect(lines[2].hasSuffix("│First Show" + String(repeating: " ", count: 33)))
        #expect(lines[3].hasSuffix("│Episode 1" + String(repeating: " ", count: 34)))
        #expect(lines[15].hasPrefix("Enter play  Space queue  p pause"))
    }

    @Test func theTabsHintsAndHelpNameTheKeysAsBound() throws {
        var state = UIFixtures.browsing(width: 140, height: 40)
        state.keyMap = try KeyMap(overrides: [
            "quit": ["Q"], "open": ["o"], "forward": ["l"], "back": ["H"], "help": ["F"], "view-queue": ["0"], "enqueue": ["e"],
            "up": ["up", "i"],
        ])
        state.skipForward = 45
        var lines = UIView.render(state).lines
        #expect(lines[0].hasPrefix(" 1 Podcasts   2 New   0 Queue   4 Downloads   5 Search "))
        #expect(lines[39].hasPrefix("o play  e queue  p pause  l/H seek  ]/[ speed  s download  m played  r refresh  / filter  F help  Q quit "))
        state = UIFixtures.run(state, UIFixtures.keys("0")).0
        #expect(UIView.render(state).lines[39].hasPrefix("o play  K/J move  x remove  n next  c clear  p pause  / filter  F help  Q quit "))
        state = UIFixtures.run(state, UIFixtures.keys("F")).0
        lines = UIView.render(state).lines
        /// The help's row for a description (the first line that ends with it).
        func row(_ description: String) -> String? {
            lines.map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasSuffix(" " + description) }
        }
        #expect(row("forward 45 s / back 10 s")?.hasPrefix("l/H ") == true)
        #expect(row("move a page")?.hasPrefix("PgUp/PgDn ") == true)
        #expect(row("move")?.hasPrefix("↑/↓ i/j ") == true)
        #expect(row("this help")?.hasPrefix("F ") == true)
        #expect(row("quit")?.hasPrefix("Q ") == true)
        #expect(row("podcasts, new, queue, downloads, directory search")?.hasPrefix("1/2/0/4/5 ") == true)
        // The help closes on the quit key as bound, quitting.
        #expect(UIFixtures.run(state, UIFixtures.keys("Q")).1.contains(.quit(status: 0)))
    }

    /// `r`: every podcast is marked while its refresh runs; each mark goes when that podcast's
    /// own result arrives (a failure leaves the failed mark), and keys are answered meanwhile.
    @Test func aRefreshMarksEachPodcastUntilItsOwnResultArrives() {
        var (state, commands) = UIFixtures.run(UIFixtures.browsing(width: 140, height: 16), UIFixtures.keys("r"))
        #expect(commands == [.refresh(podcastIDs: nil)])
        state = UIFixtures.run(state, [.refreshStarted([1, 2])]).0
        var lines = UIView.render(state).lines
        #expect(lines[3].hasPrefix("⟳ First Show"))
        #expect(lines[4].hasPrefix("⟳ 日本語ポッドキャスト"))

        var first = UIFixtures.podcast(1, "First Show")
        first.subscription = Subscription(lastUpdate: UpdateResult(status: .ok, at: Date()))
        (state, commands) = UIFixtures.run(state, [.podcastRefreshed(PodcastUpdate(podcast: first, status: .ok, addedCount: 0, warnings: []))])
        #expect(commands.isEmpty, "the list is read again once every podcast is back")
        lines = UIView.render(state).lines
        #expect(lines[3].hasPrefix("  First Show"))
        #expect(lines[4].hasPrefix("⟳ 日本語ポッドキャスト"))

        // Keys are answered while the second refresh runs.
        state = UIFixtures.run(state, UIFixtures.keys("j")).0
        #expect(state.podcasts.cursor.selected == 1)

        var second = UIFixtures.podcast(2, "日本語ポッドキャスト")
        let failure = UpdateStatus.failed(.unexpected("no route"))
        second.subscription = Subscription(lastUpdate: UpdateResult(status: failure, at: Date()))
        (state, commands) = UIFixtures.run(state, [.podcastRefreshed(PodcastUpdate(podcast: second, status: failure, addedCount: 0, warnings: []))])
        #expect(commands == [.loadPodcasts])
        lines = UIView.render(state).lines
        #expect(lines[3].hasPrefix("  First Show"))
        #expect(lines[4].hasPrefix("! 日本語ポッドキャスト"))
    }

    @Test func wideTitlesKeepTheColumnsAligned() {
        var state = UIFixtures.browsing(width: 140, height: 16)
        let rows = [
            PodcastSummary(number: 1, podcast: UIFixtures.podcast(1, "Plain"), episodeCount: 5, newCount: 0, unplayedCount: 5, downloadedCount: 0, validators: FeedValidators()),
            PodcastSummary(number: 2, podcast: UIFixtures.podcast(2, "Hand Show 日本語ポッドキャスト"), episodeCount: 5, newCount: 2, unplayedCount: 12, downloadedCount: 0, validators: FeedValidators()),
        ]
        state = UIUpdate.update(state, .podcastCountsLoaded(rows)).0
        let canvas = UIView.render(state)
        let paneWidth = ScreenLayout(state).panes[0].width
        func cells(_ y: Int) -> [String] { (0..<paneWidth).map { canvas[$0, y].text } }
        // The unplayed count ends in the same cell on both rows.
        #expect(cells(3)[paneWidth - 7] == "5")
        #expect(cells(4)[paneWidth - 7] == "2" && cells(4)[paneWidth - 8] == "1")
        #expect(canvas.line(4).hasPrefix("  Hand Show 日本語ポッドキ…   12    ●2│"))
    }

    @Test func aHostileTitleDrawsNoControlCharacter() {
        var state = UIFixtures.browsing(width: 160, height: 16)
        state = UIUpdate.update(state, .podcastsLoaded([UIFixtures.podcast(1, "\u{1B}]0;pwned\u{7}Evil \u{1B}[2J\u{9B}2J Show")])).0
        let canvas = UIView.render(state)
        let text = canvas.lines.joined()
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(canvas.line(3).contains("]0;pwnedEvil [2J2J Show"))
    }

    @Test func theNowPlayingLineShowsPositionBarSpeedAndSleepTimer() {
        var (state, _) = UIFixtures.run(
            UIFixtures.browsing(width: 100, height: 16),
            [.key(.tab), .key(.enter), .listening(episodeID: 1, .started(position: 300, duration: 600, speed: 1.5), now: 0),
             .listening(episodeID: 1, .chapter(title: "Intro", start: 0), now: 0)])
        state = UIFixtures.run(state, UIFixtures.keys("t") + [.listening(episodeID: 1, .paused(300), now: 0)]).0
        let line = UIView.render(state).line(14)
        #expect(line.hasPrefix("⏸ Episode 1"))
        #expect(line.contains("5:00 / 10:00 ━━━━━━━━━━────────── 1.5× · Intro · sleep 15:00"))
    }

    @Test func asciiGlyphsOnATerminalThatIsNotUTF8() {
        var state = UIFixtures.browsing(width: 100, height: 16)
        state.glyphs = .ascii
        state = UIFixtures.run(state, [.key(.tab), .key(.enter), .listening(episodeID: 1, .started(position: 300, duration: 600, speed: 1), now: 0)]).0
        let canvas = UIView.render(state)
        #expect(canvas.line(14).hasPrefix("> Episode 1"))
        #expect(canvas.line(14).contains("##########----------"))
        #expect(canvas.line(3).contains("|"))
        #expect(canvas.line(3).contains("|>"))
    }

    @Test func theDetailsPaneShowsTheNotesAndTheirLinks() {
        var state = UIFixtures.browsing(width: 120, height: 20)
        let details = EpisodeDetails(
            episodeID: 1, notes: ShowNotes("<p>Hello &amp; welcome.</p><p>See <a href=\"https://example.org/a\">this</a>.\u{1B}[2J</p>"),
            chapters: [PlaybackChapter(title: "Intro", start: 0), PlaybackChapter(title: "News\u{7}", start: 95)])
        state = UIUpdate.update(state, .detailsLoaded(details)).0
        let text = UIView.render(state).lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
        #expect(details.notes == ["Hello & welcome.", "See this [1].[2J"], "the HTML parser drops the escape")
        #expect(details.links == ["https://example.org/a"])
        #expect(text.contains("Hello & welcome."))
        #expect(text.contains("See this [1].[2J") && !text.contains("\u{1B}"))
        #expect(text.contains("[1] https://example.org/a"))
        #expect(text.contains("│Chapters:\n") && text.contains("│0:00 Intro\n") && text.contains("│1:35 News\n"))
        #expect(text.contains("URL: http://127.0.0.1/1.mp3"))
    }
}
