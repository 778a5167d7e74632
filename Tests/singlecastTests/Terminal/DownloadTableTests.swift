import Foundation
import SinglecastKit
import Testing

@testable import singlecast

/// The `downloads` table at a terminal's width and whole in a pipe.
@Suite struct DownloadTableTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let folder = "/tmp/singlecast-cli-0123/Episodes/Loopback Radio/"

    var downloads: [Download] {
        [
            Download(
                id: 1, enclosureURL: "http://h/3.mp3", state: .completed, receivedBytes: 300_000, expectedBytes: 300_000,
                file: folder + "Episode Three: Café & Résumé.mp3", podcastTitle: "Loopback Radio",
                episodeTitle: "Episode Three: Café & Résumé", updatedAt: now),
            Download(
                id: 2, enclosureURL: "http://h/1.mp3", state: .downloading, receivedBytes: 150_000_000, expectedBytes: 300_000_000,
                file: folder + "Episode One.mp3", podcastTitle: "Loopback Radio", episodeTitle: "Episode One",
                bytesPerSecond: 4_200_000, updatedAt: now),
            Download(
                id: 3, enclosureURL: "http://h/2.mp3", state: .retrying, receivedBytes: 9_000_000, expectedBytes: 30_000_000,
                file: folder + "Episode Two.mp3", podcastTitle: "Loopback Radio", episodeTitle: "Episode Two", updatedAt: now,
                retryReason: .connectionRefused, nextTryAt: now + 40),
        ]
    }

    @Test func eightyColumnsCutTheEpisodeThenThePathThenARetrysReason() {
        let lines = DownloadTable.render(downloads, now: now, width: 80).split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { TerminalText.width($0) <= 80 }, "\(lines)")
        // Every row keeps every column, its file's name ending it.
        #expect(lines[1].hasSuffix("  Loopback …  …ésumé.mp3") && lines[2].hasSuffix("  Loopback …  …e One.mp3"), "\(lines)")
        #expect(lines[3].hasPrefix(" 3  retrying in…   30%") && lines[3].hasSuffix("  Loopback …  …e Two.mp3"), "\(lines)")
        #expect(
            lines[4...] == [
                "Total: 1 completed, 2 active, 159 MB of 330 MB of the unfinished ones (48%),", "4.2 MB/s, 0:40 left",
            ])
    }

    @Test func aPipeGetsWholeValues() {
        let lines = DownloadTable.render(downloads, now: now, width: nil).split(separator: "\n").map(String.init)
        #expect(lines[1].hasSuffix("Loopback Radio: Episode Three: Café & Résumé  \(folder)Episode Three: Café & Résumé.mp3"))
        #expect(lines[3].contains("retrying in 40 s: connection refused"))
        #expect(lines[4] == "Total: 1 completed, 2 active, 159 MB of 330 MB of the unfinished ones (48%), 4.2 MB/s, 0:40 left")
    }

    @Test func aTryWhoseTimeHasComeIsRetryingNow() {
        let lines = DownloadTable.render(downloads, now: now + 41, width: nil).split(separator: "\n").map(String.init)
        #expect(lines[3].contains("  retrying now: connection refused  "), "\(lines)")
    }
}
