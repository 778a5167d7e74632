import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete episodes' downloaded files; updates never fetch them again.",
            discussion: """
                `singlecast download N` by number still can. With --played, the files of the played \
                episodes of PODCAST (or of every podcast) are deleted.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Episode numbers or ranges of the podcast (with --played: a PODCAST, or none for all).")
        var episodes: [String] = []

        @Option(help: "The podcast (@N, feed URL or part of the title); the current podcast by default.")
        var feed: String?

        @Flag(help: "Delete the files of played episodes.")
        var played = false

        @Flag(help: "Print the deleted files as JSON.")
        var json = false

        func validate() throws {
            if played {
                if episodes.count > 1 || (!episodes.isEmpty && feed != nil) {
                    throw ValidationError("--played takes one PODCAST at most.")
                }
                return
            }
            if episodes.isEmpty { throw ValidationError("Give episode numbers, or --played.") }
            _ = try EpisodeNumbers.parse(episodes)
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let buffer = try await global.progressBuffer(library)
            let chosen: [EpisodeEntry]
            if played {
                var podcastID: Int64?
                if let name = episodes.first ?? feed { podcastID = try await library.podcast(matching: FeedReference(name)).id }
                chosen = try await library.playedDownloadedEpisodes(podcastID: podcastID)
            } else {
                let podcast: StoredPodcast
                if let feed {
                    podcast = try await library.podcast(matching: FeedReference(feed))
                } else {
                    guard let current = try await library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
                    podcast = current
                }
                let entries = try await library.episodes(podcastID: podcast.id)
                let numbers = try EpisodeNumbers.parse(episodes)
                _ = try FeedResolver.requests(numbers: numbers, podcast: podcast, entries: entries)
                chosen = numbers.map { entries[$0 - 1] }
            }
            let deleted = try await buffer.deleteFiles(of: chosen)
            if json {
                try printJSON(deleted.map { DownloadJSON($0) })
            } else {
                for download in deleted { print("deleted: \(download.file)") }
                if deleted.isEmpty { print("No downloaded files to delete.") }
            }
        }
    }
}
