import Foundation
import Testing

@testable import SinglecastKit

@Suite("ProgressBuffer", .timeLimit(.minutes(1)))
struct ProgressBufferTests {
    // MARK: - rebuild(): completed entries

    @Test func completedEntryWhoseFileWasDeletedIsNoLongerDownloaded() throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: getpid())
            try h.write(3_000, to: record.file)
            try h.library.recordState(id: record.id!, .completed, receivedBytes: 3_000, expectedBytes: 3_000)
            try FileManager.default.removeItem(atPath: record.file)

            try h.buffer.rebuild()

            let rebuilt = try h.row(record)
            #expect(rebuilt.state == .notStarted)
            #expect(rebuilt.receivedBytes == 0)
            #expect(rebuilt.ownerPID == nil)
        }
    }

    @Test func completedEntryWithOnlyAPartLeftIsInterrupted() throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: getpid())
            try h.library.recordState(id: record.id!, .completed, receivedBytes: 3_000, expectedBytes: 3_000)
            try h.write(1_200, to: h.part(record))

            try h.buffer.rebuild()

            let rebuilt = try h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.receivedBytes == 1_200)
        }
    }

    @Test func completedEntryWithItsFileIsLeftAlone() throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: getpid())
            try h.write(3_000, to: record.file)
            try h.library.recordState(id: record.id!, .completed, receivedBytes: 3_000, expectedBytes: 3_000)
            let before = try h.row(record)

            try h.buffer.rebuild()

            #expect(try h.row(record) == before)
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
    func downloadingEntryOfADeadOwnerBecomesInterruptedKeepingItsPart(owner: DeadOwner) throws {
        try BufferHarness.run { h in
            let pid = try owner.processID()
            #expect(!ProgressBuffer.isAlive(pid))
            let record = try h.claim("Episode", processID: pid)
            #expect(try h.library.recordProgress(id: record.id!, receivedBytes: 100, expectedBytes: 9_000))
            try h.write(4_321, to: h.part(record))

            try h.buffer.rebuild()

            let rebuilt = try h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.receivedBytes == 4_321)
            #expect(rebuilt.expectedBytes == 9_000)
            #expect(rebuilt.ownerPID == nil)
        }
    }

    @Test func waitingEntryOfADeadOwnerBecomesInterrupted() throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: try BufferHarness.exitedProcessID())
            #expect(record.state == .waiting)

            try h.buffer.rebuild()

            let rebuilt = try h.row(record)
            #expect(rebuilt.state == .interrupted)
            #expect(rebuilt.receivedBytes == 0)
            #expect(rebuilt.ownerPID == nil)
        }
    }

    @Test func entryOfALiveOwnerIsLeftAlone() throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: getpid())
            #expect(try h.library.recordProgress(id: record.id!, receivedBytes: 100, expectedBytes: 9_000))
            try h.write(4_321, to: h.part(record))  // the owner is still writing; not ours to touch
            let before = try h.row(record)

            try h.buffer.rebuild()

            #expect(try h.row(record) == before)
            #expect(before.state == .downloading && before.ownerPID == getpid())
        }
    }

    // MARK: - rebuild(): files that exist

    @Test(arguments: [DownloadState.notStarted, .interrupted, .paused, .error, .cancelled])
    func finalFileMarksAStoppedEntryCompleted(state: DownloadState) throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: getpid())
            try h.library.recordState(id: record.id!, state, receivedBytes: 10, message: state == .error ? "boom" : nil)
            try h.write(2_048, to: record.file)

            try h.buffer.rebuild()

            let rebuilt = try h.row(record)
            #expect(rebuilt.state == .completed)
            #expect(rebuilt.receivedBytes == 2_048)
            #expect(rebuilt.ownerPID == nil)
        }
    }

    @Test func finalFileMarksADeadOwnersEntryCompleted() throws {
        try BufferHarness.run { h in
            let record = try h.claim("Episode", processID: Int32.max)
            #expect(try h.library.recordProgress(id: record.id!, receivedBytes: 100, expectedBytes: 2_048))
            try h.write(2_048, to: record.file)

            try h.buffer.rebuild()

            let rebuilt = try h.row(record)
            #expect(rebuilt.state == .completed)
            #expect(rebuilt.receivedBytes == 2_048)
            #expect(rebuilt.ownerPID == nil)
        }
    }

    // MARK: - claim()

    @Test func claimOfAFileWhoseRowWasLostIsAlreadyDownloaded() throws {
        try BufferHarness.run { h in
            let file = h.buffer.folder(forPodcast: "Show").appendingPathComponent("Episode.mp3").path
            try h.write(5_000, to: file)

            let claim = try h.buffer.claim(h.request("ep.mp3", title: "Episode"), processID: getpid())

            guard case .alreadyDownloaded(let record) = claim else {
                Issue.record("expected .alreadyDownloaded, got \(claim)")
                return
            }
            #expect(record.file == file)
            #expect(record.state == .completed)
            #expect(record.ownerPID == nil)
            let row = try h.row(record)
            #expect(row.state == .completed)
            #expect(row.file == file)
            #expect(ProgressBuffer.size(ofFile: file) == 5_000)  // untouched
        }
    }

    @Test func claimOfAnEntryWhoseFileAppearedIsAlreadyDownloaded() throws {
        try BufferHarness.run { h in
            let first = try h.claim("Episode", processID: getpid())
            try h.library.recordState(id: first.id!, .interrupted, receivedBytes: 10)
            try h.write(5_000, to: first.file)

            let claim = try h.buffer.claim(h.request("ep.mp3", title: "Episode"), processID: getpid())

            guard case .alreadyDownloaded(let record) = claim else {
                Issue.record("expected .alreadyDownloaded, got \(claim)")
                return
            }
            #expect(record.id == first.id)
            #expect(try h.row(first).state == .completed)
        }
    }

    @Test func claimOfAnEntryOwnedByAnotherLiveProcessIsOwnedElsewhere() throws {
        try BufferHarness.run { h in
            let other = Process()
            other.executableURL = URL(fileURLWithPath: "/bin/sleep")
            other.arguments = ["5"]
            try other.run()
            // SIGKILL: the child may inherit a signal mask (from the spawning thread) that blocks SIGTERM.
            defer {
                if other.isRunning { kill(other.processIdentifier, SIGKILL) }
                other.waitUntilExit()
            }
            let otherPID = other.processIdentifier
            let owned = try h.claim("Episode", processID: otherPID)
            #expect(try h.library.recordProgress(id: owned.id!, receivedBytes: 500, expectedBytes: 1_000))

            let claim = try h.buffer.claim(h.request("ep.mp3", title: "Episode"), processID: getpid())

            guard case .ownedElsewhere(let record) = claim else {
                Issue.record("expected .ownedElsewhere, got \(claim)")
                return
            }
            #expect(record.id == owned.id)
            #expect(record.ownerPID == otherPID)
            let row = try h.row(owned)
            #expect(row.ownerPID == otherPID)
            #expect(row.state == .downloading)

            // Once that process is gone, the download can be taken over.
            kill(otherPID, SIGKILL)
            other.waitUntilExit()
            let taken = try h.claim("Episode", processID: getpid())
            #expect(taken.id == owned.id)
            #expect(taken.ownerPID == getpid())
        }
    }

    @Test func episodesWithTheSameTitleGetDistinctFiles() throws {
        try BufferHarness.run { h in
            let first = try h.claim("Title", file: "one.mp3", processID: getpid())
            let second = try h.claim("Title", file: "two.mp3", processID: getpid())
            let elsewhere = try h.claim("Title", file: "three.mp3", podcast: "Other Show", processID: getpid())
            let again = try h.claim("Title", file: "one.mp3", processID: getpid())

            let show = h.buffer.folder(forPodcast: "Show")
            #expect(first.file == show.appendingPathComponent("Title.mp3").path)
            #expect(second.file == show.appendingPathComponent("Title (2).mp3").path)
            #expect(elsewhere.file == h.buffer.folder(forPodcast: "Other Show").appendingPathComponent("Title.mp3").path)
            #expect(again.id == first.id && again.file == first.file)
            #expect(try h.library.downloads().count == 3)
        }
    }
}

// MARK: - Harness

/// A library in a temporary folder, with its `Episodes` folder beside it.
private struct BufferHarness {
    let directory: URL
    let library: Library
    let buffer: ProgressBuffer

    static func run(_ body: (BufferHarness) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-buffer-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try Library(directory: directory)
        let buffer = ProgressBuffer(
            library: library, episodesDirectory: directory.appendingPathComponent("Episodes", isDirectory: true))
        try body(BufferHarness(directory: directory, library: library, buffer: buffer))
    }

    /// A request for a file on a port nothing listens on; these tests never fetch it.
    func request(_ file: String, title: String, podcast: String = "Show") -> DownloadRequest {
        let enclosure = Enclosure(url: "http://127.0.0.1:9/\(file)", type: "audio/mpeg")
        return DownloadRequest(podcastTitle: podcast, episode: Episode(title: title, enclosure: enclosure), enclosure: enclosure)
    }

    /// Claims a request that must be granted.
    func claim(_ title: String, file: String = "ep.mp3", podcast: String = "Show", processID: Int32) throws -> DownloadRecord {
        let claim = try buffer.claim(request(file, title: title, podcast: podcast), processID: processID)
        guard case .claimed(let record) = claim else {
            Issue.record("expected .claimed, got \(claim)")
            throw BufferClaimRefused()
        }
        #expect(record.ownerPID == processID)
        return record
    }

    func row(_ record: DownloadRecord) throws -> DownloadRecord {
        let id = try #require(record.id)
        return try #require(try library.download(id: id))
    }

    func part(_ record: DownloadRecord) -> String {
        FileTransfer.partURL(for: URL(fileURLWithPath: record.file)).path
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
