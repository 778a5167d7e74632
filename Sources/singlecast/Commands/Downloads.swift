import ArgumentParser
import Foundation
import SinglecastKit
import Synchronization

extension Singlecast {
    struct Downloads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "downloads",
            abstract: "List every download in the progress buffer, with its state and progress."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the downloads as JSON.")
        var json = false

        @Flag(help: "Follow the downloads live until Ctrl-C (which stops only the watching).")
        var watch = false

        func validate() throws {
            if json && watch { throw ValidationError("--watch and --json do not go together.") }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            _ = try await global.progressBuffer(library)
            guard watch else {
                let downloads = try await library.downloads()
                let extras = try await library.extrasByDownload()
                let heard = try await library.playbackByEnclosureURL()
                if json {
                    try printJSON(
                        downloads.map {
                            ListedDownloadJSON(
                                download: DownloadJSON($0, extras: extras[$0.id] ?? []),
                                playback: PlaybackJSON(heard[$0.enclosureURL]?.playback ?? Playback()))
                        })
                } else {
                    print(
                        downloads.isEmpty
                            ? "Nothing has been downloaded yet."
                            : DownloadTable.render(downloads, extras: extras, heard: heard, width: TTY.outputWidth))
                }
                return
            }
            let screen = TTY.isTerminal(stdout: true) ? LiveScreen() : nil
            let resize = screen.map { screen in TTY.onResize { screen.redraw() } }
            defer { resize?.cancel() }
            let stop = StopFlag()
            _ = try await SignalGuard.run(onSignal: { stop.set() }) {
                while !stop.isSet {
                    let downloads = try await library.downloads()
                    let extras = try await library.extrasByDownload()
                    let heard = try await library.playbackByEnclosureURL()
                    if let screen {
                        screen.show { columns in
                            DownloadTable.render(downloads, extras: extras, heard: heard, width: columns)
                        }
                    } else {
                        printNow(DownloadTable.render(downloads, extras: extras, heard: heard, width: nil) + "\n")
                    }
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
        }
    }
}

/// The `--json` shape of a download.
struct DownloadJSON: Encodable {
    var id: Int64
    var podcast: String
    var title: String
    var url: String
    var state: DownloadState
    var receivedBytes: Int64
    var expectedBytes: Int64?
    var progress: Double?
    var file: String
    /// Why it failed, in words, and as a value: `error.kind` (`http-status`, `unreachable`, …) and its details.
    var message: String?
    var error: DownloadError?
    /// The transcripts and chapters saved or failing beside the file (in `downloads --json`).
    var extras: [ExtraJSON]?
    /// Downloading, but nothing arrived for a few seconds (or its owner stopped saving).
    var stalled: Bool
    /// The current speed and time left: only while downloading and not stalled.
    var bytesPerSecond: Double?
    var secondsLeft: Double?
    /// While retrying: why (`connection-refused`, `http-503`, …) and when the next try starts.
    var retryReason: String?
    var nextTryAt: Date?

    init(_ record: SinglecastKit.Download, now: Date = Date()) {
        id = record.id
        podcast = record.podcastTitle
        title = record.episodeTitle
        url = record.enclosureURL.redactingURLPasswords
        state = record.state
        receivedBytes = record.receivedBytes
        expectedBytes = record.expectedBytes
        progress = record.fractionCompleted
        file = record.file
        message = record.failure.map(Words.failure)
        error = record.failure
        stalled = record.isStalled(at: now)
        bytesPerSecond = record.currentBytesPerSecond(at: now)
        secondsLeft = record.secondsLeft(at: now)
        retryReason = record.retryReason?.rawValue
        nextTryAt = record.nextTryAt
    }

    /// With the download's transcripts and chapters.
    init(_ record: SinglecastKit.Download, extras: [ExtraFile]) {
        self.init(record)
        self.extras = extras.map(ExtraJSON.init)
    }
}

/// A download as `downloads --json` lists it: with where its episode was heard to.
struct ListedDownloadJSON: Encodable {
    var download: DownloadJSON
    var playback: PlaybackJSON

    func encode(to encoder: any Encoder) throws {
        try download.encode(to: encoder)
        try playback.encode(to: encoder)
    }
}

/// The `--json` shape of a transcript or chapters file of a download.
struct ExtraJSON: Encodable {
    var kind: String
    var url: String
    var type: String?
    var language: String?
    var file: String
    var saved: Bool
    var bytes: Int64?
    /// Why it failed, in words, and as a value (`error.kind` and its details).
    var message: String?
    var error: ExtraError?

    init(_ file: ExtraFile) {
        kind = file.extra.kind.rawValue
        url = file.extra.url.redactingURLPasswords
        type = file.extra.type
        language = file.extra.language
        self.file = file.file
        saved = file.isSaved
        bytes = file.bytes
        message = file.failure.map(Words.failure)
        error = file.failure
    }
}

/// A flag set from a signal handler and read by a loop.
final class StopFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
