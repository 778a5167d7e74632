import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete episodes' downloaded files; updates never fetch them again.",
            discussion: "`singlecast download N` by number still can.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Episode numbers or ranges of the podcast.")
        var episodes: [String]

        @Option(help: "The podcast (@N, feed URL or part of the title); the current podcast by default.")
        var feed: String?

        @Flag(help: "Print the deleted files as JSON.")
        var json = false

        func validate() throws {
            _ = try EpisodeNumbers.parse(episodes)
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let buffer = try await global.progressBuffer(library)
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
            let chosen = numbers.map { entries[$0 - 1] }
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
