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
