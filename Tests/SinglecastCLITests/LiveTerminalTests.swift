import Foundation
import Testing
import TestSupport

/// The built binary on a real terminal (tmux) of 80 columns: tables cut to its width, and live
/// displays redrawn in place, at the new width after a resize.
@Suite(.timeLimit(.minutes(3))) struct LiveTerminalTests {
    /// Starts `arguments` on a terminal of `columns` × 24 in the show's library, in a UTF-8 locale.
    func terminal(_ show: LoopbackShow, _ arguments: [String], columns: Int = 80) throws -> TerminalSession {
        var environment = show.cli.environment
        environment["LANG"] = "C.UTF-8"
        return try TerminalSession.start(
            [CLI.executable.path] + arguments, environment: environment, columns: columns, rows: 24, folder: show.cli.home)
    }

    /// Waits until the screen (with what scrolled off it, when `history`) satisfies `condition`
    /// and returns it; past the wait, the failure shows the last screen.
    func screen(
        _ terminal: TerminalSession, history: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([String]) -> Bool
    ) async throws -> [String] {
        var last: [String] = []
        do {
            try await waitUntil(sourceLocation: sourceLocation) {
                last = try terminal.lines(history: history)
                return condition(last)
            }
        } catch {
            Issue.record("the screen: \(last)", sourceLocation: sourceLocation)
            throw error
        }
        return last
    }

    /// Whether every line fits `columns` (the lines are ASCII but for `…` and the bar).
    func fit(_ lines: [String], _ columns: Int) -> Bool {
        lines.allSatisfy { $0.count <= columns }
    }

    /// The live lines of `download`: those with a bar.
    func bars(_ lines: [String]) -> [String] {
        lines.filter { $0.contains("━") || $0.contains("─") }
    }

    @Test func downloadsWatchRedrawsInPlaceAndFollowsAResize() async throws {
        let show = try await LoopbackShow.start()
        let (download, _) = try await show.startSlowDownloadOfEpisodeOne(size: 60_000_000)
        let terminal = try terminal(show, ["downloads", "--watch"])
        defer {
            terminal.stop()
            download.terminate()
        }
        var shown = try await screen(terminal) { $0.contains { $0.contains("downloading") } }
        // The bytes move on every redraw: two changes are two redraws.
        for _ in 0..<2 {
            let before = shown
            shown = try await screen(terminal) { $0 != before }
        }
        let history = try terminal.lines(history: true)
        #expect(history.filter { $0.hasPrefix("ID  State") }.count == 1, "\(history)")
        #expect(fit(history, 80), "\(history)")
        #expect(shown.contains { $0.contains("…") && $0.hasSuffix("One.mp3") }, "\(shown)")

        // A narrower terminal rewraps what is on it: the next frame replaces all of it.
        try terminal.resize(columns: 60, rows: 24)
        let resized = try await screen(terminal) { fit($0, 60) && $0.contains { $0.hasPrefix("Total: ") } }
        #expect(resized.filter { $0.hasPrefix("ID  State") }.count == 1, "\(resized)")
        terminal.stop()
        download.terminate()
        download.waitUntilExit()
        try await show.stop()
    }

    @Test func downloadShowsABarPerDownloadAndFollowsAResize() async throws {
        let show = try await LoopbackShow.start()
        show.server.serve(path: "/media/one.mp3", generatedSize: 60_000_000, contentType: "audio/mpeg", bytesPerSecond: 1_000_000)
        show.server.serve(path: "/media/two.mp3", generatedSize: 60_000_000, contentType: "audio/mpeg", bytesPerSecond: 1_000_000)
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let terminal = try terminal(show, ["download", "2", "3"])
        defer { terminal.stop() }
        let lines = bars(try await screen(terminal) { bars($0).count == 3 })
        #expect(Set(lines.map { String($0.prefix(13)) }) == ["Episode Two  ", "Episode One  ", "Total        "], "\(lines)")
        #expect(lines[2].hasPrefix("Total"))
        // Aligned: the bar starts in the same column on every line.
        let barStarts = lines.map { line in line.prefix { $0 != "━" && $0 != "─" }.count }
        #expect(Set(barStarts).count == 1, "\(lines)")
        let history = try terminal.lines(history: true)
        #expect(history.filter { $0.hasPrefix("Total") }.count == 1, "\(history)")

        try terminal.resize(columns: 40, rows: 24)
        let resized = try await screen(terminal) { fit($0, 40) && bars($0).count == 3 }
        #expect(resized.filter { $0.hasPrefix("Total") }.count == 1, "\(resized)")
        terminal.stop()
        try await show.stop()
    }

    @Test func tablesFitEightyColumnsWhilePipesKeepWholeValues() async throws {
        let show = try await LoopbackShow.start()
        let long = "Episode Three: Café & Résumé, a title far too long for an eighty-column terminal"
        let feed = try String(contentsOf: Fixtures.url("cli/show.xml"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: "127.0.0.1:\(show.server.port)")
            .replacingOccurrences(of: "Episode Three: Café &amp; Résumé", with: long.replacingOccurrences(of: "&", with: "&amp;"))
        show.server.serve(path: "/feeds/show.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        #expect(try await show.cli.run(["subscribe", show.feedURL]).status == 0)
        let piped = try await show.cli.run(["episodes", "@1"])
        #expect(piped.stdout.contains(long))

        let terminal = try terminal(show, ["episodes", "@1"])
        defer { terminal.stop() }
        let lines = try await screen(terminal) { $0.contains { $0.contains("(no audio)") } }
        #expect(fit(lines, 80), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("1  2024-07-03  1:02:03  300 kB  -      Episode Three: Café & Résumé, a") && $0.hasSuffix("…") })
        terminal.stop()
        try await show.stop()
    }
}
