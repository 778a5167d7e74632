import ArgumentParser
import Foundation
import SinglecastKit

/// What `pause`, `resume` and `cancel` act on.
struct DownloadSelection: ParsableArguments {
    @Argument(help: "Download ids as `singlecast downloads` shows them (or episode numbers, with --episodes).")
    var ids: [Int64] = []

    @Flag(help: "Every download the command applies to.")
    var all = false

    @Flag(name: .shortAndLong, help: "Read the numbers as episode numbers of the current podcast.")
    var episodes = false

    @Flag(help: "Print what was done to each download as JSON.")
    var json = false

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("Give download ids, or --all.") }
    }

    /// Carries out `command`: through the daemon when one runs (resume always goes there,
    /// starting one, since the daemon continues the download), else in this process.
    func send(_ command: ControlCommand, global: GlobalOptions) async throws {
        let library = try await global.openLibrary()
        let buffer = try await global.progressBuffer(library)
        var ids = self.ids
        if episodes {
            guard let podcast = try await library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
            let entries = try await library.episodes(podcastID: podcast.id)
            let requests = try FeedResolver.requests(numbers: ids.map { Int($0) }, podcast: podcast, entries: entries)
            ids = try await requests.asyncMap { request in
                guard let id = try await library.download(enclosureURL: request.enclosure.url)?.id else {
                    throw NeverDownloaded(title: request.episode.title)
                }
                return id
            }
        }
        let client = global.daemonClient
        let outcomes: [ControlOutcome]
        let daemonRuns = await client.isRunning()
        if command == .resume || daemonRuns {
            let request = ControlRequest(
                command: ControlRequest.Command(rawValue: command.rawValue)!, ids: all ? nil : ids, all: all ? true : nil)
            outcomes = try await client.sendStartingDaemon(request, executable: global.executablePath).controlOutcomes
        } else {
            let control = DownloadControl(buffer: buffer, engine: nil)
            outcomes = try await control.apply(command, to: all ? try await control.applicable(command) : ids)
        }
        if json {
            try printJSON(outcomes.map(OutcomeJSON.init))
        } else {
            for outcome in outcomes { print(Words.outcome(outcome)) }
        }
        if outcomes.contains(where: { if case .unknown = $0 { true } else { false } }) { throw ExitCode.failure }
    }
}

struct NeverDownloaded: LocalizedError {
    var title: String
    var errorDescription: String? { "episode \(title) has never been downloaded" }
}

/// The `--json` shape of what a pause, resume or cancel did.
struct OutcomeJSON: Encodable {
    var id: Int64
    /// `paused`, `cancelled`, `queued`, `already-downloaded`, `owned-elsewhere`, `refused`,
    /// `no-downloader` or `unknown`.
    var outcome: String
    var download: DownloadJSON?

    init(_ outcome: ControlOutcome) {
        switch outcome {
        case .paused(let download): self.init(download.id, "paused", download)
        case .cancelled(let download): self.init(download.id, "cancelled", download)
        case .resumed(let claim):
            let claimed = ClaimJSON(claim)
            self.init(claim.download.id, claimed.outcome, claim.download)
        case .refused(let download, _): self.init(download.id, "refused", download)
        case .noDownloader(let download): self.init(download.id, "no-downloader", download)
        case .unknown(let id): self.init(id, "unknown", nil)
        }
    }

    private init(_ id: Int64, _ outcome: String, _ download: SinglecastKit.Download?) {
        self.id = id
        self.outcome = outcome
        self.download = download.map { DownloadJSON($0) }
    }
}

extension Sequence {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

extension Singlecast {
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause downloads, keeping what has arrived.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: DownloadSelection
        func run() async throws { try await selection.send(.pause, global: global) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume paused or interrupted downloads in the background.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: DownloadSelection
        func run() async throws { try await selection.send(.resume, global: global) }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel downloads and remove their partial files.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: DownloadSelection
        func run() async throws { try await selection.send(.cancel, global: global) }
    }
}
