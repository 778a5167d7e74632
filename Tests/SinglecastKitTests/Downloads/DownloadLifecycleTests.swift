import Foundation
import Testing

@testable import SinglecastKit

@Suite struct DownloadLifecycleTests {
    /// Every allowed move, written out: (from, event) → to. Every pair not listed is refused.
    static let allowed: [DownloadState: [DownloadLifecycle.Event: DownloadState]] = [
        .notStarted: [.claim: .waiting, .pause: .paused, .cancel: .cancelled, .fileFound: .completed, .delete: .deleted],
        .waiting: [
            .transfer: .downloading, .retryLater: .retrying, .complete: .completed, .fail: .error,
            .interrupt: .interrupted, .pause: .paused, .cancel: .cancelled, .fileFound: .completed,
        ],
        .downloading: [
            .transfer: .downloading, .retryLater: .retrying, .complete: .completed, .fail: .error,
            .interrupt: .interrupted, .pause: .paused, .cancel: .cancelled, .fileFound: .completed,
        ],
        .retrying: [
            .claim: .waiting, .resume: .waiting, .transfer: .downloading, .retryLater: .retrying, .complete: .completed,
            .fail: .error, .interrupt: .interrupted, .pause: .paused, .cancel: .cancelled, .fileFound: .completed,
        ],
        .paused: [.claim: .waiting, .resume: .waiting, .cancel: .cancelled, .fileFound: .completed, .delete: .deleted],
        .completed: [.fileLost: .notStarted, .fileLostKeepingPart: .interrupted, .delete: .deleted],
        .cancelled: [.claim: .waiting, .fileFound: .completed, .delete: .deleted],
        .interrupted: [
            .claim: .waiting, .resume: .waiting, .pause: .paused, .cancel: .cancelled, .fileFound: .completed,
            .delete: .deleted,
        ],
        .error: [.claim: .waiting, .resume: .waiting, .cancel: .cancelled, .fileFound: .completed, .delete: .deleted],
        // A deleted episode's download is over: only asking for the episode again starts it.
        .deleted: [.claim: .waiting, .fileFound: .completed],
    ]

    @Test(arguments: DownloadState.allCases)
    func everyEventFrom(state: DownloadState) {
        for event in DownloadLifecycle.Event.allCases {
            let result = DownloadLifecycle.transition(from: state, on: event)
            if let expected = Self.allowed[state]?[event] {
                #expect(result == .success(expected), "\(state) on \(event)")
            } else {
                #expect(result == .failure(DownloadLifecycle.Refusal(state: state, event: event)), "\(state) on \(event)")
            }
        }
    }

    @Test func onlyWaitingDownloadingAndRetryingAreUnderWay() {
        #expect(DownloadState.allCases.filter(DownloadLifecycle.isUnderWay) == [.waiting, .downloading, .retrying])
    }

    /// The dead-owner rule: only a download under way can have a gone owner, and it has one
    /// when none is recorded or its process no longer runs.
    @Test(arguments: DownloadState.allCases)
    func anOwnerIsGoneOnlyUnderWayAndOnlyWhenItsProcessIsNot(state: DownloadState) {
        func download(owner: DownloadOwner?) -> Download {
            Download(
                id: 1, enclosureURL: "http://h/e.mp3", state: state, file: "/x/e.mp3", podcastTitle: "P",
                episodeTitle: "E", owner: owner)
        }
        let underWay = DownloadLifecycle.isUnderWay(state)
        #expect(DownloadLifecycle.ownerIsGone(download(owner: .current)) == false)
        #expect(DownloadLifecycle.ownerIsGone(download(owner: nil)) == underWay)
        #expect(DownloadLifecycle.ownerIsGone(download(owner: DownloadOwner(processID: Int32.max, startTime: nil))) == underWay)
        // This process's id with another start time: the id was reused.
        let reused = DownloadOwner(processID: getpid(), startTime: (DownloadOwner.current.startTime ?? 0) + 1)
        #expect(DownloadLifecycle.ownerIsGone(download(owner: reused)) == underWay)
    }

    /// What entering a state does besides the state: every component applies events this way.
    @Test func applyingAnEventReleasesTheOwnerAndClearsWhatNoLongerHolds() {
        var download = Download(
            id: 1, enclosureURL: "http://h/e.mp3", state: .retrying, file: "/x/e.mp3", podcastTitle: "P", episodeTitle: "E",
            bytesPerSecond: 1_000, owner: .current, retryReason: .connectionRefused, nextTryAt: Date())
        #expect(DownloadLifecycle.apply(.transfer, to: &download))
        #expect(download.state == .downloading && download.owner == .current)
        #expect(download.retryReason == nil && download.nextTryAt == nil)
        download.bytesPerSecond = 2_000
        #expect(DownloadLifecycle.apply(.pause, to: &download))
        #expect(download.state == .paused && download.owner == nil && download.bytesPerSecond == nil)
        let paused = download
        #expect(!DownloadLifecycle.apply(.complete, to: &download))
        #expect(download == paused)
    }
}
