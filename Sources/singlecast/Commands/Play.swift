import ArgumentParser
import Foundation
import SinglecastKit
import Synchronization

extension Singlecast {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Listen to an episode with mpv, from where you stopped.",
            discussion: """
                N numbers episodes as `singlecast episodes` lists them (with --new, as `singlecast new` \
                does). Without N, the episode heard most recently that is not finished continues. \
                Playing resumes 5 s before the saved position; stopping within the last 30 s (or 2 %) \
                marks the episode played. mpv's own keys work on a terminal: space pauses, arrows seek, \
                q quits. The player is mpv on PATH, or the program $SINGLECAST_PLAYER (or the config \
                file's player) names, given the config file's player-options.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: EpisodeSelection

        @Argument(help: "The episode's number; none continues the episode heard last.")
        var episode: Int?

        @Option(help: "Start here instead of where you stopped: 90, 12:30 or 1:02:03.")
        var at: TimeOffset?

        @Flag(help: "Start from the beginning.")
        var fromStart = false

        @Option(help: "Play at this speed, 0.25 to 4 (remembered for the podcast; config: speed, for podcasts without one).")
        var speed: PlaybackSpeed?

        @Flag(help: "Print what happens as JSON, one event per line.")
        var json = false

        func validate() throws {
            if at != nil && fromStart { throw ValidationError("--at and --from-start do not go together.") }
            if let episode, episode < 1 { throw ValidationError("'\(episode)' is not an episode number.") }
            if episode == nil && (selection.new || selection.feed != nil) {
                throw ValidationError("--new and --feed need an episode number.")
            }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let chosen = try await self.chosen(library: library)
            let settings = try global.configuration()
            let executable = try PlayerExecutable.locate(configured: settings[.player].value?.text, environment: global.environment)
            let interactive = isatty(STDIN_FILENO) == 1
            // On a terminal mpv's status line is its face (on standard error with --json, which
            // keeps standard output to the events); off one, Singlecast's lines say it all.
            let output: MpvPlayer.TerminalOutput = interactive ? (json ? .standardError : .inherit) : .discard
            let player = MpvPlayer(
                executable: executable, libraryDirectory: global.libraryDirectory, terminalOutput: output,
                environment: global.environment, extraOptions: settings.playerOptions)
            let options = EpisodeListening.Options(
                start: fromStart ? 0 : at?.seconds, speed: speed?.value, interactive: interactive, defaultSpeed: settings.speed)
            // mpv puts the terminal in raw mode; one that dies cannot put it back.
            let terminal = TerminalSettings.save()
            defer { terminal?.restore() }
            let listening = Mutex<EpisodeListening?>(nil)
            let outcome = try await SignalGuard.run(onSignal: { await listening.withLock { $0 }?.stop() }) {
                let started: EpisodeListening
                do {
                    started = try await EpisodeListening.start(
                        chosen.entry, of: chosen.podcast, library: library, player: player, options: options)
                } catch let error as ListeningError {
                    // A start past the end is a bad --at: the usage error's exit status.
                    guard case .startPastEnd = error else { throw error }
                    printError("Error: \(Words.listening(error))")
                    throw ExitCode(64)
                }
                listening.withLock { $0 = started }
                if case .stream(let url) = started.source {
                    printError("streaming: \(url.removingUserInfo.absoluteString) (not downloaded)")
                }
                let renderer = ListeningRenderer(json: json, episode: chosen, source: started.source)
                var end: ListeningEnd?
                for await event in started.events {
                    renderer.render(event)
                    if case .ended(let last) = event { end = last }
                }
                return end
            }
            try Self.exit(after: outcome.value, signal: outcome.exitCode, episode: chosen)
        }

        /// The episode numbered, or the one heard last.
        private func chosen(library: Library) async throws -> ChosenEpisode {
            if let episode { return try await selection.episodes([episode], library: library)[0] }
            guard let last = try await library.lastHeardEpisode() else { throw ListeningError.nothingToContinue }
            let position = last.entry.playback.position.map { " at \(Words.position($0, of: last.entry.episode.duration.map(Double.init)))" } ?? ""
            printError("continuing: \(last.podcast.podcast.title): \(last.entry.episode.title)\(position)")
            return ChosenEpisode(podcast: last.podcast, entry: last.entry)
        }

        /// Exit 0 after the end or a quit, 128 + the signal's number after a signal, 1 when the
        /// episode could not be played or the player died.
        private static func exit(after end: ListeningEnd?, signal: ExitCode?, episode: ChosenEpisode) throws {
            guard let end else { throw ExitCode.failure }
            switch end.reason {
            case .end, .quit:
                if let signal { throw signal }
            case .stopped:
                throw signal ?? ExitCode(130)
            case .playerDied:
                throw CommandFailure(message: Words.playerDied(end))
            case .failed(let failure):
                throw CommandFailure(message: Words.cannotPlay(episode.entry, failure))
            }
        }
    }
}
