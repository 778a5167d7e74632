import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download episodes of the current podcast into the Episodes folder.",
            discussion: """
                Episodes are numbered as `singlecast episodes` lists them. Finished files are \
                never fetched again; interrupted ones resume from the bytes on disk. Ctrl-C \
                stops the transfers and keeps what has arrived (exit 130).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Episode numbers or ranges, such as 3 5 7 or 1-10.")
        var episodes: [String]

        @Option(help: "Take the episodes from this feed (search result number, URL or file) instead of the current podcast.")
        var feed: String?

        @Option(help: "How many downloads run at once (default 3; with --background, the daemon's limit).")
        var jobs: Int?

        @Flag(help: "Print one JSON object per event.")
        var json = false

        @Flag(help: "Hand the episodes to the background daemon (started if needed) and return at once.")
        var background = false

        func validate() throws {
            _ = try EpisodeNumbers.parse(episodes)
            if let jobs, !(1...32).contains(jobs) {
                throw ValidationError("--jobs must be between 1 and 32, not \(jobs).")
            }
        }

        func run() async throws {
            let library = try global.openLibrary()
            let buffer = try global.progressBuffer(library)
            let stored: StoredPodcast
            if let feed {
                stored = try await FeedArgument(feed).load(library: library, global: global).podcast
            } else {
                guard let current = try library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
                stored = current
            }
            let requests = try DownloadRequests.make(
                numbers: EpisodeNumbers.parse(episodes), podcast: stored, library: library)
            if background {
                let reply = try global.daemonClient.sendStartingDaemon(
                    ControlRequest(command: .enqueue, downloads: requests.map(ControlRequest.Item.init), jobs: jobs),
                    executable: global.executablePath)
                if json {
                    try printJSON((reply.downloads ?? []).map(DownloadJSON.init))
                } else {
                    for message in reply.messages ?? [] { print(message) }
                }
                return
            }

            let renderer = ProgressRenderer(mode: json ? .json : (TTY.isTerminal(stdout: true) ? .live : .lines))
            let outcome = try await withHTTPSession(global.httpConfiguration(compressed: false)) { session in
                let engine = DownloadEngine(
                    buffer: buffer, transfer: FileTransfer(session: session),
                    maximumConcurrentDownloads: jobs ?? 3, events: renderer.handle)
                return try await SignalGuard.run(onSignal: { await engine.stopAll() }) {
                    try await engine.enqueue(requests)
                    await engine.waitUntilIdle()
                }
            }
            renderer.finish()
            if outcome.interrupted { throw ExitCode(130) }
            if renderer.failureCount > 0 { throw ExitCode.failure }
        }
    }
}

/// Turns episode numbers into download requests, checking them all before anything starts.
enum DownloadRequests {
    static func make(numbers: [Int], podcast: StoredPodcast, library: Library) throws -> [DownloadRequest] {
        let entries = try library.episodes(podcastID: podcast.id)
        return try numbers.map { number in
            guard entries.indices.contains(number - 1) else {
                throw LibraryError.noSuchEpisode(number: number, podcast: podcast.podcast.title, count: entries.count)
            }
            let episode = entries[number - 1].episode
            guard let enclosure = episode.enclosure else {
                throw ValidationError("Episode \(number) (\(episode.title)) has no audio file to download.")
            }
            return DownloadRequest(podcastTitle: podcast.podcast.title, episode: episode, enclosure: enclosure)
        }
    }
}
