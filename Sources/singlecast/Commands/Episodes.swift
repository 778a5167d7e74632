import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Episodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the episodes of a podcast, and make it the current one.",
            discussion: "FEED is a result number of the last search, a feed URL, or a local feed file."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "A search result number, a feed URL, or a feed file.")
        var feed: String

        @Flag(help: "Print the podcast and its episodes as JSON.")
        var json = false

        func run() async throws {
            let library = try global.openLibrary()
            let buffer = try global.progressBuffer(library)
            let saved = try await FeedArgument(feed).load(library: library, global: global)
            // Copying a large feed's new pages into the database file overlaps the printing.
            async let checkpoint: Void = library.checkpoint()
            try list(consume saved, buffer: buffer)
            await checkpoint
        }

        /// Prints the listing. The saved feed is consumed, so that its episodes are freed
        /// while the checkpoint is still running rather than after it.
        private func list(_ saved: consuming SavedFeed, buffer: ProgressBuffer) throws {
            let stored = saved.podcast
            let entries = try buffer.adoptCompleteFiles(saved.episodes, podcastTitle: stored.podcast.title)
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

