import Foundation
import Testing

@testable import SinglecastKit
@testable import SinglecastUI

@Suite struct UIUpdateTests {
    @Test func theFirstPodcastIsSelectedAndItsEpisodesRead() {
        let state = UIState(width: 100, height: 20)
        let (next, commands) = UIUpdate.update(state, .podcastsLoaded([UIFixtures.podcast(7, "A"), UIFixtures.podcast(8, "B")]))
        #expect(next.podcasts.selected?.podcast.id == 7)
        #expect(commands == [.loadEpisodes(podcastID: 7, filter: "", start: 0, limit: UIUpdate.episodeWindowSize)])
    }

    @Test func movingInThePodcastsPaneReadsTheNextPodcastsEpisodes() {
        let (state, commands) = UIFixtures.run(UIFixtures.browsing(), [.key(.down)])
        #expect(state.podcasts.selected?.podcast.id == 2)
        #expect(state.episodes.podcastID == 2 && state.episodes.entries.isEmpty)
        #expect(commands == [.loadEpisodes(podcastID: 2, filter: "", start: 0, limit: UIUpdate.episodeWindowSize)])
        let (back, _) = UIFixtures.run(state, UIFixtures.keys("k"))
        #expect(back.podcasts.selected?.podcast.id == 1)
    }

    @Test func episodesMoveWithViKeysAndTheirDetailsAreRead() {
        let (state, commands) = UIFixtures.run(UIFixtures.browsing(), [.key(.right)] + UIFixtures.keys("jj"))
        #expect(state.focus == .episodes)
        #expect(state.episodes.selected?.id == 3)
        #expect(commands == [.loadDetails(UIFixtures.entry(2, "Episode 2")), .loadDetails(UIFixtures.entry(3, "Episode 3"))])
        let (last, _) = UIFixtures.run(state, UIFixtures.keys("G"))
        #expect(last.episodes.selected?.id == 5)
        let (first, _) = UIFixtures.run(last, UIFixtures.keys("g"))
        #expect(first.episodes.selected?.id == 1)
    }

    /// PgDn and PgUp move a screenful less one row; ← and Shift-Tab go back a pane, → and Tab on.
    @Test func pageKeysMoveAPageAndArrowsAndTabMoveBetweenPanes() {
        let state = UIFixtures.run(UIFixtures.browsing(height: 15, episodes: 50), [.key(.tab)]).0
        let page = ScreenLayout(state).listRows - 1
        let down = UIFixtures.run(state, [.key(.pageDown)]).0
        #expect(down.episodes.cursor.selected == page)
        #expect(UIFixtures.run(down, [.key(.pageDown), .key(.pageUp)]).0.episodes.cursor.selected == page)
        #expect(UIFixtures.run(down, [.key(.pageUp)]).0.episodes.cursor.selected == 0)
        #expect(UIFixtures.run(state, [.key(.left)]).0.focus == .podcasts)
        #expect(UIFixtures.run(state, [.key(.backTab)]).0.focus == .podcasts)
        #expect(UIFixtures.run(state, [.key(.left), .key(.right)]).0.focus == .episodes)
    }

    @Test func aLongListIsReadByWindowsAsTheCursorMoves() {
        var state = UIState(width: 100, height: 20)
        state = UIUpdate.update(state, .podcastsLoaded([UIFixtures.podcast(1, "Long")])).0
        let first = (0..<200).map { UIFixtures.entry(Int64($0 + 1), "E\($0 + 1)") }
        state = UIUpdate.update(state, .episodesLoaded(EpisodeWindow(podcastID: 1, filter: "", start: 0, total: 20_000, entries: first))).0
        let (end, commands) = UIFixtures.run(state, [.key(.tab), .key(.end)])
        #expect(end.episodes.cursor.selected == 19_999)
        #expect(end.episodes.selected == nil)
        let visible = ScreenLayout(end).listRows
        let expectedStart = 20_000 - visible - (UIUpdate.episodeWindowSize - visible) / 2
        #expect(commands == [.loadEpisodes(podcastID: 1, filter: "", start: expectedStart, limit: UIUpdate.episodeWindowSize)])
        // Asked once while it is on its way.
        #expect(UIFixtures.run(end, [.key(.up)]).1.isEmpty)
        let window = (expectedStart..<20_000).map { UIFixtures.entry(Int64($0 + 1), "E\($0 + 1)") }
        let (loaded, more) = UIFixtures.run(
            end, [.episodesLoaded(EpisodeWindow(podcastID: 1, filter: "", start: expectedStart, total: 20_000, entries: window))])
        #expect(loaded.episodes.selected?.id == 20_000)
        #expect(more == [.loadDetails(window.last!)])
    }

    @Test func enterPlaysAndThePlayerKeysDriveIt() {
        let (state, commands) = UIFixtures.run(UIFixtures.browsing(), [.key(.enter), .key(.enter)])
        #expect(state.playing?.episodeID == 1)
        #expect(commands == [.play(UIFixtures.entry(1, "Episode 1"), of: UIFixtures.podcast(1, "First Show"))])
        // Nothing to pause before sound begins.
        #expect(UIFixtures.run(state, UIFixtures.keys("p")).1.isEmpty)
        let started = UIFixtures.run(
            state, [.tick(now: 10), .listening(episodeID: 1, .started(position: 100, duration: 600, speed: 1), now: 10)])
        #expect(started.1 == [.setTicking(true)])
        let later = UIFixtures.run(started.0, [.tick(now: 12)])
        #expect(later.0.playing?.position(at: 12) == 102)
        #expect(UIFixtures.run(later.0, UIFixtures.keys("pfb][")).1 == [.setPaused(true), .seek(to: 132), .seek(to: 92), .setSpeed(1.1), .setSpeed(0.9)])
        let paused = UIFixtures.run(later.0, [.listening(episodeID: 1, .paused(103), now: 13), .tick(now: 20)])
        #expect(paused.0.playing?.isPaused == true && paused.0.playing?.position(at: 20) == 103)
        #expect(paused.1.first == .setTicking(false))
    }

    @Test func theEndOfAnotherEpisodeIsIgnoredAndTheEndOfThisOneClearsTheLine() {
        let (state, _) = UIFixtures.run(UIFixtures.browsing(), [.key(.tab), .key(.enter)])
        let end = ListeningEnd(position: 600, duration: 600, played: true, reason: .end)
        #expect(UIFixtures.run(state, [.listening(episodeID: 9, .ended(end), now: 1)]).0.playing != nil)
        let (ended, commands) = UIFixtures.run(state, [.listening(episodeID: 1, .ended(end), now: 1)])
        #expect(ended.playing == nil)
        #expect(ended.status == StatusLine("Finished Episode 1."))
        #expect(commands.contains(.setTicking(false)) && commands.contains(.loadPodcasts))
    }

    @Test func aMissingPlayerIsALineAndTheUIGoesOn() {
        let (state, _) = UIFixtures.run(UIFixtures.browsing(), [.key(.tab), .key(.enter), .failed(.play(title: "Episode 1"), PlayerError.playerNotFound)])
        #expect(state.playing == nil)
        #expect(state.status?.isFailure == true)
        #expect(state.status?.text.contains("sudo apt install mpv") == true)
    }

    @Test func theSleepTimerCyclesAndPausesAtItsTime() {
        var (state, _) = UIFixtures.run(UIFixtures.browsing(), [.key(.tab), .key(.enter), .listening(episodeID: 1, .started(position: 0, duration: 6000, speed: 1), now: 0)])
        state = UIFixtures.run(state, UIFixtures.keys("t")).0
        #expect(state.sleepTimer == .after(minutes: 15, deadline: 900))
        #expect(UIFixtures.run(state, [.tick(now: 899)]).1.isEmpty)
        let (slept, commands) = UIFixtures.run(state, [.tick(now: 900)])
        #expect(commands == [.setPaused(true)] && slept.sleepTimer == .off)
        let cycled = UIFixtures.run(state, UIFixtures.keys("tttttt")).0
        #expect(cycled.sleepTimer == .after(minutes: 15, deadline: 900))
        #expect(UIFixtures.run(state, UIFixtures.keys("tttt")).0.sleepTimer == .endOfEpisode)
    }

    @Test func episodeKeysAskForTheirWork() {
        let (state, _) = UIFixtures.run(UIFixtures.browsing(), [.key(.tab)])
        let entry = UIFixtures.entry(1, "Episode 1")
        #expect(UIFixtures.run(state, UIFixtures.keys("s")).1 == [.download(entry, podcastTitle: "First Show")])
        #expect(UIFixtures.run(state, UIFixtures.keys("x")).1 == [.deleteFile(entry)])
        #expect(UIFixtures.run(state, UIFixtures.keys("m")).1 == [.setPlayed(entry, true)])
        #expect(UIFixtures.run(state, UIFixtures.keys("r")).1 == [.refresh(podcastIDs: nil)])
        #expect(UIFixtures.run(state, UIFixtures.keys("R")).1 == [.refresh(podcastIDs: [1])])
        #expect(UIFixtures.run(state, UIFixtures.keys("u")).0.status == StatusLine("http://127.0.0.1/1.mp3"))
        #expect(UIFixtures.run(state, UIFixtures.keys("q")).1 == [.quit(status: 0)])
        #expect(UIFixtures.run(state, [.key(.interrupt)]).1 == [.quit(status: 0)])
        #expect(UIFixtures.run(state, [.signal(15)]).1 == [.quit(status: 143)])
    }

    @Test func quittingWithDownloadsRunningHereAsksWhatBecomesOfThem() {
        let (state, _) = UIFixtures.run(UIFixtures.browsing(), [.localDownloads(2)])
        let (asked, none) = UIFixtures.run(state, UIFixtures.keys("q"))
        #expect(none.isEmpty && asked.input?.purpose == .quitWithDownloads)
        #expect(UIFixtures.run(asked, UIFixtures.keys("d")).1 == [.quit(status: 0, downloads: .handToDaemon)])
        #expect(UIFixtures.run(asked, UIFixtures.keys("p")).1 == [.quit(status: 0, downloads: .pause)])
        let (stayed, nothing) = UIFixtures.run(asked, [.key(.escape)])
        #expect(nothing.isEmpty && stayed.input == nil)
        #expect(UIFixtures.run(state, [.signal(1)]).1 == [.quit(status: 129)])
    }

    @Test func unsubscribingAsksFirst() {
        let (asked, none) = UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("d"))
        #expect(none.isEmpty)
        #expect(asked.input?.purpose == .confirmUnsubscribe(podcastID: 1, title: "First Show"))
        #expect(UIFixtures.run(asked, UIFixtures.keys("n")).1.isEmpty)
        #expect(UIFixtures.run(asked, UIFixtures.keys("y")).1 == [.unsubscribe(podcastID: 1, title: "First Show")])
    }

    @Test func addingAFeedTakesItsURL() {
        let (state, commands) = UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("ahttp://x/f.xml") + [.key(.backspace), .key(.character("l")), .key(.enter)])
        #expect(commands == [.subscribe(feedURL: "http://x/f.xml")])
        #expect(state.input == nil)
    }

    @Test func theFilterAppliesAsItIsTypedAndEscapeClearsIt() {
        let (podcasts, _) = UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("/日本"))
        #expect(podcasts.podcasts.visible.map(\.podcast.id) == [2])
        #expect(podcasts.episodes.podcastID == 2)
        let (cleared, _) = UIFixtures.run(podcasts, [.key(.escape)])
        #expect(cleared.podcasts.filter == "" && cleared.podcasts.visible.count == 2)
        let (episodes, commands) = UIFixtures.run(UIFixtures.browsing(), [.key(.tab)] + UIFixtures.keys("/Ep") + [.key(.enter)])
        #expect(episodes.episodes.filter == "Ep" && episodes.input == nil)
        #expect(commands.last == .loadEpisodes(podcastID: 1, filter: "Ep", start: 0, limit: UIUpdate.episodeWindowSize))
    }

    @Test func numberKeysSwitchScreensAndReadThem() {
        let state = UIFixtures.browsing()
        #expect(UIFixtures.run(state, UIFixtures.keys("2")).1 == [.loadNewEpisodes])
        #expect(UIFixtures.run(state, UIFixtures.keys("4")).1 == [.loadDownloads])
        let (search, _) = UIFixtures.run(state, UIFixtures.keys("5swift") + [.key(.enter)])
        #expect(search.search.term == "swift" && search.search.isSearching)
        let result = SearchResult(number: 1, title: "Swift Talk", feedURL: URL(string: "http://127.0.0.1/s.xml"))
        let (found, _) = UIFixtures.run(search, [.searchFinished(term: "swift", [result])])
        #expect(!found.search.isEditing)
        #expect(UIFixtures.run(found, UIFixtures.keys("a")).1 == [.subscribe(feedURL: "http://127.0.0.1/s.xml")])
    }

    @Test func aResizeKeepsTheSelectionInSight() {
        let (state, _) = UIFixtures.run(UIFixtures.browsing(episodes: 50), [.key(.tab), .key(.end)])
        #expect(state.episodes.cursor.top == 50 - ScreenLayout(state).listRows)
        let (small, _) = UIFixtures.run(state, [.resized(width: 80, height: 15)])
        #expect(small.episodes.cursor.selected == 49)
        #expect(small.episodes.cursor.top == 50 - ScreenLayout(small).listRows)
    }
}
