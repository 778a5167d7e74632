import ArgumentParser
import Foundation
import SinglecastKit
import SinglecastUI

extension Singlecast {
    struct UI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ui",
            abstract: "Browse, listen and download with keys, full screen (`singlecast` alone on a terminal opens it).",
            discussion: """
                Three panes (podcasts, episodes, details), a now-playing line and views switched with \
                number keys: 1 podcasts, 2 new, 3 queue, 4 downloads, 5 directory search. h shows every key; q quits.
                """)

        @OptionGroup var global: GlobalOptions

        /// Whether standard input and output are both a terminal: the UI reads keys from one
        /// and draws on the other.
        static var isAtTerminal: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

        func run() async throws {
            guard Self.isAtTerminal else {
                throw CommandFailure(message: "the terminal UI needs a terminal: standard input and output must both be one")
            }
            // Diagnostics on standard error would be drawn over the screen.
            global.silenceLogging()
            let library = try await global.openLibrary()
            let settings = try global.configuration()
            let (keyMap, colors) = try LoadedConfiguration.uiTables(settings)
            let configuration = TerminalUI.Configuration(
                library: library, libraryDirectory: global.libraryDirectory, environment: global.environment,
                executablePath: global.executablePath, settings: settings, keyMap: keyMap, colors: colors)
            guard let status = await TerminalUI.run(configuration) else {
                throw CommandFailure(
                    message: "the terminal (TERM=\(global.environment["TERM"] ?? "")) cannot show the UI: ncurses does not know it, or it cannot move the cursor")
            }
            if status != 0 { throw ExitCode(status) }
        }
    }
}
