import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download episodes of the current podcast (or the new ones) into the Episodes folder.",
            discussion: """
                Episodes are numbered as `singlecast episodes` lists them; with --new, as \
                `singlecast new` lists them. Finished files are never fetched again; interrupted \
                ones resume from the bytes on disk. Ctrl-C stops the transfers and keeps what \
                has arrived (exit 130).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Episode numbers or ranges, such as 3 5 7 or 1-10 (with --new: numbers from `singlecast new`, or none for all).")
        var episodes: [String] = []

        @Option(help: "Take the episodes from this feed (search result number, @N, URL, file or title) instead of the current podcast.")
        var feed: String?

        @Flag(help: "Download the new episodes of the subscriptions.")
        var new = false

        @Option(help: "How many downloads run at once (default 3; with --background, the daemon's limit; config: jobs).")
        var jobs: Int?

        @Flag(help: "Print JSON: one object per event (with --background, the claims).")
        var json = false

        @Flag(help: "Hand the episodes to the background daemon (started if needed) and return at once.")
        var background = false

        @Flag(
            help: "Also save each episode's transcripts and chapters beside its file (and those still missing of episodes already downloaded).")
        var withExtras = false

        @Option(
            name: .customLong("give-up-after"),
            help: "Stop a download after this long without a byte while the network is away (90s, 10m, 24h; default 10m, or $SINGLECAST_GIVE_UP_AFTER; config: give-up-after).")
        var giveUpAfter: String?

        func validate() throws {
            _ = try EpisodeNumbers.parse(episodes)
            if episodes.isEmpty && !new { throw ValidationError("Give episode numbers, or --new.") }
            if new && feed != nil { throw ValidationError("--new and --feed do not go together.") }
            try JobsOption.validate(jobs)
            if background && giveUpAfter != nil {
                throw ValidationError("--give-up-after applies to a foreground download; give it to `singlecast daemon`.")
            }
            _ = try global.configuration(flags: [.giveUpAfter: ("--give-up-after", giveUpAfter.map(SettingValue.text))])
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let buffer = try await global.progressBuffer(library)
            let numbers = try EpisodeNumbers.parse(episodes)
            var choice: EpisodeChoice
            if new {
                choice = try await NewEpisodeSelection.choose(numbers: numbers, library: library, buffer: buffer)
            } else {
                let saved = try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                    let resolver = FeedResolver(library: library, session: session)
                    if let feed { return try await resolver.load(FeedReference(feed)) }
                    guard let current = try await library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
                    return try await resolver.stored(current)
                }
                // Files left by a lost database are re-adopted before anything is claimed.
                try await buffer.adoptCompleteFiles(of: saved.podcast)
                let entries = try await library.episodes(podcastID: saved.podcast.id)
                choice = FeedResolver.choose(numbers: numbers, podcast: saved.podcast, entries: entries)
            }
            if withExtras {
                for index in choice.requests.indices { choice.requests[index].withExtras = true }
            }
            // One episode that cannot be downloaded never holds up the others: each is named, and the exit says so.
            for skipped in choice.skipped { printError("skipped: \(Words.sentence(for: skipped))") }
            if !choice.requests.isEmpty {
                try await DownloadRun(global: global, jobs: jobs, json: json, background: background, giveUpAfter: giveUpAfter)
                    .start(choice.requests, buffer: buffer)
            }
            if !choice.skipped.isEmpty { throw ExitCode.failure }
        }
    }
}

/// Runs download requests in the foreground with live progress, or hands them to the daemon.
struct DownloadRun {
    var global: GlobalOptions
    var jobs: Int?
    var json: Bool
    var background: Bool
    /// `--give-up-after`, when given: how long a foreground download waits for the network
    /// without a byte (else `SINGLECAST_GIVE_UP_AFTER`, else the config file, else ten minutes).
    var giveUpAfter: String?

    func start(_ requests: [DownloadRequest], buffer: ProgressBuffer) async throws {
        if background {
            let reply = try await global.daemonClient.sendStartingDaemon(
                ControlRequest(command: .enqueue, downloads: requests, jobs: jobs), executable: global.executablePath)
            if json {
                try printJSON(reply.enqueueClaims.map(ClaimJSON.init))
            } else {
                for claim in reply.enqueueClaims { print(Words.claim(claim)) }
            }
            return
        }
        let settings = try global.configuration(flags: [
            .jobs: ("--jobs", jobs.map(SettingValue.integer)),
            .giveUpAfter: ("--give-up-after", giveUpAfter.map(SettingValue.text)),
        ])
        let giveUp = settings.giveUpAfter ?? FileTransfer.RetryPolicy.foregroundGiveUp
        let mode: ProgressRenderer.Mode = json ? .json : (TTY.isTerminal(stdout: true) ? .live : .lines)
        let renderer = ProgressRenderer(mode: mode)
        // Live lines are redrawn at once at a resized terminal's width, and twice a second
        // even without news: a stall or a countdown shows.
        let resize = mode == .live ? TTY.onResize { renderer.tick() } : nil
        defer { resize?.cancel() }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                renderer.tick()
            }
        }
        defer { ticker.cancel() }
        let outcome = try await withHTTPSession(global.httpConfiguration(compressed: false)) { session in
            let engine = DownloadEngine(
                buffer: buffer, transfer: FileTransfer(session: session, retryPolicy: .init(giveUpAfter: giveUp)),
                maximumConcurrentDownloads: settings.jobs, giveUp: .interrupt, events: renderer.handle)
            return try await SignalGuard.run(onSignal: { await engine.stopAll() }) {
                try await engine.enqueue(requests)
                await engine.waitUntilIdle()
            }
        }
        ticker.cancel()
        renderer.finish()
        if renderer.gaveUpCount > 0 { throw ExitCode.failure }
        if let code = outcome.exitCode { throw code }
        if renderer.failureCount > 0 { throw ExitCode.failure }
    }
}

/// The new episodes as `singlecast new` numbers them, turned into download requests.
enum NewEpisodeSelection {
    /// The episodes numbered (all of them when `numbers` is empty) that have audio, and why each
    /// other number was skipped. Files left by a lost database are re-adopted (see
    /// ``ProgressBuffer/adoptCompleteFiles(of:)``) first.
    static func choose(numbers: [Int], library: Library, buffer: ProgressBuffer) async throws -> EpisodeChoice {
        var adopted = Set<Int64>()
        for item in try await library.newEpisodes() where adopted.insert(item.podcast.id).inserted {
            try await buffer.adoptCompleteFiles(of: item.podcast)
        }
        let listed = try await library.newEpisodes()
        var choice = EpisodeChoice()
        for number in numbers.isEmpty ? listed.indices.map({ $0 + 1 }) : numbers {
            guard listed.indices.contains(number - 1) else {
                choice.skipped.append(.noSuchNewEpisode(number: number, count: listed.count))
                continue
            }
            let item = listed[number - 1]
            guard let enclosure = item.entry.episode.enclosure else {
                // Asking for all new episodes passes over those without audio in silence.
                if !numbers.isEmpty { choice.skipped.append(.episodeWithoutAudio(number: number, title: item.entry.episode.title)) }
                continue
            }
            choice.requests.append(
                DownloadRequest(podcastTitle: item.podcast.podcast.title, episode: item.entry.episode, enclosure: enclosure))
        }
        return choice
    }
}

/// The `--json` shape of a claim.
struct ClaimJSON: Encodable {
    var outcome: String
    var download: DownloadJSON

    init(_ claim: DownloadClaim) {
        switch claim {
        case .claimed: outcome = "queued"
        case .alreadyDownloaded: outcome = "already-downloaded"
        case .ownedElsewhere: outcome = "owned-elsewhere"
        }
        download = DownloadJSON(claim.download)
    }
}
