import Foundation
import Testing

@testable import SinglecastKit

@Suite("DownloadControl", .timeLimit(.minutes(1)))
struct DownloadControlTests {
    /// Without an engine nothing can download: a resume says so and changes nothing, rather than
    /// claiming that the state forbids it.
    @Test func aResumeWithoutAnEngineSaysSoAndLeavesTheDownloadAlone() async throws {
        let show = try await ClaimedShow.make(titles: ["Paused"])
        defer { show.remove() }
        let claimed = show.downloads["Paused"]!
        let control = DownloadControl(buffer: show.buffer, engine: nil)
        guard case .paused? = try await control.apply(.pause, to: [claimed.id]).first else {
            Issue.record("not paused")
            return
        }
        let paused = try #require(try await show.library.download(id: claimed.id))

        let outcomes = try await control.apply(.resume, to: [claimed.id])

        #expect(outcomes == [.noDownloader(paused)])
        #expect(paused.state == .paused)
        #expect(try await show.library.download(id: claimed.id) == paused)
    }

    /// The daemon's wire carries the outcome as it is.
    @Test func aResumeWithoutAnEngineCrossesTheWireUnchanged() throws {
        let download = Download(
            id: 4, enclosureURL: "http://h/e.mp3", state: .paused, file: "/x/e.mp3", podcastTitle: "P", episodeTitle: "E",
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let reply = ControlReply(ok: true, outcomes: [WireOutcome(.noDownloader(download))])
        let decoded = try ControlCoding.decoder.decode(ControlReply.self, from: ControlCoding.encoder.encode(reply))
        #expect(decoded.controlOutcomes == [.noDownloader(download)])
    }
}
