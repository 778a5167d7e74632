import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Episodes: AsyncParsableCommand, BriefLibraryCommand {
        static let configuration = CommandConfiguration(
            commandName: "episodes",
            abstract: "List the episodes of a podcast, and make it the current one.",
            discussion: """
                FEED is a result number of the last search (2), a feed URL, or a local feed file; \
                these are fetched or read again. A subscription named as @N (its number in \
                `singlecast podcasts`) or by a part of its title is listed from the library \
                without network access, as is the current podcast when FEED is left out.
                """
        )

        @OptionGroup var global: GlobalOptions

        /// Brief when it lists a podcast from the library, without reading a feed.
        static func isBrief(_ arguments: [String]) -> Bool {
            arguments.allSatisfy { $0.hasPrefix("-") || FeedReference($0).isInLibrary }
        }

        @Argument(help: "A search result number, @N, a feed URL, a feed file, or part of a subscription's title.")
        var feed: String?

        @Flag(help: "Print the podcast and its episodes as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let buffer = try await global.progressBuffer(library)
            let reference = feed.map { FeedReference($0) }
            let saved = try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
                let resolver = FeedResolver(library: library, session: session)
                if let reference { return try await resolver.load(reference, makeCurrent: true) }
                guard let current = try await library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
                return try await resolver.stored(current)
            }
            for warning in saved.warnings { printError("warning: \(Words.warning(warning))") }
            try await buffer.adoptCompleteFiles(of: saved.podcast)
            guard let reference, !reference.isInLibrary else {
                // Listed from the library: this command saved no feed whose pages to copy.
                return try await list(saved.podcast, library: library)
            }
            // Copying a large feed's new pages into the database file overlaps the printing.
            async let copied: Void = library.checkpoint(emptyingLog: false)
            try await list(saved.podcast, library: library)
            await copied
            await library.checkpoint()
        }

        /// Prints the listing as it is read from the library, never holding it whole for JSON.
        private func list(_ stored: StoredPodcast, library: Library) async throws {
            if json {
                try await PodcastJSONWriter.write(stored, library: library, extras: try await library.extrasByDownload())
                return
            }
            let entries = try await library.episodes(podcastID: stored.id)
            if entries.isEmpty {
                print("\(stored.podcast.title) has no episodes.")
            } else {
                print(stored.podcast.title)
                print(EpisodeTable.render(entries, width: TTY.outputWidth))
            }
        }
    }
}
