import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe",
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

        @Option(
            help: ArgumentHelp(
                "Keep the files of the N most recent downloaded episodes (older ones are deleted after each new download), or all of them.",
                discussion: "A new subscription keeps all (config: keep); a subscription's setting stays unless given.",
                valueName: "N|all"))
        var keep: Retention?

        @Option(help: "What `update --download` fetches by itself: none (for a new subscription) or new; unchanged if not given (config: auto).")
        var auto: AutoDownload?

        @Flag(
            inversion: .prefixedNo,
            help: "Whether downloads also save the episodes' transcripts and chapters (off for a new subscription; unchanged if not given; config: extras).")
        var extras: Bool?

        @Flag(
            inversion: .prefixedNo,
            help: "Whether each new episode `update` finds goes to the end of the queue (off for a new subscription; unchanged if not given).")
        var queueNew: Bool?

        @Option(help: "The speed its episodes are played at, 0.25 to 4 (unchanged if not given).")
        var speed: PlaybackSpeed?

        @Flag(help: "Print the subscriptions as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            var subscribed: [PodcastJSON] = []
            var failures = 0
            // Subscriptions named by number or title are found before any subscription changes the list.
            let references = feeds.map { FeedReference($0) }
            let named = try await library.podcasts(matching: references)
            let settings = try global.configuration()
            // A new subscription takes the config file's defaults for what no flag gives.
            let defaults = (keep: settings.keep, auto: settings.auto, extras: settings[.extras].value?.boolean ?? false)
            let buffer = keep == nil && defaults.keep == .all ? nil : try await global.progressBuffer(library)
            try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                let resolver = FeedResolver(library: library, session: session)
                for (index, feed) in feeds.enumerated() {
                    do {
                        let saved: SavedFeed
                        switch references[index] {
                        case .subscription, .title: saved = try await resolver.stored(named[index].get())
                        default: saved = try await resolver.load(references[index])
                        }
                        for warning in saved.warnings { printError("warning: \(Words.warning(warning))") }
                        let isFirst = saved.podcast.subscription == nil
                        let keep = keep ?? (isFirst && defaults.keep != .all ? defaults.keep : nil)
                        let isNew = try await library.subscribe(
                            podcastID: saved.podcast.id, keep: keep, autoDownload: auto ?? (isFirst ? defaults.auto : nil),
                            queueNew: queueNew)
                        if let extras = extras ?? (isFirst && defaults.extras ? true : nil) {
                            try await library.setExtras(podcastID: saved.podcast.id, enabled: extras)
                        }
                        if let speed { try await library.setPlaybackSpeed(speed.value, podcastID: saved.podcast.id) }
                        let stored = try await library.podcast(id: saved.podcast.id) ?? saved.podcast
                        var entry = PodcastJSON(stored, episodes: saved.episodeCount)
                        if let keep, let buffer {
                            entry.retentionWouldDelete = try await buffer.filesRetentionWouldDelete(podcastID: stored.id, keep: keep).count
                        }
                        subscribed.append(entry)
                        if !json {
                            let count = saved.episodeCount
                            var line = "\(isNew ? "subscribed" : "updated subscription"): \(stored.podcast.title) (\(count) episode\(count == 1 ? "" : "s"))"
                            if let doomed = entry.retentionWouldDelete, doomed > 0 {
                                line += "; the next download deletes \(doomed) file\(doomed == 1 ? "" : "s") to keep \(stored.subscription?.keep ?? 0)"
                            }
                            print(line)
                        }
                    } catch {
                        failures += 1
                        // Most failures name the feed already: it is named once.
                        let sentence = Words.sentence(for: error)
                        printError("error: " + (sentence.contains(feed.redactingURLPasswords) ? sentence : "\(feed.redactingURLPasswords): \(sentence)"))
                    }
                }
            }
            if json { try printJSON(subscribed) }
            if failures > 0 { throw ExitCode.failure }
        }
    }

    struct Unsubscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unsubscribe",
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
            for podcast in try await library.podcasts(matching: podcasts.map { FeedReference($0) }).map({ try $0.get() }) {
                let removed = try await SubscriptionRemoval(buffer: buffer, daemon: global.daemonClient)
                    .unsubscribe(podcast, deleteFiles: deleteFiles).count
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

/// The `--json` shape of a podcast.
struct PodcastJSON: Encodable {
    var title: String
    var feedURL: String
    var episodes: Int?
    var keep: Int?
    var auto: String?
    var extras: Bool?
    var queueNew: Bool?
    /// After `subscribe --keep N`: how many files the next retention deletes.
    var retentionWouldDelete: Int?

    init(_ stored: StoredPodcast, episodes: Int?) {
        title = stored.podcast.title
        feedURL = stored.feedKey.redactingURLPasswords
        self.episodes = episodes
        keep = stored.subscription?.keep
        auto = stored.subscription?.autoDownload.rawValue
        extras = stored.subscription?.extras
        queueNew = stored.subscription?.queuesNew
    }
}

extension AutoDownload: ExpressibleByArgument {}

extension Retention: ExpressibleByArgument {
    /// `all`, or a whole number of episodes from 1.
    public init?(argument: String) {
        if argument.lowercased() == "all" {
            self = .all
        } else if let count = Int(argument), count >= 1 {
            self = .mostRecent(count)
        } else {
            return nil
        }
    }
}
