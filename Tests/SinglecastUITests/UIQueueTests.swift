import Foundation
import Testing

@testable import SinglecastKit
@testable import SinglecastUI

/// The queue in the update function and the view, as values.
@Suite struct UIQueueTests {
    private static let show = UIFixtures.podcast(1, "First Show")

    private static func queued(_ ids: [Int64]) -> [QueueEntry] {
        ids.enumerated().map { QueueEntry(number: $0.offset + 1, podcast: show, entry: UIFixtures.entry($0.element, "Episode \($0.element)")) }
    }

    /// The queue screen with episodes 3, 1 and 2 queued.
    private static func onQueue() -> UIState {
        UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("3") + [.queueLoaded(queued([3, 1, 2]))]).0
    }

    @Test func threeShowsTheQueueReadFromTheLibrary() {
        let (state, commands) = UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("3"))
        #expect(state.screen == .queue)
        #expect(commands == [.loadQueue])
        let loaded = Self.onQueue()
        #expect(loaded.queue.selected?.entry.id == 3)
        // What the command line changes arrives as a library change, which reads the queue again.
        #expect(UIFixtures.run(loaded, [.libraryChanged]).1.contains(.loadQueue))
        #expect(!UIFixtures.run(UIFixtures.browsing(), [.libraryChanged]).1.contains(.loadQueue))
        let lines = UIView.render(loaded).lines
        #expect(lines[0].hasPrefix(" 1 Podcasts   2 New   3 Queue   4 Downloads   5 Search "))
        #expect(lines[1].hasPrefix("Queue (3)"))
        #expect(lines[3].hasPrefix("First Show") && lines[3].contains("Episode 3"))
        #expect(lines[5].contains("Episode 2"))
    }

    @Test func spaceQueuesTheSelectedEpisodeOfAnyEpisodeList() {
        let (_, browsing) = UIFixtures.run(UIFixtures.browsing(), [.key(.tab), .key(.down), .key(.character(" "))])
        #expect(browsing.last == .enqueue(UIFixtures.entry(2, "Episode 2")))
        let new = UIFixtures.run(
            UIFixtures.browsing(),
            UIFixtures.keys("2") + [.newEpisodesLoaded([NewEpisode(podcast: Self.show, entry: UIFixtures.entry(4, "Episode 4"))])]
                + UIFixtures.keys(" "))
        #expect(new.1.last == .enqueue(UIFixtures.entry(4, "Episode 4")))
        #expect(UIFixtures.run(UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("4")).0, UIFixtures.keys(" ")).1.isEmpty, "no episode list")
        let (said, _) = UIFixtures.run(UIFixtures.browsing(), [.queued(title: "Episode 2", .added(number: 4))])
        #expect(said.status == StatusLine("Added Episode 2 to the queue (4)."))
        let (again, _) = UIFixtures.run(UIFixtures.browsing(), [.queued(title: "Episode 2", .alreadyQueued(number: 1))])
        #expect(again.status == StatusLine("Episode 2 is in the queue already (1)."))
    }

    @Test func inTheQueueKAndJMoveTheEntryXRemovesItAndEnterPlaysIt() {
        let state = Self.onQueue()
        let (down, moved) = UIFixtures.run(state, UIFixtures.keys("J"))
        #expect(down.queue.items.map(\.entry.id) == [1, 3, 2] && down.queue.selected?.entry.id == 3)
        #expect(moved == [.moveInQueue(episodeID: 3, to: 2)])
        let (up, movedUp) = UIFixtures.run(down, UIFixtures.keys("K"))
        #expect(up.queue.items.map(\.entry.id) == [3, 1, 2] && up.queue.selected?.entry.id == 3)
        #expect(movedUp == [.moveInQueue(episodeID: 3, to: 1)])
        #expect(UIFixtures.run(state, UIFixtures.keys("K")).1.isEmpty, "the first goes no higher")
        #expect(UIFixtures.run(state, UIFixtures.keys("jx")).1.last == .dequeue(episodeID: 1))
        let (playing, played) = UIFixtures.run(state, [.key(.down), .key(.enter)])
        #expect(playing.playing?.episodeID == 1)
        #expect(played.last == .play(UIFixtures.entry(1, "Episode 1"), of: Self.show))
        // Outside the queue, x still deletes the file.
        #expect(UIFixtures.run(UIFixtures.browsing(), [.key(.tab), .key(.character("x"))]).1 == [.deleteFile(UIFixtures.entry(1, "Episode 1"))])
    }

    @Test func nPlaysTheNextAndCClearsTheQueue() {
        #expect(UIFixtures.run(UIFixtures.browsing(), UIFixtures.keys("n")).1 == [.nextInQueue(after: nil)])
        let (playing, _) = UIFixtures.run(Self.onQueue(), [.key(.enter)])
        #expect(UIFixtures.run(playing, UIFixtures.keys("n")).1 == [.nextInQueue(after: 3)])
        let next = Self.queued([3, 1])[1]
        let (second, commands) = UIFixtures.run(playing, [.nextInQueue(next, autoplay: false)])
        #expect(second.playing?.episodeID == 1 && commands == [.play(next.entry, of: Self.show)])
        let (nothing, none) = UIFixtures.run(playing, [.nextInQueue(nil, autoplay: false)])
        #expect(nothing.status == StatusLine("Nothing to play next in the queue.") && none.isEmpty)
        #expect(UIFixtures.run(playing, UIFixtures.keys("c")).1 == [.clearQueue])
        #expect(UIFixtures.run(playing, [.queueCleared(count: 2)]).0.status == StatusLine("Cleared the queue (2 episodes)."))
    }

    @Test func anEpisodeThatEndsAdvancesTheQueueAndTheNextPlaysByItself() {
        let (playing, _) = UIFixtures.run(Self.onQueue(), [.key(.enter)])
        let end = ListeningEnd(position: 600, duration: 600, played: true, reason: .end)
        let (ended, commands) = UIFixtures.run(playing, [.listening(episodeID: 3, .ended(end), now: 1)])
        #expect(ended.playing == nil)
        #expect(commands.contains(.advanceQueue(after: 3, end, playsNext: true)))
        let next = Self.queued([1])[0]
        let (autoplayed, started) = UIFixtures.run(ended, [.nextInQueue(next, autoplay: true)])
        #expect(autoplayed.playing?.episodeID == 1 && started == [.play(next.entry, of: Self.show)])
        // An episode the listener started meanwhile is not replaced.
        let (other, _) = UIFixtures.run(ended, [.key(.down), .key(.enter)])
        #expect(UIFixtures.run(other, [.nextInQueue(next, autoplay: true)]).1.isEmpty)
    }

    @Test func theSleepTimerAtTheEndOfTheEpisodeKeepsTheNextFromStarting() {
        let (playing, _) = UIFixtures.run(Self.onQueue(), [.key(.enter)] + UIFixtures.keys("ttttt"))
        #expect(playing.sleepTimer == .endOfEpisode)
        let end = ListeningEnd(position: 600, duration: 600, played: true, reason: .end)
        let (ended, commands) = UIFixtures.run(playing, [.listening(episodeID: 3, .ended(end), now: 1)])
        #expect(commands.contains(.advanceQueue(after: 3, end, playsNext: false)))
        #expect(ended.sleepTimer == .off)
    }

    @Test func thePlayersNextGoesOnEvenWhenTheSleepTimerWaitsForTheEnd() {
        let (playing, _) = UIFixtures.run(Self.onQueue(), [.key(.enter)] + UIFixtures.keys("ttttt"))
        #expect(playing.sleepTimer == .endOfEpisode)
        let end = ListeningEnd(position: 100, duration: 600, played: false, reason: .next)
        let (ended, commands) = UIFixtures.run(playing, [.listening(episodeID: 3, .ended(end), now: 1)])
        #expect(commands.contains(.advanceQueue(after: 3, end, playsNext: true)))
        #expect(ended.sleepTimer == .endOfEpisode, "the timer waits for the end of the next one")
    }

    @Test func theHelpListsTheQueueKeys() {
        let keys = HelpView.rows(UIState(width: 100, height: 30)).map(\.0)
        #expect(keys.contains("Space") && keys.contains("n") && keys.contains("c") && keys.contains("K/J") && keys.contains("x"))
    }
}
