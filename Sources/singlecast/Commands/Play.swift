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
                does; with --found, as the last `singlecast find` did, and a match in a transcript plays \
                from 5 s before the moment it was said). Without N, the episode heard most recently that is not finished continues. \
                Playing resumes 5 s before the saved position; stopping within the last 30 s (or 2 %) \
                marks the episode played. mpv's own keys work on a terminal: space pauses, arrows seek, \
                q quits; with mpv-mpris installed, the desktop's media keys and controls work too \
                (config: player-mpris). The player is mpv on PATH, or the program $SINGLECAST_PLAYER (or the config \
                file's player) names, given the config file's player-options. \
                With --queue the queue plays through: an episode heard to its end leaves it and the \
                next starts by itself, and the desktop's Next (or mpv's >) skips to it; q or Ctrl-C \
                stops, the episode staying queued with its position.
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

        @Flag(help: "Play the queue (`singlecast queue`) through, from its first episode.")
        var queue = false

        @Option(help: "Stop after this long (15m, 1h, 90s), or at the end of the episode (end), saving the position.")
        var sleep: SleepTimer?

        @Flag(help: "Print what happens as JSON, one event per line.")
        var json = false

        func validate() throws {
            if queue && (episode != nil || selection.new || selection.feed != nil) {
                throw ValidationError("--queue plays the queue: it takes no episode number, --new or --feed.")
            }
            if queue && (at != nil || fromStart) { throw ValidationError("--queue does not go with --at or --from-start.") }
            if at != nil && fromStart { throw ValidationError("--at and --from-start do not go together.") }
            if let episode, episode < 1 { throw ValidationError("'\(episode)' is not an episode number.") }
            if episode == nil && (selection.new || selection.found || selection.feed != nil) {
                throw ValidationError("--new, --found and --feed need an episode number.")
            }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let first = try await self.chosen(library: library)
            let settings = try global.configuration()
            let executable = try PlayerExecutable.locate(configured: settings[.player].value?.text, environment: global.environment)
            let interactive = isatty(STDIN_FILENO) == 1
            // On a terminal mpv's status line is its face (on standard error with --json, which
            // keeps standard output to the events); off one, Singlecast's lines say it all.
            let output: MpvPlayer.TerminalOutput = interactive ? (json ? .standardError : .inherit) : .discard
            let player = MpvPlayer(
                executable: executable, libraryDirectory: global.libraryDirectory, terminalOutput: output,
                environment: global.environment, extraOptions: settings.playerOptions, mpris: settings.playerMPRIS)
            let start = fromStart ? 0 : at?.seconds ?? first.moment.map(ListeningRules.startPosition(forMomentAt:))
            let options = EpisodeListening.Options(
                start: start, speed: speed?.value, interactive: interactive, defaultSpeed: settings.speed, offersNext: queue)
            // mpv puts the terminal in raw mode; one that dies cannot put it back.
            let terminal = TerminalSettings.save()
            defer { terminal?.restore() }
            let stop = PlayStop(sleepTimer: sleep.flatMap { if case .after(let duration) = $0 { duration } else { nil } })
            defer { stop.disarmSleepTimer() }
            let outcome = try await SignalGuard.run(onSignal: { await stop.request(bySleepTimer: false) }) {
                var current = first
                while true {
                    let end = try await listen(to: current, library: library, player: player, options: options, stop: stop)
                    guard queue, let end else { return (end, current) }
                    // The queue's rule decides what leaves it and what plays next.
                    let next = try await library.advanceQueue(after: current.entry.id, end)
                    guard let next, sleep != .endOfEpisode || end.reason == .next, !stop.isRequested else { return (end, current) }
                    current = ChosenEpisode(podcast: next.podcast, entry: next.entry)
                }
            }
            let (end, last) = outcome.value
            if stop.bySleepTimer, end?.reason == .stopped { return }
            try Self.exit(after: end, signal: outcome.exitCode, episode: last)
        }

        /// Plays one episode to its end, rendering its events; returns how it ended (nil when no
        /// end was reported).
        private func listen(
            to chosen: ChosenEpisode, library: Library, player: MpvPlayer, options: EpisodeListening.Options, stop: PlayStop
        ) async throws -> ListeningEnd? {
            let started: EpisodeListening
            do {
                started = try await EpisodeListening.start(chosen.entry, of: chosen.podcast, library: library, player: player, options: options)
            } catch let error as ListeningError {
                // A start past the end is a bad --at: the usage error's exit status.
                guard case .startPastEnd = error else { throw error }
                printError("Error: \(Words.listening(error))")
                throw ExitCode(64)
            }
            await stop.playing(started)
            if case .stream(let url) = started.source {
                printError("streaming: \(url.removingUserInfo.absoluteString) (not downloaded)")
            }
            let renderer = ListeningRenderer(json: json, episode: chosen, source: started.source)
            var end: ListeningEnd?
            for await event in started.events {
                if case .started = event { stop.armSleepTimer() }
                renderer.render(event, stoppedBySleepTimer: stop.bySleepTimer)
                if case .ended(let last) = event { end = last }
            }
            return end
        }

        /// The first episode of the queue, the episode numbered, or the one heard last.
        private func chosen(library: Library) async throws -> ChosenEpisode {
            guard queue else { return try await chosenEpisode(library: library) }
            guard let first = try await library.nextInQueue(after: nil) else { throw LibraryError.noSuchQueueEntry(number: 1, count: 0) }
            return ChosenEpisode(podcast: first.podcast, entry: first.entry)
        }

        /// The episode numbered, or the one heard last.
        private func chosenEpisode(library: Library) async throws -> ChosenEpisode {
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
            case .end, .quit, .next:
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

/// What stops `play`: a signal or the sleep timer, for the episode playing and any the queue
/// would start after it.
private final class PlayStop: Sendable {
    private struct State {
        var listening: EpisodeListening?
        var requested = false
        var bySleepTimer = false
        var sleepTimerTask: Task<Void, Never>?
    }
    private let state = Mutex(State())
    /// How long after playback first starts the sleep timer stops it; nil for none.
    private let sleepTimer: Duration?

    init(sleepTimer: Duration?) {
        self.sleepTimer = sleepTimer
    }

    /// Whether a stop was asked for: nothing more starts.
    var isRequested: Bool { state.withLock { $0.requested } }
    /// Whether the sleep timer asked for it.
    var bySleepTimer: Bool { state.withLock { $0.bySleepTimer } }

    /// Starts the sleep timer, once: it counts from the first sound, not from mpv's launch,
    /// which can take longer than a short timer.
    func armSleepTimer() {
        guard let duration = sleepTimer else { return }
        state.withLock { state in
            guard state.sleepTimerTask == nil else { return }
            state.sleepTimerTask = Task {
                guard (try? await Task.sleep(for: duration)) != nil else { return }
                await self.request(bySleepTimer: true)
            }
        }
    }

    /// Cancels a sleep timer still counting.
    func disarmSleepTimer() {
        state.withLock { $0.sleepTimerTask }?.cancel()
    }

    /// Stops the episode playing (its position saved), and any that starts later.
    func request(bySleepTimer: Bool) async {
        let listening = state.withLock { state in
            if !state.requested { state.bySleepTimer = bySleepTimer }
            state.requested = true
            return state.listening
        }
        await listening?.stop()
    }

    /// The episode now playing; stopped at once when a stop came before it started.
    func playing(_ listening: EpisodeListening) async {
        let stopsNow = state.withLock { state in
            state.listening = listening
            return state.requested
        }
        if stopsNow { await listening.stop() }
    }
}
