import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Daemon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "daemon",
            abstract: "Run the background download daemon in the foreground (for systemd or a terminal).",
            discussion: """
                `singlecast download --background` starts one on demand when none runs. \
                One daemon serves a library; it resumes its interrupted downloads when it starts.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "How many downloads run at once (default 3; config: jobs).")
        var jobs: Int?

        @Option(
            name: .customLong("on-complete"),
            help: "A shell command run for each finished episode, with its path as $1 (config: on-complete).")
        var onComplete: String?

        @Option(name: .customLong("idle-exit"), help: "Exit after this many seconds with nothing to do (default: stay up).")
        var idleExit: Int?

        @Option(
            name: .customLong("give-up-after"),
            help: "End a download in the error state after this long without a byte while the network is away (90s, 10m, 24h; default 24h, or $SINGLECAST_GIVE_UP_AFTER; config: give-up-after).")
        var giveUpAfter: String?

        func validate() throws {
            try JobsOption.validate(jobs)
            if let idleExit, idleExit < 0 { throw ValidationError("--idle-exit must not be negative.") }
            _ = try settings()
        }

        /// The settings with this command's flags.
        private func settings() throws -> Settings {
            try global.configuration(flags: [
                .jobs: ("--jobs", jobs.map(SettingValue.integer)),
                .onComplete: ("--on-complete", onComplete.map(SettingValue.text)),
                .giveUpAfter: ("--give-up-after", giveUpAfter.map(SettingValue.text)),
            ])
        }

        func run() async throws {
            _ = try await global.openLibrary()
            let settings = try settings()
            var configuration = DownloadDaemon.Configuration(libraryDirectory: global.libraryDirectory)
            configuration.episodes = settings.episodesFolder(libraryDirectory: global.libraryDirectory)
            configuration.jobs = settings.jobs
            configuration.onComplete = settings[.onComplete].value?.text
            configuration.idleExit = idleExit.map { .seconds($0) }
            configuration.http = global.httpConfiguration(compressed: false)
            configuration.retryPolicy.giveUpAfter = settings.giveUpAfter ?? FileTransfer.RetryPolicy.daemonGiveUp
            let daemon = DownloadDaemon(configuration: configuration) { event in
                let stamp = Date().formatted(.iso8601)
                for line in Words.daemonLog(event) { printError("\(stamp) \(line)") }
            }
            let outcome = try await SignalGuard.run(onSignal: { await daemon.stop() }) {
                try await daemon.run()
            }
            // SIGTERM is how systemd stops a service it runs: a stop it asked for is a success.
            if outcome.signal != SIGTERM, let code = outcome.exitCode { throw code }
        }
    }
}
