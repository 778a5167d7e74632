import Foundation
import SinglecastKit
import Testing

@testable import singlecast

/// The daemon's log lines, from the values the daemon reports.
@Suite struct WordsDaemonTests {
    let url = "https://h/ep.mp3"

    @Test func aFailedDownloadIsLoggedInWordsNotAsItsStoredValue() throws {
        let failure = DownloadError(.http(HTTPError(.status(404), url: try #require(URL(string: url)))), url: try #require(URL(string: url)))
        let download = Download(
            id: 3, enclosureURL: url, state: .error, file: "/x/ep.mp3", podcastTitle: "Show", episodeTitle: "Ep", failure: failure)
        #expect(Words.daemonLog(.download(.failed(download))) == ["failed #3: https://h/ep.mp3 answered HTTP 404 Not Found"])
    }

    @Test func aRetryNamesItsTimeAndReason() {
        let download = Download(
            id: 1, enclosureURL: url, state: .retrying, file: "/x/ep.mp3", podcastTitle: "Show", episodeTitle: "Ep",
            retryReason: .connectionRefused, nextTryAt: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(Words.daemonLog(.download(.retrying(download))) == ["retrying #1 at 2023-11-14T22:13:20Z: connection refused"])
    }

    @Test func theDaemonsOwnEvents() {
        #expect(Words.daemonLog(.listening(socket: "/run/s", processID: 42)) == ["listening on /run/s (process 42)"])
        #expect(Words.daemonLog(.resuming(count: 1)) == ["resuming 1 interrupted download"])
        #expect(Words.daemonLog(.resuming(count: 2)) == ["resuming 2 interrupted downloads"])
        #expect(Words.daemonLog(.hookFailed(file: "/x/ep.mp3", status: 3)) == ["on-complete hook exited with status 3 for /x/ep.mp3"])
        #expect(Words.daemonLog(.stopped) == ["stopped"])
    }

    @Test func progressIsLeftOut() {
        #expect(Words.daemonLog(.download(.progress(id: 1, receivedBytes: 10, totalBytes: 100))).isEmpty)
    }
}
