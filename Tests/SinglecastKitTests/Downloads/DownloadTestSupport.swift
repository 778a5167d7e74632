import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

/// A local server, a session aimed at it and a scratch directory, torn down afterwards.
struct TransferHarness: Sendable {
    let server: TestServer
    let session: HTTPSession
    let transfer: FileTransfer
    let directory: URL

    /// Runs `body` with a fresh harness; past `timeLimit` seconds (a bound against hanging, not
    /// a measure of speed, below the suites' minute) it is cancelled and fails. The transfer's
    /// waits are timed by `clock` (a test clock the test advances, when given), whose start is
    /// dated `wallClockStart`.
    static func run(
        readTimeout: Duration = .seconds(15),
        retryPolicy: FileTransfer.RetryPolicy = .init(
            giveUpAfter: .seconds(5), baseDelay: .milliseconds(10), growth: 2, maxDelay: .seconds(2)),
        clock: any Clock<Duration> = ContinuousClock(), wallClockStart: Date = Date(),
        timeLimit: Double = 50,
        _ body: @escaping @Sendable (TransferHarness) async throws -> Void
    ) async throws {
        var configuration = HTTPSession.Configuration()
        configuration.readTimeout = readTimeout
        // No test here is about connecting or answering slowly, unless it asks for a short read
        // timeout: a loaded machine must never make a loopback connection, or a server's late
        // answer, a transient failure that leaves a download waiting for a test clock.
        configuration.connectTimeout = .seconds(15)
        let server = try await TestServer.start()
        let session = HTTPSession(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-dl-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let harness = TransferHarness(
            server: server, session: session,
            transfer: FileTransfer(
                session: session, retryPolicy: retryPolicy, outages: HostOutages(clock: clock, wallClockStart: wallClockStart)),
            directory: directory)
        let outcome: Result<Void, any Error>
        do {
            try await withTransferTimeLimit(timeLimit) { try await body(harness) }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await session.shutdown()
        try? await server.stop()
        try? FileManager.default.removeItem(at: directory)
        try outcome.get()
    }

    func destination(_ name: String = "ep.mp3") -> URL {
        directory.appendingPathComponent(name)
    }

    /// Leaves a partial file of `bytes` with the sidecar a previous attempt would have saved.
    func leavePart(_ bytes: Data, for destination: URL, validator: String?, contentType: String = "audio/mpeg") throws {
        try bytes.write(to: EpisodesFolder.partialFile(for: destination))
        PartInfo(url: "x", validator: validator, contentType: contentType, totalBytes: nil)
            .write(to: EpisodesFolder.partialFileInfo(for: destination))
    }

    /// Nothing of the download is left beside `destination` (no part, no sidecar).
    func expectNoLeftovers(_ destination: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!Self.exists(EpisodesFolder.partialFile(for: destination)), sourceLocation: sourceLocation)
        #expect(!Self.exists(EpisodesFolder.partialFileInfo(for: destination)), sourceLocation: sourceLocation)
    }
}

extension TransferHarness {
    static func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// Content for tests: deterministic, not repetitive at short periods.
    static func sample(_ count: Int, offset: Int64 = 0) -> Data {
        TestServer.generatedBytes(offset: offset, count: count)
    }
}

struct TransferTimeLimitExceeded: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "did not finish within \(seconds) s" }
}

/// Runs `operation`, cancelling it and failing if it takes longer than `seconds`. Past the
/// bound it fails at once, without waiting for `operation` to notice its cancellation: a test
/// stuck on something that ignores cancellation (a download's unstructured task awaiting a
/// test clock that no one advances any more) ends failing instead of hanging the whole run.
func withTransferTimeLimit<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = TimeLimitRace<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.run(operation, within: seconds, resuming: continuation)
    }
}

/// The operation of ``withTransferTimeLimit(_:_:)`` against its bound: the first to end resumes
/// the caller and cancels the other.
private final class TimeLimitRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func run(
        _ operation: @escaping @Sendable () async throws -> T, within seconds: Double,
        resuming continuation: CheckedContinuation<T, any Error>
    ) {
        state.withLock { $0.continuation = continuation }
        let work = Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            self.finish(result)
        }
        let bound = Task {
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            self.finish(.failure(TransferTimeLimitExceeded(seconds: seconds)))
        }
        state.withLock { $0.tasks = [work, bound] }
    }

    private func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        guard let continuation else { return }
        for task in tasks { task.cancel() }
        continuation.resume(with: result)
    }
}

/// Collects progress reports from any thread.
final class TransferProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [FileTransfer.Progress] = []

    func record(_ progress: FileTransfer.Progress) {
        lock.lock()
        defer { lock.unlock() }
        reports.append(progress)
    }

    var all: [FileTransfer.Progress] {
        lock.lock()
        defer { lock.unlock() }
        return reports
    }

    var last: FileTransfer.Progress? { all.last }
}

/// An engine over an in-memory library, a temporary `Episodes` folder and a local server.
struct EngineHarness: Sendable {
    let base: TransferHarness
    let library: Library
    let buffer: ProgressBuffer
    let engine: DownloadEngine
    let log: EngineEventLog

    var server: TestServer { base.server }
    var showFolder: URL { buffer.episodes.folder(forPodcast: "Show") }

    /// Runs `body` with a fresh engine allowing `limit` transfers at once; everything,
    /// including stopping whatever `body` left running, is bounded by `timeLimit` seconds (against
    /// hanging, not a measure of speed). The transfers' waits are timed by `clock`, whose start is
    /// dated `wallClockStart`.
    static func run(
        limit: Int, timeLimit: Double = 50, readTimeout: Duration = .seconds(15), retryPolicy: FileTransfer.RetryPolicy? = nil,
        clock: any Clock<Duration> = ContinuousClock(), wallClockStart: Date = Date(),
        giveUp: DownloadLifecycle.Event = .fail, _ body: @escaping @Sendable (EngineHarness) async throws -> Void
    ) async throws {
        try await TransferHarness.run(readTimeout: readTimeout, clock: clock, wallClockStart: wallClockStart, timeLimit: timeLimit) { base in
            let library = try Library.inMemory()
            let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: base.directory))
            let log = EngineEventLog()
            let transfer =
                retryPolicy.map {
                    FileTransfer(
                        session: base.session, retryPolicy: $0, outages: HostOutages(clock: clock, wallClockStart: wallClockStart))
                } ?? base.transfer
            let engine = DownloadEngine(
                buffer: buffer, transfer: transfer, maximumConcurrentDownloads: limit, giveUp: giveUp,
                events: { log.record($0) })
            let harness = EngineHarness(base: base, library: library, buffer: buffer, engine: engine, log: log)
            do {
                try await body(harness)
            } catch {
                await engine.stopAll()
                throw error
            }
            await engine.stopAll()
        }
    }

    func request(_ path: String, title: String, length: Int64? = nil) -> DownloadRequest {
        let enclosure = Enclosure(url: server.url(path).absoluteString, length: length, type: "audio/mpeg")
        return DownloadRequest(
            podcastTitle: "Show", episode: Episode(title: title, enclosure: enclosure), enclosure: enclosure)
    }

    func record(_ path: String) async throws -> Download {
        try #require(try await library.download(enclosureURL: server.url(path).absoluteString))
    }

    func partSize(_ destination: URL) -> Int64 {
        fileSize(atPath: EpisodesFolder.partialFile(for: destination).path) ?? 0
    }

    func filesInShowFolder() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: showFolder.path).sorted()
    }
}

/// Every event the engine emitted, in the order emitted.
final class EngineEventLog: Sendable {
    private let events = Mutex<[DownloadEvent]>([])

    func record(_ event: DownloadEvent) {
        events.withLock { $0.append(event) }
    }

    func clear() { events.withLock { $0.removeAll() } }

    var all: [DownloadEvent] { events.withLock { $0 } }

    /// Every transcript and chapters file reported, in order.
    var extras: [ExtraFile] {
        all.flatMap { event -> [ExtraFile] in
            guard case .extras(_, let files) = event else { return [] }
            return files
        }
    }

    /// Everything but progress, as "queued 3", "started 3", "completed 3"….
    var lifecycle: [String] {
        all.compactMap { event in
            switch event {
            case .alreadyDownloaded(let record): "alreadyDownloaded \(record.id)"
            case .ownedElsewhere(let record): "ownedElsewhere \(record.id)"
            case .queued(let record): "queued \(record.id)"
            case .started(let record): "started \(record.id)"
            case .completed(let record): "completed \(record.id)"
            case .failed(let record): "failed \(record.id)"
            case .retrying(let record): "retrying \(record.id)"
            case .stopped(let record): "stopped \(record.id)"
            case .deletedByRetention(let record): "deletedByRetention \(record.id)"
            case .extras(let record, _): "extras \(record.id)"
            case .progress: nil
            }
        }
    }

    var started: [Int64] {
        all.compactMap { if case .started(let record) = $0 { record.id } else { nil } }
    }

    var retrying: [Download] {
        all.compactMap { if case .retrying(let record) = $0 { record } else { nil } }
    }

    var completed: [Download] {
        all.compactMap { if case .completed(let record) = $0 { record } else { nil } }
    }

    var stopped: [Download] {
        all.compactMap { if case .stopped(let record) = $0 { record } else { nil } }
    }

    var deletedByRetention: [Download] {
        all.compactMap { if case .deletedByRetention(let record) = $0 { record } else { nil } }
    }

    var failed: [Download] {
        all.compactMap { if case .failed(let record) = $0 { record } else { nil } }
    }
}

/// A library in a folder of its own holding the subscribed podcast "Show", whose episodes (by
/// title, the first the most recent) each have a download claimed by the progress buffer.
struct ClaimedShow {
    let home: URL
    let library: Library
    let buffer: ProgressBuffer
    let podcast: StoredPodcast
    /// The claimed download of each episode, by title.
    let downloads: [String: Download]

    /// Claims a download of every episode, as an update asks for it (`fetchedByUpdate`) or as
    /// a person does.
    static func make(titles: [String], keep: Retention? = nil, fetchedByUpdate: Set<String>? = nil) async throws -> ClaimedShow {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-show-\(UUID())")
        let library = try await Library.open(directory: home)
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: home))
        let feed = Feed(
            podcast: Podcast(title: "Show"),
            episodes: titles.enumerated().map { index, title in
                Episode(
                    title: title, guid: title, published: Date(timeIntervalSince1970: Double(2_000_000 - index * 1000)),
                    enclosure: Enclosure(url: "http://127.0.0.1:9/\(title).mp3", type: "audio/mpeg"))
            })
        let podcast = try await library.saveFeed(feed, feedKey: "http://127.0.0.1:9/feed.xml").podcast
        try await library.subscribe(podcastID: podcast.id, keep: keep)
        var downloads: [String: Download] = [:]
        for entry in try await library.episodes(podcastID: podcast.id) {
            let request = DownloadRequest(
                podcastTitle: "Show", episode: entry.episode, enclosure: entry.episode.enclosure!,
                fetchedByUpdate: fetchedByUpdate.map { $0.contains(entry.episode.title) } ?? true)
            guard case .claimed(let claimed) = try await buffer.claim(request) else { throw NotClaimed() }
            downloads[entry.episode.title] = claimed
        }
        try FileManager.default.createDirectory(at: buffer.episodes.folder(forPodcast: "Show"), withIntermediateDirectories: true)
        return ClaimedShow(home: home, library: library, buffer: buffer, podcast: podcast, downloads: downloads)
    }

    /// The podcast's own folder.
    var folder: URL { buffer.episodes.folder(forPodcast: "Show") }

    /// Writes the file of an episode's download, at `path` or where the buffer put it, and
    /// records the download complete.
    func complete(_ title: String, at path: String? = nil) async throws {
        let file = path ?? downloads[title]!.file
        FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 10))
        _ = try await buffer.recordCompleted(id: downloads[title]!.id, file: file, size: 10)
    }

    func remove() {
        try? FileManager.default.removeItem(at: home)
    }

    private struct NotClaimed: Error {}
}
