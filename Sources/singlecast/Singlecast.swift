import ArgumentParser
import Foundation
import SinglecastKit

@main
struct Singlecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "singlecast",
        abstract: "A podcast client: search shows, subscribe, list their episodes, download them, listen.",
        discussion: """
            Files live in $SINGLECAST_HOME (default $XDG_DATA_HOME/singlecast, else \
            ~/.local/share/singlecast): library.sqlite and the Episodes folder.
            PODCAST arguments name a subscription as @N (its number in `singlecast podcasts`), \
            by feed URL, or by a part of its title; a bare number N is a search result.
            """,
        version: SinglecastVersion.current,
        subcommands: [
            Search.self, Episodes.self, Show.self, Download.self, Downloads.self,
            Pause.self, Resume.self, Cancel.self, Daemon.self,
            Subscribe.self, Unsubscribe.self, Podcasts.self, Update.self, New.self, MarkOld.self, Delete.self,
            Find.self, Play.self, Played.self, Unplayed.self, Queue.self,
            Import.self, Export.self, Sync.self, UI.self, Config.self, MoveFiles.self,
        ]
    )

    /// Runs the command the arguments name (the terminal UI when there are none and the
    /// program runs on a terminal); a library failure it ends with is printed in Singlecast's
    /// words (``Words/error(_:)``), as `Error: …` with exit 1.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let message = UnknownCommand.message(for: arguments, commands: configuration.subcommands.map { $0._commandName }) {
            printError("Error: \(message)")
            exit(withError: ExitCode.validationFailure)
        }
        Library.prepareProcess()
        if arguments.isEmpty && UI.isAtTerminal { arguments = [UI.configuration.commandName!] }
        let environment = ProcessInfo.processInfo.environment
        // The library opens while the configuration is read, then the arguments parsed.
        EarlyLibrary.start(
            for: Self.self, arguments: arguments,
            directory: LibraryLocation.directory(environment: environment))
        // A bad config file stops a command before it changes anything; `config` shows the
        // file itself, and help, the version and completions need none.
        if arguments.first != Config.configuration.commandName, !InformationRequest.isAsked(in: arguments) {
            do {
                _ = try LoadedConfiguration.current(environment: environment)
            } catch {
                exit(withError: error)
            }
        }
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            await EarlyLibrary.closeAll()
        } catch {
            await EarlyLibrary.closeAll()
            exit(withError: Words.error(error).map(CommandFailure.init) ?? error)
        }
    }
}

/// A failure while running, in Singlecast's words (without the control characters a feed's
/// title could have brought into them).
struct CommandFailure: LocalizedError {
    var message: String
    var errorDescription: String? { TerminalText.sanitized(message, keepingLineBreaks: true) }
}
