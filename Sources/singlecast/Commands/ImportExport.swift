import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Subscribe to every feed of an OPML file, then update them all.",
            discussion: """
                Entries that cannot be used (duplicates, relative or non-http URLs, outlines \
                without a feed) are reported by line and skipped; the others are imported. \
                Feeds already subscribed are not fetched twice.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "An OPML file, as gPodder, newsboat and most podcast apps export.")
        var file: String

        @Flag(help: "Print the result of each update as JSON.")
        var json = false

        func run() async throws {
            let library = try await global.openLibrary()
            let document = try await OPMLReader.read(file: URL(fileURLWithPath: file))
            for problem in document.problems {
                printError("warning: \(file): \(Words.problem(problem))")
            }
            if document.entries.isEmpty && !json { print("\(file) lists no feeds to import.") }
            let subscribed = Set(try await library.subscriptions().map(\.podcast.feedKey))
            let added = Set(
                try await library.addSubscriptions(
                    document.entries.filter { !subscribed.contains($0.feedURL.absoluteString) }
                        .map { (feedURL: $0.feedURL, title: $0.title ?? "") }))
            let results = try await SubscriptionUpdate(global: global, library: library, json: json).run(podcastIDs: added)
            // A feed that answers 404 or an HTML page is refused, as `subscribe` refuses it.
            let lines = Dictionary(document.entries.map { ($0.feedURL.absoluteString, $0.line) }) { first, _ in first }
            var refused = false
            for update in results {
                guard case .failed(let failure) = update.status, failure.isPermanent else { continue }
                try await library.withdrawSubscription(podcastID: update.podcast.id)
                refused = true
                let line = lines[update.podcast.feedKey].map { "line \($0): " } ?? ""
                printError("warning: \(file): \(line)not subscribed: \(Words.failure(failure))")
            }
            if refused || results.contains(where: { if case .failed = $0.status { true } else { false } }) {
                throw ExitCode.failure
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Write the subscriptions as OPML 2.0 (to standard output without FILE).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The file to write.")
        var file: String?

        func run() async throws {
            let library = try await global.openLibrary()
            let feeds = try await library.subscriptions().compactMap { summary -> OPMLFeed? in
                // Credentials are never written out: the feed's URL shows user:*** instead.
                guard let url = URL(string: summary.podcast.feedKey), !url.isFileURL, let shown = URL(string: url.redacted)
                else { return nil }
                return OPMLFeed(title: summary.podcast.podcast.title, feedURL: shown)
            }
            let data = OPMLWriter.document(title: "Singlecast subscriptions", feeds: feeds)
            if let file {
                let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw ExportError(path: file, detail: "the folder \(folder) does not exist")
                }
                do {
                    try data.write(to: URL(fileURLWithPath: file), options: .atomic)
                } catch {
                    throw ExportError(path: file, detail: error.localizedDescription)
                }
            } else {
                StandardStreams.write(data, to: STDOUT_FILENO)
            }
        }
    }
}

struct ExportError: LocalizedError {
    var path: String
    var detail: String
    var errorDescription: String? { "cannot write \(path): \(detail)" }
}
