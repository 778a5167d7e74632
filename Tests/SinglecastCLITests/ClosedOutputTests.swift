import Foundation
import Testing
import TestSupport

/// Output whose reader goes away (`singlecast episodes URL --json | head`): the command stops
/// quietly with status 141, never 0 with its output cut short.
@Suite struct ClosedOutputTests {
    /// A feed of 3,000 episodes: far more output than a pipe holds.
    static func largeFeed() -> Data {
        let items = (1...3000).map { number in
            """
            <item><title>Episode \(number) with a title long enough to fill a pipe quickly</title>
            <guid>large-\(number)</guid><pubDate>01 Jun 2024 08:00:00 GMT</pubDate>
            <enclosure url="https://example.com/media/\(number).mp3" length="1000" type="audio/mpeg"/></item>
            """
        }
        return Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Large</title>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """.utf8)
    }

    @Test(arguments: [["--json"], []])
    func aClosedPipeEndsTheCommandWithStatus141(extra: [String]) async throws {
        let server = try await TestServer.start()
        server.serve(path: "/large.xml", data: Self.largeFeed(), contentType: "application/rss+xml")
        let cli = try CLI()
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["episodes", server.url("/large.xml").absoluteString] + extra
        process.environment = cli.environment
        let output = Pipe()
        let errors = cli.home.appendingPathComponent("closed.stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read the start, as `head` does, then go away.
        // (On a thread of its own: the blocking read must not hold one that the server needs.)
        let reader = output.fileHandleForReading
        let start = await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: (try? reader.read(upToCount: 1000)) ?? Data()) }
        }
        try reader.close()
        try await waitUntil { !process.isRunning }
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(!start.isEmpty)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 141, "\(stderr)")
        #expect(stderr == "")
        try await server.stop()
        cli.removeHome()
    }
}
