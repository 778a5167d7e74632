import Foundation
import Testing

@testable import SinglecastKit

@Suite("ProgressBuffer", .timeLimit(.minutes(1)))
struct ProgressBufferTests {
    // MARK: - rebuild(): completed entries

    @Test func completedEntryWhoseFileWasDeletedIsNoLongerDownloaded() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: getpid())
            try h.write(3_000, to: record.file)
            try await h.setState(record, .completed, receivedBytes: 3_000, expectedBytes: 3_000)
            try FileManager.default.removeItem(atPath: record.file)

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .notStarted)
            #expect(rebuilt.receivedBytes == 0)
            #expect(rebuilt.owner == nil)
        }
    }

    @Test func completedEntryWithOnlyAPartLeftIsInterrupted() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: getpid())
            try await h.setState(record, .completed, receivedBytes: 3_000, expectedBytes: 3_000)
            try h.write(1_200, to: h.part(record))

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.receivedBytes == 1_200)
        }
    }

    @Test func completedEntryWithItsFileIsLeftAlone() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: getpid())
            try h.write(3_000, to: record.file)
            try await h.setState(record, .completed, receivedBytes: 3_000, expectedBytes: 3_000)
            let before = try await h.row(record)

            try await h.buffer.rebuild()

            #expect(try await h.row(record) == before)
        }
    }

    // MARK: - rebuild(): owners

    enum DeadOwner: CaseIterable, Sendable {
        /// A process that ran and has been reaped.
        case exited
        /// A process id above any the kernel hands out.
        case impossible

        func processID() throws -> Int32 {
            switch self {
            case .exited: try BufferHarness.exitedProcessID()
            case .impossible: Int32.max
            }
        }
    }

    @Test(arguments: DeadOwner.allCases)
    func downloadingEntryOfADeadOwnerBecomesInterruptedKeepingItsPart(owner: DeadOwner) async throws {
        try await BufferHarness.run { h in
            let pid = try owner.processID()
            #expect(!DownloadOwner(processID: pid, startTime: nil).isAlive)
            let record = try await h.claim("Episode", processID: pid)
            #expect(try await h.buffer.recordTransfer(id: record.id, receivedBytes: 100, expectedBytes: 9_000, bytesPerSecond: nil))
            try h.write(4_321, to: h.part(record))

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.receivedBytes == 4_321)
            #expect(rebuilt.expectedBytes == 9_000)
            #expect(rebuilt.owner == nil)
        }
    }

    @Test func anOwnerWhoseProcessIDWasReusedIsRecognisedAsDead() async throws {
        try await BufferHarness.run { h in
            // This process's id with another start time: the owner died and the kernel gave
            // its id to a new process (this one).
            let current = try #require(DownloadOwner.current.startTime)
            let reused = DownloadOwner(processID: getpid(), startTime: current + 1)
            #expect(!reused.isAlive)
            #expect(DownloadOwner.current.isAlive)
            guard case .claimed(let download) = try await h.buffer.claim(h.request("ep.mp3", title: "Episode"), owner: reused)
            else {
                Issue.record("expected .claimed")
                return
            }
            #expect(try await h.buffer.recordTransfer(id: download.id, receivedBytes: 10, expectedBytes: 100, bytesPerSecond: nil))

            let taken = try await h.buffer.claim(h.request("ep.mp3", title: "Episode"))
            guard case .claimed(let claimed) = taken else {
                Issue.record("expected .claimed, got \(taken)")
                return
            }
            #expect(claimed.id == download.id)
            #expect(claimed.owner == .current)
            #expect(try await h.row(download).owner == .current)
        }
    }

    @Test func waitingEntryOfADeadOwnerBecomesInterrupted() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: try BufferHarness.exitedProcessID())
            #expect(record.state == .waiting)

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.receivedBytes == 0)
            #expect(rebuilt.owner == nil)
        }
    }

    @Test func aRetryingEntryKeepsItsReasonAndNextTryOnlyWhileRetrying() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: getpid())
            let nextTry = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await h.buffer.recordTransfer(id: record.id, receivedBytes: 500, expectedBytes: 9_000, bytesPerSecond: 250))
            #expect(try await h.buffer.recordRetryWait(
                id: record.id, RetryWait(reason: .connectionRefused, nextTry: nextTry, receivedBytes: 700)))

            let waiting = try await h.row(record)
            #expect(waiting.state == .retrying)
            #expect(waiting.retryReason == .connectionRefused)
            #expect(waiting.nextTryAt == nextTry)
            #expect(waiting.receivedBytes == 700)
            #expect(waiting.bytesPerSecond == nil)
            #expect(waiting.owner == .current)

            #expect(try await h.buffer.recordTransfer(id: record.id, receivedBytes: 800, expectedBytes: 9_000, bytesPerSecond: nil))
            let again = try await h.row(record)
            #expect(again.state == .downloading)
            #expect(again.retryReason == nil && again.nextTryAt == nil)
        }
    }

    @Test func aRetryingEntryOfADeadOwnerBecomesInterrupted() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: try BufferHarness.exitedProcessID())
            try await h.buffer.recordRetryWait(id: record.id, RetryWait(reason: .http(503), nextTry: Date(), receivedBytes: 0))
            #expect(try await h.row(record).state == .retrying)

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.owner == nil && rebuilt.retryReason == nil && rebuilt.nextTryAt == nil)
        }
    }

    @Test func entryOfALiveOwnerIsLeftAlone() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: getpid())
            #expect(try await h.buffer.recordTransfer(id: record.id, receivedBytes: 100, expectedBytes: 9_000, bytesPerSecond: nil))
            try h.write(4_321, to: h.part(record))  // the owner is still writing; not ours to touch
            let before = try await h.row(record)

            try await h.buffer.rebuild()

            #expect(try await h.row(record) == before)
            #expect(before.state == .downloading && before.owner == .current)
        }
    }

    // MARK: - rebuild(): files that exist

    @Test(arguments: [DownloadState.notStarted, .interrupted, .paused, .error, .cancelled])
    func finalFileMarksAStoppedEntryCompleted(state: DownloadState) async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: getpid())
            try await h.setState(record, state, receivedBytes: 10, failure: state == .error ? "boom" : nil)
            try h.write(2_048, to: record.file)

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .completed)
            #expect(rebuilt.receivedBytes == 2_048)
            #expect(rebuilt.owner == nil)
        }
    }

    @Test func finalFileMarksADeadOwnersEntryCompleted() async throws {
        try await BufferHarness.run { h in
            let record = try await h.claim("Episode", processID: Int32.max)
            #expect(try await h.buffer.recordTransfer(id: record.id, receivedBytes: 100, expectedBytes: 2_048, bytesPerSecond: nil))
            try h.write(2_048, to: record.file)

            try await h.buffer.rebuild()

            let rebuilt = try await h.row(record)
            #expect(rebuilt.state == .completed)
            #expect(rebuilt.receivedBytes == 2_048)
            #expect(rebuilt.owner == nil)
        }
    }

    // MARK: - claim()

    /// Whose file it is is the rebuild's decision (``ProgressBuffer/adoptCompleteFiles(of:)``),
    /// which knows the podcast's other episodes; a claim never takes a file it did not name.
    @Test func claimNeverTakesAFileWithoutAnEntry() async throws {
        try await BufferHarness.run { h in
            let file = h.buffer.episodes.folder(forPodcast: "Show").appendingPathComponent("Episode.mp3").path
            try h.write(5_000, to: file)

            let record = try await h.claim("Episode", processID: getpid())

            #expect(record.file != file)
            #expect(URL(fileURLWithPath: record.file).lastPathComponent
                == "Episode\(FileNaming.clashTag(forEnclosureURL: "http://127.0.0.1:9/ep.mp3")).mp3")
            #expect(fileSize(atPath: file) == 5_000)  // untouched
        }
    }

    @Test func claimOfAnEntryWhoseFileAppearedIsAlreadyDownloaded() async throws {
        try await BufferHarness.run { h in
            let first = try await h.claim("Episode", processID: getpid())
            try await h.setState(first, .interrupted, receivedBytes: 10)
            try h.write(5_000, to: first.file)

            let claim = try await h.buffer.claim(h.request("ep.mp3", title: "Episode"))

            guard case .alreadyDownloaded(let record) = claim else {
                Issue.record("expected .alreadyDownloaded, got \(claim)")
                return
            }
            #expect(record.id == first.id)
            #expect(try await h.row(first).state == .completed)
        }
    }

    @Test func claimOfAnEntryOwnedByAnotherLiveProcessIsOwnedElsewhere() async throws {
        try await BufferHarness.run { h in
            let other = Process()
            other.executableURL = URL(fileURLWithPath: "/bin/sleep")
            other.arguments = ["600"]  // outlives the test however slow the machine; killed below
            try other.run()
            // SIGKILL: the child may inherit a signal mask (from the spawning thread) that blocks SIGTERM.
            defer {
                if other.isRunning { kill(other.processIdentifier, SIGKILL) }
                other.waitUntilExit()
            }
            let otherPID = other.processIdentifier
            let owned = try await h.claim("Episode", processID: otherPID)
            #expect(try await h.buffer.recordTransfer(id: owned.id, receivedBytes: 500, expectedBytes: 1_000, bytesPerSecond: nil))

            let claim = try await h.buffer.claim(h.request("ep.mp3", title: "Episode"))

            guard case .ownedElsewhere(let record) = claim else {
                Issue.record("expected .ownedElsewhere, got \(claim)")
                return
            }
            #expect(record.id == owned.id)
            #expect(record.owner?.processID == otherPID)
            let row = try await h.row(owned)
            #expect(row.owner?.processID == otherPID)
            #expect(row.state == .downloading)

            // Once that process is gone, the download can be taken over.
            kill(otherPID, SIGKILL)
            other.waitUntilExit()
            let taken = try await h.claim("Episode", processID: getpid())
            #expect(taken.id == owned.id)
            #expect(taken.owner == .current)
        }
    }

    @Test func episodesWithTheSameTitleGetDistinctFiles() async throws {
        try await BufferHarness.run { h in
            let first = try await h.claim("Title", file: "one.mp3", processID: getpid())
            let second = try await h.claim("Title", file: "two.mp3", processID: getpid())
            let elsewhere = try await h.claim("Title", file: "three.mp3", podcast: "Other Show", processID: getpid())
            let again = try await h.claim("Title", file: "one.mp3", processID: getpid())

            let show = h.buffer.episodes.folder(forPodcast: "Show")
            #expect(first.file == show.appendingPathComponent("Title.mp3").path)
            #expect(second.file == show.appendingPathComponent("Title\(FileNaming.clashTag(forEnclosureURL: "http://127.0.0.1:9/two.mp3")).mp3").path)
            #expect(elsewhere.file == h.buffer.episodes.folder(forPodcast: "Other Show").appendingPathComponent("Title.mp3").path)
            #expect(again.id == first.id && again.file == first.file)
            #expect(try await h.library.downloads().count == 3)
        }
    }
}

// MARK: - Harness

/// A library in a temporary folder, with its `Episodes` folder beside it.
private struct BufferHarness {
    let directory: URL
    let library: Library
    let buffer: ProgressBuffer

    static func run(_ body: (BufferHarness) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-buffer-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await Library.open(directory: directory)
        let buffer = ProgressBuffer(library: library, episodes: EpisodesFolder(libraryDirectory: directory))
        try await body(BufferHarness(directory: directory, library: library, buffer: buffer))
    }

    /// A request for a file on a port nothing listens on; these tests never fetch it.
    func request(_ file: String, title: String, podcast: String = "Show") -> DownloadRequest {
        let enclosure = Enclosure(url: "http://127.0.0.1:9/\(file)", type: "audio/mpeg")
        return DownloadRequest(podcastTitle: podcast, episode: Episode(title: title, enclosure: enclosure), enclosure: enclosure)
    }

    /// Claims a request that must be granted, for an owner with this process id (and no start time).
    func claim(_ title: String, file: String = "ep.mp3", podcast: String = "Show", processID: Int32) async throws -> Download {
        let owner = processID == getpid() ? DownloadOwner.current : DownloadOwner(processID: processID, startTime: nil)
        let claim = try await buffer.claim(request(file, title: title, podcast: podcast), owner: owner)
        guard case .claimed(let download) = claim else {
            Issue.record("expected .claimed, got \(claim)")
            throw BufferClaimRefused()
        }
        #expect(download.owner == owner)
        return download
    }

    /// Puts a download in a state directly, as a fixture (the lifecycle is tested on its own).
    func setState(
        _ download: Download, _ state: DownloadState, receivedBytes: Int64, expectedBytes: Int64? = nil, failure: String? = nil
    ) async throws {
        var changed = try await row(download)
        changed.state = state
        changed.receivedBytes = receivedBytes
        changed.expectedBytes = expectedBytes ?? changed.expectedBytes
        changed.failure = failure.map { DownloadError.stored(.unexpected($0), url: download.enclosureURL) }
        if !DownloadLifecycle.isUnderWay(state) { changed.owner = nil }
        try await library.withDownloadStore { [changed] store in try store.update(changed) }
    }

    func row(_ download: Download) async throws -> Download {
        try #require(try await library.download(id: download.id))
    }

    func part(_ record: Download) -> String {
        EpisodesFolder.partialFile(for: URL(fileURLWithPath: record.file)).path
    }

    func write(_ count: Int, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x2A, count: count).write(to: url)
    }

    /// The id of a process that has exited and been reaped.
    static func exitedProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}

private struct BufferClaimRefused: Error {}
