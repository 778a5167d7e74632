import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Episodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the episodes of a podcast, and make it the current one.",
            discussion: """
                FEED is a result number of the last search (2), a feed URL, or a local feed file; \
                these are fetched or read again. A subscription named as @N (its number in \
                `singlecast podcasts`) or by a part of its title is listed from the library \
                without network access, as is the current podcast when FEED is left out.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A search result number, @N, a feed URL, a feed file, or part of a subscription's title.")
        var feed: String?

        @Flag(help: "Print the podcast and its episodes as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let buffer = try await global.progressBuffer(library)
            let saved = try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                let resolver = FeedResolver(library: library, session: session)
                if let feed { return try await resolver.load(FeedReference(feed)) }
                guard let current = try await library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
                return try await resolver.stored(current)
            }
            for warning in saved.warnings { printError("warning: \(Words.warning(warning))") }
            // Copying a large feed's new pages into the database file overlaps the printing.
            async let checkpoint: Void = library.checkpoint()
            let entries = try await buffer.adoptCompleteFiles(saved.episodes, podcastTitle: saved.podcast.podcast.title)
            list(saved.podcast, entries)
            await checkpoint
        }

        private func list(_ stored: StoredPodcast, _ entries: [EpisodeEntry]) {
            if json {
                PodcastJSONWriter.write(stored, entries)
            } else if entries.isEmpty {
                print("\(stored.podcast.title) has no episodes.")
            } else {
                print(stored.podcast.title)
                print(EpisodeTable.render(entries))
            }
        }
    }
}
