import Foundation
import Testing
import TestSupport

/// The README's first minutes, on a machine without internet: the demo feed in
/// `Fixtures/demo`, served on loopback, lists, downloads and shows its episodes.
@Suite struct QuickStartTests {
    @Test func theDemoFeedDownloads() async throws {
        let server = try await TestServer.start()
        // The README serves the folder on port 8765; the test on a port of its own.
        let feed = try String(contentsOf: Fixtures.url("demo/feed.xml"), encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:8765", with: "127.0.0.1:\(server.port)")
        server.serve(path: "/feed.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        for name in ["one", "two", "three"] {
            server.serve(path: "/\(name).wav", data: try Data(contentsOf: Fixtures.url("demo/\(name).wav")), contentType: "audio/wav")
        }
        let cli = try CLI()
        let listed = try await cli.run(["episodes", server.url("/feed.xml").absoluteString])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.hasPrefix("Singlecast Demo\n"))
        let downloaded = try await cli.run(["download", "1"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let file = cli.episodesDirectory.appendingPathComponent("Singlecast Demo/Three Tones.wav")
        #expect(try Data(contentsOf: file) == Data(contentsOf: Fixtures.url("demo/three.wav")))
        let shown = try await cli.run(["show", "1"])
        #expect(shown.stdout.contains("A 660 Hz tone."))
        try await server.stop()
        cli.removeHome()
    }

    /// The feed's announced sizes are its files' sizes, so the demo never warns of a mismatch.
    @Test func theDemoFeedAnnouncesItsFilesSizes() throws {
        let feed = try String(contentsOf: Fixtures.url("demo/feed.xml"), encoding: .utf8)
        for name in ["one", "two", "three"] {
            let size = try Data(contentsOf: Fixtures.url("demo/\(name).wav")).count
            #expect(feed.contains(#"url="http://127.0.0.1:8765/\#(name).wav" length="\#(size)""#), "\(name)")
        }
    }
}
