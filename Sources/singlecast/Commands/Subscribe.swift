import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to podcasts (or change a subscription's settings).",
            discussion: """
                FEED is what `episodes` takes: a search result number, a feed URL or a file. \
                Only each podcast's most recent episode is marked new, so that a first \
                `update --download` does not fetch the back catalogue.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Search result numbers, feed URLs or feed files.")
        var feeds: [String]

        @Option(help: "Keep the files of the N most recent downloaded episodes; older ones are deleted after each new download.")
        var keep: Int?

        @Option(help: "What `update --download` fetches by itself: none or new.")
        var auto: AutoDownload = .none

        @Flag(help: "Print the subscriptions as JSON.")
        var json = false

        func validate() throws {
            if let keep, keep < 1 { throw ValidationError("--keep must be at least 1, not \(keep).") }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            var subscribed: [PodcastJSON] = []
            var failures = 0
            try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                let resolver = FeedResolver(library: library, session: session)
                for feed in feeds {
                    do {
                        let saved = try await resolver.load(FeedReference(feed))
                        for warning in saved.warnings { printError("warning: \(Words.warning(warning))") }
                        let isNew = try await library.subscribe(podcastID: saved.podcast.id, keep: keep, autoDownload: auto)
                        let stored = try await library.podcast(id: saved.podcast.id) ?? saved.podcast
                        subscribed.append(PodcastJSON(stored, episodes: saved.episodes.count))
                        if !json {
                            let count = saved.episodes.count
                            print("\(isNew ? "subscribed" : "updated subscription"): \(stored.podcast.title) (\(count) episode\(count == 1 ? "" : "s"))")
                        }
                    } catch {
                        failures += 1
                        printError("error: \(feed): \((error as? any LocalizedError)?.errorDescription ?? "\(error)")")
                    }
                }
            }
            if json { try printJSON(subscribed) }
            if failures > 0 { throw ExitCode.failure }
        }
    }

    struct Unsubscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End subscriptions; downloaded files stay unless --delete-files.",
            discussion: "PODCAST is @N (its number in `singlecast podcasts`), its feed URL, or a part of its title."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Subscriptions: @N, feed URL, or part of the title.")
        var podcasts: [String]

        @Flag(help: "Also delete the podcast's downloaded files.")
        var deleteFiles = false

        @Flag(help: "Print what was done as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let buffer = try await global.progressBuffer(library)
            var done: [PodcastJSON] = []
            for reference in podcasts {
                let podcast = try await library.podcast(matching: FeedReference(reference))
                let removed = try await SubscriptionRemoval(buffer: buffer, daemon: global.daemonClient)
                    .unsubscribe(podcast, deleteFiles: deleteFiles)
                done.append(PodcastJSON(podcast, episodes: nil))
                if !json {
                    let files = deleteFiles ? ", \(removed) file\(removed == 1 ? "" : "s") deleted" : ""
                    print("unsubscribed: \(podcast.podcast.title)\(files)")
                }
            }
            if json { try printJSON(done) }
        }
    }
}

/// Ends a subscription: its running downloads are cancelled (through the daemon when one
/// runs), and its files are deleted when asked.
struct SubscriptionRemoval {
    let buffer: ProgressBuffer
    let daemon: DaemonClient

    /// Returns how many files were deleted.
    func unsubscribe(_ podcast: StoredPodcast, deleteFiles: Bool) async throws -> Int {
        let library = buffer.library
        let urls = Set(try await library.episodes(podcastID: podcast.id).compactMap { $0.episode.enclosure?.url })
        let downloads = try await library.downloads().filter { urls.contains($0.enclosureURL) }
        let running = downloads.filter { [.waiting, .downloading, .paused, .interrupted].contains($0.state) }.map(\.id)
        if !running.isEmpty {
            if await daemon.isRunning() {
                _ = try await daemon.send(ControlRequest(command: .cancel, ids: running))
            } else {
                _ = try await DownloadControl(buffer: buffer, engine: nil).apply(.cancel, to: running)
            }
        }
        try await library.unsubscribe(podcastID: podcast.id)
        guard deleteFiles else { return 0 }
        var deleted = 0
        for download in downloads where download.state == .completed
            && buffer.episodes.folder(forPodcast: download.podcastTitle).path
                == URL(fileURLWithPath: download.file).deletingLastPathComponent().path
        {
            if unlink(download.file) == 0 { deleted += 1 }
        }
        try await buffer.rebuild()
        return deleted
    }
}

/// The `--json` shape of a podcast.
struct PodcastJSON: Encodable {
    var title: String
    var feedURL: String
    var episodes: Int?
    var keep: Int?
    var auto: String?

    init(_ stored: StoredPodcast, episodes: Int?) {
        title = stored.podcast.title
        feedURL = stored.feedKey.redactingURLPasswords
        self.episodes = episodes
        keep = stored.subscription?.keep
        auto = stored.subscription?.autoDownload.rawValue
    }
}

extension AutoDownload: ExpressibleByArgument {}
