import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Podcasts: AsyncParsableCommand, BriefLibraryCommand {
        static let configuration = CommandConfiguration(
            commandName: "podcasts",
            abstract: "List the subscriptions, numbered (@N in other commands).")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the subscriptions as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let summaries = try await library.subscriptions()
            if json {
                try printJSON(summaries.map(SubscriptionJSON.init))
            } else if summaries.isEmpty {
                print("No subscriptions yet.")
            } else {
                // On a terminal the titles are cut first, then the statuses (a failure's sentence).
                var table = TextTable(
                    headers: ["#", "Title", "Episodes", "New", "Unplayed", "Downloaded", "Updated", "Status"],
                    rightAligned: [0, 2, 3, 4, 5], shrinking: [1, 7])
                for summary in summaries {
                    let subscription = summary.podcast.subscription
                    table.rows.append([
                        "@\(summary.number)", summary.podcast.podcast.title,
                        String(summary.episodeCount), String(summary.newCount), String(summary.unplayedCount),
                        String(summary.downloadedCount),
                        subscription?.lastSuccessAt.map(Format.day) ?? "",
                        subscription?.lastUpdate.map { Words.status($0.status) } ?? "",
                    ])
                }
                print(table.render(width: TTY.outputWidth))
            }
        }
    }
}

/// The `--json` shape of a subscription.
struct SubscriptionJSON: Encodable {
    var number: Int
    var title: String
    var feedURL: String
    var episodes: Int
    var new: Int
    var unplayed: Int
    var downloaded: Int
    /// The speed episodes are played at.
    var speed: Double
    var keep: Int?
    var auto: String
    var extras: Bool
    /// Whether each new episode an update finds goes to the end of the queue.
    var queueNew: Bool
    var lastSuccess: Date?
    var status: String?
    /// Why the last update failed: in words, and as a value (`error.kind` and its details).
    var message: String?
    var error: UpdateFailure?

    init(_ summary: PodcastSummary) {
        number = summary.number
        title = summary.podcast.podcast.title
        feedURL = summary.podcast.feedKey.redactingURLPasswords
        episodes = summary.episodeCount
        new = summary.newCount
        unplayed = summary.unplayedCount
        speed = summary.podcast.playbackSpeed ?? 1
        downloaded = summary.downloadedCount
        let subscription = summary.podcast.subscription
        keep = subscription?.keep
        auto = subscription?.autoDownload.rawValue ?? AutoDownload.none.rawValue
        extras = subscription?.extras ?? false
        queueNew = subscription?.queuesNew ?? false
        lastSuccess = subscription?.lastSuccessAt
        status = subscription?.lastUpdate?.status.name
        if case .failed(let failure)? = subscription?.lastUpdate?.status {
            message = Words.failure(failure)
            error = failure
        }
    }
}
