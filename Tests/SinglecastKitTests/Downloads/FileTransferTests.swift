import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

@Suite("FileTransfer", .timeLimit(.minutes(1)))
struct FileTransferTests {
    static let size = 300_000
    static let content = TransferHarness.sample(size)

    // MARK: - Plain and resumed downloads

    @Test func plainDownloadCreatesDirectoryAndMatchesBytes() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"")
            let destination = h.directory.appendingPathComponent("new/podcast/ep.mp3")
            let log = TransferProgressLog()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: log.record)
            #expect(final == destination)
            #expect(try Data(contentsOf: final) == Self.content)
            h.expectNoLeftovers(destination)
            #expect(log.last == .init(receivedBytes: Int64(Self.size), totalBytes: Int64(Self.size)))
            #expect(log.all.first?.receivedBytes == 0)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count == 1)
            #expect(requests.first?.range == nil)
        }
    }

    @Test func largeGeneratedBodyStreamsToDisk() async throws {
        let size: Int64 = 24 << 20
        try await TransferHarness.run { h in
            h.server.serve(path: "/big.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"big\"")
            let destination = h.destination("big.mp3")
            let final = try await h.transfer.download(
                h.server.url("/big.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(fileSize(atPath: final.path) == size)
            let handle = try FileHandle(forReadingFrom: final)
            defer { try? handle.close() }
            var offset: Int64 = 0
            while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty {
                #expect(chunk == TestServer.generatedBytes(offset: offset, count: chunk.count))
                offset += Int64(chunk.count)
            }
        }
    }

    @Test func resumesFromExistingPartWithRangeAndIfRange() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"")
            let destination = h.destination()
            let n = 123_456
            try h.leavePart(Self.content.prefix(n), for: destination, validator: "\"v1\"")
            let log = TransferProgressLog()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: log.record)
            #expect(try Data(contentsOf: final) == Self.content)
            h.expectNoLeftovers(destination)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count == 1)
            #expect(requests.first?.range == "bytes=\(n)-")
            #expect(requests.first?.header("If-Range") == "\"v1\"")
            #expect(log.all.first == .init(receivedBytes: Int64(n), totalBytes: Int64(Self.size)))
        }
    }

    @Test func partWithoutValidatorResumesWithRangeOnly() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg")
            let destination = h.destination()
            try Self.content.prefix(1_234).write(to: EpisodesFolder.partialFile(for: destination))
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            let request = h.server.requests(for: "/ep.mp3").first
            #expect(request?.range == "bytes=1234-")
            #expect(request?.header("If-Range") == nil)
            h.expectNoLeftovers(destination)
        }
    }

    @Test func htmlIsFineWhenTheFeedAnnouncedText() async throws {
        try await TransferHarness.run { h in
            let page = Data("<!DOCTYPE html><html><body>Show notes</body></html>".utf8)
            h.server.serve(path: "/notes", data: page, contentType: "text/html")
            let final = try await h.transfer.download(
                h.server.url("/notes"), to: h.destination("notes.html"), announcedType: "text/html", progress: { _ in })
            #expect(try Data(contentsOf: final) == page)
        }
    }

    @Test func resumeUsesLastModifiedWhenThereIsNoStrongETag() async throws {
        try await TransferHarness.run { h in
            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "W/\"weak\"",
                lastModified: modified, faults: [.dropAfter(100_000)])
            let destination = h.destination()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-Range") == "Tue, 14 Nov 2023 22:13:20 GMT")
        }
    }

    @Test func extensionComesFromContentTypeWhenDestinationHasNone() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/download", data: Self.content, contentType: "audio/x-m4a")
            let destination = h.destination("Ep. 12 The Start")
            let final = try await h.transfer.download(
                h.server.url("/download?id=7"), to: destination, announcedType: nil, progress: { _ in })
            #expect(final.lastPathComponent == "Ep. 12 The Start.m4a")
            #expect(try Data(contentsOf: final) == Self.content)
            h.expectNoLeftovers(destination)
        }
    }

    // MARK: - A server that answers but never delivers

    /// Waits that would outlast the test's time limit many times over if these answers were
    /// taken for an outage: the give-up time is an hour.
    static let answeringServerPolicy = FileTransfer.RetryPolicy(
        giveUpAfter: .seconds(3600), baseDelay: .milliseconds(5), growth: 1.2, maxDelay: .milliseconds(50))

    @Test func aBodyThatAlwaysEndsAtTheSameByteFailsAfterFiveFruitlessAnswers() async throws {
        try await TransferHarness.run(retryPolicy: Self.answeringServerPolicy) { h in
            h.server.serve(path: "/ep.mp3", generatedSize: 2_000_000, contentType: "audio/mpeg", etag: "\"v1\"")
            h.server.endBodies(path: "/ep.mp3", atByte: 1_000_000)
            let destination = h.destination()
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg")
            }
            #expect(error?.reason == .serverKeepsEnding(at: 1_000_000, of: 2_000_000))
            #expect(error?.isTransient == false)
            #expect(error?.gaveUpAfter == nil)
            // The answers brought half (in one, or in more when a close loses bytes the client had
            // not read yet, as on a loaded machine); then five more brought nothing new.
            #expect(Self.fruitlessTail(h.server.requests(for: "/ep.mp3").map(\.range), at: 1_000_000) == 5)
            #expect(fileSize(atPath: EpisodesFolder.partialFile(for: destination).path) == 1_000_000)
            #expect(!TransferHarness.exists(destination))
        }
    }

    /// How many requests at the end asked for the rest from `byte`: the tries in a row that
    /// brought nothing new, once the part had reached `byte`.
    static func fruitlessTail(_ ranges: [String?], at byte: Int64) -> Int {
        ranges.reversed().prefix { $0 == "bytes=\(byte)-" }.count
    }

    @Test func rangesAnsweredWithNoByteFailAfterFiveTries() async throws {
        try await TransferHarness.run(retryPolicy: Self.answeringServerPolicy) { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"")
            h.server.answerRangesWithNoByte(path: "/ep.mp3")
            let destination = h.destination()
            try h.leavePart(Self.content.prefix(100_000), for: destination, validator: "\"v1\"")
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg")
            }
            #expect(error?.reason == .serverKeepsEnding(at: 100_000, of: Int64(Self.size)))
            #expect(h.server.requests(for: "/ep.mp3").count == 5)
            #expect(fileSize(atPath: EpisodesFolder.partialFile(for: destination).path) == 100_000)
        }
    }

    @Test func answersThatEachBringNewBytesAreNeverCountedAgainstTheServer() async throws {
        try await TransferHarness.run(retryPolicy: Self.answeringServerPolicy) { h in
            // Eight answers in a row end early, each a little further on.
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: Array(repeating: .shortBody(30_000), count: 8))
            let destination = h.destination()
            let final = try await h.transfer.download(h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg")
            #expect(try Data(contentsOf: final) == Self.content)
            #expect(h.server.requests(for: "/ep.mp3").count == 9)
        }
    }

    // MARK: - Transient failures

    @Test func droppedConnectionIsResumed() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.dropAfter(100_000)])
            let destination = h.destination()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            h.expectNoLeftovers(destination)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count == 2)
            #expect(requests.first?.range == nil)
            #expect(requests.last?.range?.hasPrefix("bytes=") == true)
            #expect(requests.last?.header("If-Range") == "\"v1\"")
        }
    }

    @Test func shortBodyIsResumedToCompletion() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.shortBody(70_000), .shortBody(70_000)])
            let destination = h.destination()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            let ranges = h.server.requests(for: "/ep.mp3").map(\.range)
            #expect(ranges.count == 3)
            #expect(ranges.dropFirst().allSatisfy { $0 != nil && $0 != "bytes=0-" })
        }
    }

    @Test func stallHitsReadTimeoutThenResumes() async throws {
        // A read timeout long enough that a loaded machine still gets the first bytes in, and a
        // give-up far enough away that a resume timing out once more is still retried.
        let patient = FileTransfer.RetryPolicy(giveUpAfter: .seconds(40), baseDelay: .milliseconds(10), growth: 2, maxDelay: .seconds(1))
        try await TransferHarness.run(readTimeout: .seconds(3), retryPolicy: patient) { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.stall(afterBytes: 100_000, seconds: 600)])
            let destination = h.destination()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            // The first request, stalled until the client goes, ended by the read timeout; a
            // later one resumed from the bytes on disk (on a loaded machine a resume may time
            // out once more before it is through).
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count >= 2)
            #expect(
                requests.dropFirst().contains { $0.range?.hasPrefix("bytes=") == true && $0.range != "bytes=0-" },
                "\(requests.map(\.range))")
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        let clock = TestClock()
        try await TransferHarness.run(clock: clock) { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.status(503, retryAfter: 1)])
            let waits = RetryWaitLog()
            let download = Task {
                try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: h.destination(), announcedType: "audio/mpeg", waiting: { waits.record($0) })
            }
            try await waitUntil { !waits.all.isEmpty }
            // A moment before the second asked for, the transfer still waits; then it tries again.
            await clock.advance(by: .milliseconds(999))
            try await waitUntil { clock.sleepers == 1 }  // still waiting: a shorter wait would be over
            #expect(h.server.requests(for: "/ep.mp3").count == 1)
            await clock.advance(by: .milliseconds(1))
            let final = try await download.value
            #expect(try Data(contentsOf: final) == Self.content)
            #expect(h.server.requests(for: "/ep.mp3").count == 2)
            #expect(waits.all.map(\.reason) == [.http(503)])
        }
    }

    @Test func aTransferOutlastsMoreTransientFailuresThanAnyFixedCount() async throws {
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(60), baseDelay: .milliseconds(5), growth: 1.2)
        try await TransferHarness.run(retryPolicy: policy) { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg",
                faults: Array(repeating: .status(503), count: 12))
            let destination = h.destination()
            _ = try await h.transfer.download(h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg")
            #expect(h.server.requests(for: "/ep.mp3").count == 13)
            #expect(FileManager.default.contents(atPath: destination.path) == Self.content)
        }
    }

    @Test func transientFailuresGiveUpOnlyAfterTheQuietTime() async throws {
        // Tries 10 ms apart, growing by half each time, without jitter: a dozen before the give-up.
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(2), baseDelay: .milliseconds(10), growth: 1.5, jitter: 0)
        let clock = TestClock()
        try await TransferHarness.run(retryPolicy: policy, clock: clock) { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg",
                faults: Array(repeating: .status(503), count: 200))
            let destination = h.destination()
            let waits = RetryWaitLog()
            let ended = DoneFlag()
            let download = Task {
                defer { ended.set() }
                _ = try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", waiting: { waits.record($0) })
            }
            // Each announced wait is let pass on the clock, the last one cut short by the give-up time.
            var elapsed = Duration.zero
            var retries = 0
            while true {
                try await waitUntil { waits.all.count > retries || ended.isSet }
                if ended.isSet { break }
                retries += 1
                elapsed = min(elapsed + policy.delay(beforeRetry: retries), policy.giveUpAfter)
                await clock.advance(to: TestClock.Instant(offset: elapsed))
            }
            let error = await #expect(throws: DownloadError.self) { try await download.value }
            #expect(elapsed == .seconds(2))
            #expect(error?.httpStatus == 503)
            #expect(error?.gaveUpAfter == .seconds(2))
            // Tries go on until the quiet time is over, each one announced as a wait.
            var expected = 1
            var planned = Duration.zero
            while planned < policy.giveUpAfter {
                planned += policy.delay(beforeRetry: expected)
                expected += 1
            }
            #expect(h.server.requests(for: "/ep.mp3").count == expected)
            #expect(waits.all.count == expected - 1)
            #expect(waits.all.allSatisfy { $0.reason == .http(503) })
            #expect(!TransferHarness.exists(destination))
        }
    }

    @Test(arguments: [401, 403, 404, 410])
    func permanentFailuresEndAtOnceWithoutWaiting(status: Int) async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", faults: [.status(status)])
            let waits = RetryWaitLog()
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: h.destination(), announcedType: "audio/mpeg", waiting: { waits.record($0) })
            }
            #expect(error?.isTransient == false)
            #expect(waits.all.isEmpty)
            #expect(h.server.requests(for: "/ep.mp3").count == 1)
        }
    }

    @Test func aServerThatGoesAwayAndComesBackIsResumedFromTheBytesOnDisk() async throws {
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(20), baseDelay: .milliseconds(50), growth: 1.4, maxDelay: .milliseconds(400))
        let clock = TestClock()
        // A start far from today: next tries dated by the wall clock instead of the transfer's would show.
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        try await TransferHarness.run(retryPolicy: policy, clock: clock, wallClockStart: started) { h in
            let size: Int64 = 3_000_000
            h.server.serve(path: "/ep.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"v1\"", bytesPerSecond: 1_500_000)
            let destination = h.destination()
            let waits = RetryWaitLog()
            let download = Task {
                try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", waiting: { waits.record($0) })
            }
            let part = EpisodesFolder.partialFile(for: destination)
            try await waitUntil { (fileSize(atPath: part.path) ?? 0) > 500_000 }
            try await h.server.stop()
            // Gone for a while: the transfer waits, is refused on its next try, waits again, and
            // keeps its part.
            try await waitUntil { !waits.all.isEmpty }
            await clock.advance(by: policy.maxDelay)
            try await waitUntil { waits.all.contains { $0.reason == .connectionRefused } }
            let refused = waits.all.count
            await clock.advance(by: policy.maxDelay)
            try await waitUntil { waits.all.count > refused }
            let kept = fileSize(atPath: part.path) ?? 0
            #expect(kept > 500_000)
            try await h.server.restart()
            await clock.advance(by: policy.maxDelay)
            let final = try await download.value
            #expect(try Data(contentsOf: final) == TestServer.generatedBytes(offset: 0, count: Int(size)))
            let resumedFrom = h.server.requests(for: "/ep.mp3").compactMap(\.range).last
            #expect(resumedFrom == "bytes=\(kept)-")
            // Each next try is at most one wait after the clock time it was reported at: the test
            // advanced the clock by three waits in all.
            let latest = started.addingTimeInterval(4 * policy.maxDelay.inSeconds)
            #expect(waits.all.allSatisfy { $0.receivedBytes > 0 && $0.nextTry >= started && $0.nextTry <= latest }, "\(waits.all)")
        }
    }

    @Test func aHostThatRefusesConnectionsDoesNotHoldUpAnother() async throws {
        let policy = FileTransfer.RetryPolicy(
            giveUpAfter: .seconds(20), baseDelay: .milliseconds(500), growth: 1.4, maxDelay: .seconds(1), jitter: 0)
        let clock = TestClock()
        try await TransferHarness.run(retryPolicy: policy, clock: clock) { h in
            let other = try await TestServer.start()
            other.serve(path: "/b.mp3", data: Self.content, contentType: "audio/mpeg")
            h.server.serve(path: "/a1.mp3", data: Self.content, contentType: "audio/mpeg")
            h.server.serve(path: "/a2.mp3", data: Self.content, contentType: "audio/mpeg")
            try await h.server.stop()
            let firstWaits = RetryWaitLog()
            let secondWaits = RetryWaitLog()
            @Sendable func download(_ path: String, _ waits: RetryWaitLog) async throws -> URL {
                try await h.transfer.download(
                    h.server.url(path), to: h.destination(String(path.dropFirst())), announcedType: "audio/mpeg",
                    waiting: { waits.record($0) })
            }
            // Child tasks, so that the suite's time limit cancels them too.
            async let first = download("/a1.mp3", firstWaits)
            // The clock moves only once a download sleeps on it: a download reports its wait
            // just before, and a sleep begun after a move would never end.
            try await waitUntil { !firstWaits.all.isEmpty && clock.sleepers == 1 }
            // The second download starts 0.3 s later: one outage for the host, so it waits for
            // the first one's next try, 0.5 s after the first failure (its own would come 0.8 s
            // after it).
            await clock.advance(by: .milliseconds(300))
            async let second = download("/a2.mp3", secondWaits)
            // The working host's download completes while the other host refuses.
            let b = try await h.transfer.download(other.url("/b.mp3"), to: h.destination("b.mp3"), announcedType: "audio/mpeg")
            #expect(try Data(contentsOf: b) == Self.content)
            try await waitUntil { !secondWaits.all.isEmpty && clock.sleepers == 2 }
            // At the first one's next try both try again, are refused, and wait again.
            await clock.advance(by: .milliseconds(200))
            try await waitUntil { firstWaits.all.count == 2 && secondWaits.all.count == 2 && clock.sleepers == 2 }
            let waits = firstWaits.all + secondWaits.all
            #expect(waits.allSatisfy { $0.reason == .connectionRefused })
            try await h.server.restart()
            await clock.advance(by: policy.maxDelay)
            #expect(try Data(contentsOf: try await first) == Self.content)
            #expect(try Data(contentsOf: try await second) == Self.content)
            try await other.stop()
        }
    }

    @Test func retryAfterOfAMinuteWaitsAsLongAsThePolicyAllows() async throws {
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(20), baseDelay: .milliseconds(10), maxDelay: .milliseconds(800))
        let clock = TestClock()
        try await TransferHarness.run(retryPolicy: policy, clock: clock) { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", faults: [.status(503, retryAfter: 60)])
            let waits = RetryWaitLog()
            let download = Task {
                try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: h.destination(), announcedType: "audio/mpeg", waiting: { waits.record($0) })
            }
            try await waitUntil { !waits.all.isEmpty }
            await clock.advance(by: .milliseconds(799))
            try await waitUntil { clock.sleepers == 1 }  // still waiting: a shorter wait would be over
            await clock.advance(by: .milliseconds(1))
            let final = try await download.value
            #expect(try Data(contentsOf: final) == Self.content)
            #expect(waits.all.map(\.reason) == [.http(503)])
        }
    }

    // MARK: - Servers that do not honour the range

    @Test func ignoredRangeStartsOver() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.ignoreRange])
            let destination = h.destination()
            // Garbage in the part proves it is truncated, not appended to.
            try h.leavePart(Data(repeating: 0xAA, count: 50_000), for: destination, validator: "\"v1\"")
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            h.expectNoLeftovers(destination)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count == 1)
            #expect(requests.first?.range == "bytes=50000-")
        }
    }

    @Test func changedETagBetweenAttemptsGivesTheNewContent() async throws {
        let newContent = TransferHarness.sample(250_000, offset: 777)
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.dropAfter(100_000), .changeContent(newContent, etag: "\"v2\"")])
            let destination = h.destination()
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == newContent)
            h.expectNoLeftovers(destination)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-Range") == "\"v1\"")
        }
    }

    @Test func rangeStartingElsewhereStartsOver() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.rangeFrom(10)])
            let destination = h.destination()
            try h.leavePart(Self.content.prefix(40_000), for: destination, validator: "\"v1\"")
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            let ranges = h.server.requests(for: "/ep.mp3").map(\.range)
            #expect(ranges == ["bytes=40000-", nil])
        }
    }

    @Test func rangeNotSatisfiableWithCompletePartFinishes() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"")
            let destination = h.destination("whole")
            try h.leavePart(Self.content, for: destination, validator: "\"v1\"", contentType: "audio/mpeg")
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: nil, progress: { _ in })
            #expect(final.lastPathComponent == "whole.mp3")
            #expect(try Data(contentsOf: final) == Self.content)
            h.expectNoLeftovers(destination)
            let requests = h.server.requests(for: "/ep.mp3")
            #expect(requests.map(\.range) == ["bytes=\(Self.size)-"])
        }
    }

    @Test func rangeNotSatisfiableOtherwiseStartsOver() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"",
                faults: [.status416])
            let destination = h.destination()
            try h.leavePart(Self.content.prefix(1_000), for: destination, validator: "\"v1\"")
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            #expect(h.server.requests(for: "/ep.mp3").map(\.range) == ["bytes=1000-", nil])
        }
    }

    @Test func redirectChainWithRelativeLocationKeepsRange() async throws {
        try await TransferHarness.run { h in
            h.server.redirect(path: "/track/r1", to: "r2", status: 302)
            h.server.redirect(path: "/track/r2", to: "/media/ep.mp3", status: 307)
            h.server.serve(path: "/media/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"")
            let destination = h.destination()
            try h.leavePart(Self.content.prefix(5_000), for: destination, validator: "\"v1\"")
            let final = try await h.transfer.download(
                h.server.url("/track/r1?utm_source=feed"), to: destination, announcedType: "audio/mpeg",
                progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            let requests = h.server.requests
            #expect(requests.map(\.path) == ["/track/r1", "/track/r2", "/media/ep.mp3"])
            #expect(requests.allSatisfy { $0.range == "bytes=5000-" })
        }
    }

    // MARK: - Not an episode

    @Test func htmlPageIsAnErrorAndLeavesNothing() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", faults: [.htmlPage])
            let destination = h.destination()
            let url = h.server.url("/ep.mp3")
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(url, to: destination, announcedType: "audio/mpeg", progress: { _ in })
            }
            #expect(error?.reason == .htmlInsteadOfMedia(expectedType: "audio/mpeg"))
            #expect(error?.url == url.absoluteString)
            #expect(!TransferHarness.exists(destination))
            h.expectNoLeftovers(destination)
            #expect(h.server.requests(for: "/ep.mp3").count == 1)
        }
    }

    @Test func htmlPageDuringResumeKeepsThePart() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"", faults: [.htmlPage])
            let destination = h.destination()
            try h.leavePart(Self.content.prefix(9_000), for: destination, validator: "\"v1\"")
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            }
            #expect(error?.reason == .htmlInsteadOfMedia(expectedType: "audio/mpeg"))
            #expect(!TransferHarness.exists(destination))
            #expect(try Data(contentsOf: EpisodesFolder.partialFile(for: destination)) == Self.content.prefix(9_000))
            // Later, with the server fixed, the download resumes.
            let final = try await h.transfer.download(
                h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == Self.content)
            #expect(h.server.requests(for: "/ep.mp3").last?.range == "bytes=9000-")
        }
    }

    @Test func htmlBodyLabelledAsAudioIsAnError() async throws {
        try await TransferHarness.run { h in
            let page = Data("\n  <!DOCTYPE html><html><body>Please log in</body></html>".utf8)
            h.server.serve(path: "/ep.mp3", data: page, contentType: "audio/mpeg")
            let destination = h.destination()
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            }
            #expect(error?.reason == .htmlInsteadOfMedia(expectedType: "audio/mpeg"))
            #expect(!TransferHarness.exists(destination))
            h.expectNoLeftovers(destination)
        }
    }

    @Test(arguments: [404, 410, 403])  // 401 asks for credentials: BasicAuthTests
    func permanentStatusIsAnErrorNamingStatusAndURL(status: Int) async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", faults: [.status(status)])
            let destination = h.destination()
            let url = h.server.url("/ep.mp3")
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(url, to: destination, announcedType: "audio/mpeg", progress: { _ in })
            }
            #expect(error?.httpStatus == status)
            #expect(error?.isTransient == false)
            #expect(error?.reason == .http(HTTPError(.status(status), url: url)))
            #expect(!TransferHarness.exists(destination))
            h.expectNoLeftovers(destination)
            #expect(h.server.requests(for: "/ep.mp3").count == 1)
        }
    }

    @Test func missingResourceSays404NotFound() async throws {
        try await TransferHarness.run { h in
            let url = h.server.url("/gone.mp3")
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(url, to: h.destination(), announcedType: "audio/mpeg", progress: { _ in })
            }
            #expect(error?.reason == .http(HTTPError(.status(404), url: url)))
            #expect(error?.url == url.absoluteString)
            #expect(!TransferHarness.exists(h.destination()))
        }
    }

    // MARK: - Cancellation and the disk

    @Test func cancellationKeepsThePartForALaterResume() async throws {
        try await TransferHarness.run { h in
            let size: Int64 = 4 << 20
            h.server.serve(
                path: "/slow.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"s1\"",
                bytesPerSecond: 1 << 20)
            let destination = h.destination("slow.mp3")
            let log = TransferProgressLog()
            let transfer = h.transfer
            let url = h.server.url("/slow.mp3")
            let task = Task {
                try await transfer.download(url, to: destination, announcedType: "audio/mpeg", progress: log.record)
            }
            try await waitUntil { (log.last?.receivedBytes ?? 0) >= 200_000 }
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
            // It stopped where it was: the part holds what came, not the whole file.
            let part = EpisodesFolder.partialFile(for: destination)
            let kept = fileSize(atPath: part.path) ?? 0
            #expect(kept >= 200_000)
            #expect(kept < size)
            #expect(PartInfo.read(from: EpisodesFolder.partialFileInfo(for: destination))?.validator == "\"s1\"")
            #expect(!TransferHarness.exists(destination))

            // The same resource, now at full speed: the download resumes where it stopped.
            h.server.serve(path: "/slow.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"s1\"")
            let final = try await transfer.download(url, to: destination, announcedType: "audio/mpeg", progress: { _ in })
            #expect(try Data(contentsOf: final) == TestServer.generatedBytes(offset: 0, count: Int(size)))
            #expect(h.server.requests(for: "/slow.mp3").last?.range == "bytes=\(kept)-")
            h.expectNoLeftovers(destination)
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func fullDiskIsAClearErrorAndNotRetried() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"v1\"")
            let destination = h.destination()
            // Writes through this part fail with ENOSPC, as on a full disk.
            try FileManager.default.createSymbolicLink(
                atPath: EpisodesFolder.partialFile(for: destination).path, withDestinationPath: "/dev/full")
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(
                    h.server.url("/ep.mp3"), to: destination, announcedType: "audio/mpeg", progress: { _ in })
            }
            let part = EpisodesFolder.partialFile(for: destination).path
            #expect(error?.reason == .noSpace(path: part))
            #expect(error?.isTransient == false)
            #expect(h.server.requests(for: "/ep.mp3").count == 1)
            #expect(!TransferHarness.exists(destination))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: part)) == "/dev/full")
        }
    }
}

@Suite("FileTransfer helpers")
struct FileTransferHelperTests {
    @Test(arguments: [
        ("bytes 100-199/200", ContentRange(first: 100, last: 199, total: 200)),
        ("bytes 0-0/*", ContentRange(first: 0, last: 0, total: nil)),
        ("bytes */5000", ContentRange(first: nil, last: nil, total: 5000)),
        (" bytes 5-9/10 ", ContentRange(first: 5, last: 9, total: 10)),
    ])
    func contentRangeParses(header: String, expected: ContentRange) {
        #expect(ContentRange(header) == expected)
    }

    @Test(arguments: ["", "bytes", "bytes 9-5/10", "items 0-1/2", "bytes a-b/c", "bytes 0-1"])
    func contentRangeRejectsGarbage(header: String) {
        #expect(ContentRange(header) == nil)
    }

    @Test func retryAfterParsesSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(FileTransfer.parseRetryAfter("7", now: now) == .seconds(7))
        #expect(FileTransfer.parseRetryAfter(" 0 ", now: now) == .zero)
        #expect(FileTransfer.parseRetryAfter("Tue, 14 Nov 2023 22:13:50 GMT", now: now) == .seconds(30))
        #expect(FileTransfer.parseRetryAfter("Tuesday, 14-Nov-23 22:14:20 GMT", now: now) == .seconds(60))
        #expect(FileTransfer.parseRetryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == .zero)
        #expect(FileTransfer.parseRetryAfter("-3", now: now) == nil)
        #expect(FileTransfer.parseRetryAfter("soon", now: now) == nil)
    }

    @Test(arguments: [
        ("<!DOCTYPE html><html>", true),
        ("\u{FEFF}\n  <!doctype HTML>", true),
        ("<html lang=en>", true),
        ("ID3\u{04}\u{00}", false),
        ("<?xml version=\"1.0\"?>", false),
        ("", false),
    ])
    func htmlSniffing(text: String, isHTML: Bool) {
        #expect(FileTransfer.looksLikeHTML(Array(text.utf8)) == isHTML)
    }

    @Test func transienceLivesInOnePlace() {
        let url = URL(string: "https://h/ep.mp3")!
        for (code, transient) in [(408, true), (429, true), (500, true), (503, true), (404, false), (410, false)] {
            #expect(DownloadError(.http(HTTPError(.status(code), url: url)), url: url).isTransient == transient)
        }
        #expect(DownloadError(.http(HTTPError(.readTimeout, url: url)), url: url).isTransient)
        #expect(DownloadError(.incomplete(received: 1000, expected: 2048), url: url).isTransient)
        #expect(!DownloadError(.noSpace(path: "/x"), url: url).isTransient)
        #expect(DownloadError.fileSystem(.writeTo, path: "/x", errno: EDQUOT, url: url).reason == .noSpace(path: "/x"))
    }
}

extension ContentRange {
    init(first: Int64?, last: Int64?, total: Int64?) {
        self.init("bytes */0")!
        self.first = first
        self.last = last
        self.total = total
    }
}

/// The waits a transfer announced, from any thread.
final class RetryWaitLog: Sendable {
    private let waits = Mutex<[RetryWait]>([])

    func record(_ wait: RetryWait) {
        waits.withLock { $0.append(wait) }
    }

    var all: [RetryWait] { waits.withLock { $0 } }
}
