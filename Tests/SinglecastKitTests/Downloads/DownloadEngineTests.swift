import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

@Suite("DownloadEngine", .timeLimit(.minutes(1)))
struct DownloadEngineTests {
    // MARK: - Order and concurrency

    @Test func limitOneRunsStrictlyInQueueOrderWithByteIdenticalFiles() async throws {
        try await EngineHarness.run(limit: 1) { h in
            let items: [(path: String, title: String, size: Int64)] = [
                ("/one.mp3", "One", 150_000), ("/two.mp3", "Two", 90_001), ("/three.mp3", "Three", 120_000),
            ]
            for item in items {
                h.server.serve(path: item.path, generatedSize: item.size, contentType: "audio/mpeg", etag: "\"\(item.title)\"")
            }
            try await h.engine.enqueue(items.map { h.request($0.path, title: $0.title) })
            await h.engine.waitUntilIdle()

            let records = try await h.library.downloads()
            #expect(records.map(\.episodeTitle) == items.map(\.title))
            let ids = records.map(\.id)
            #expect(h.log.lifecycle == ids.map { "queued \($0)" } + ids.flatMap { ["started \($0)", "completed \($0)"] })
            #expect(h.server.requests.map(\.path) == items.map(\.path))
            for (record, item) in zip(records, items) {
                #expect(record.state == .completed)
                #expect(record.file == h.showFolder.appendingPathComponent(item.title + ".mp3").path)
                let file = URL(fileURLWithPath: record.file)
                #expect(try Data(contentsOf: file) == TestServer.generatedBytes(offset: 0, count: Int(item.size)))
                h.base.expectNoLeftovers(file)
            }
        }
    }

    @Test func limitTwoNeverRunsMoreThanTwoAtOnce() async throws {
        try await EngineHarness.run(limit: 2) { h in
            let paths = (1...5).map { "/ep\($0).mp3" }
            for path in paths {
                h.server.serve(path: path, generatedSize: 40_000, contentType: "audio/mpeg", bytesPerSecond: 200_000)
            }
            try await h.engine.enqueue(paths.enumerated().map { h.request($1, title: "Episode \($0 + 1)") })
            await h.engine.waitUntilIdle()

            var running = 0
            var most = 0
            for event in h.log.all {
                switch event {
                case .started: running += 1
                case .completed, .failed, .stopped: running -= 1
                default: continue
                }
                most = max(most, running)
            }
            #expect(most == 2)
            #expect(running == 0)
            let records = try await h.library.downloads()
            #expect(records.count == 5)
            #expect(records.allSatisfy { $0.state == .completed && $0.receivedBytes == 40_000 })
            // The first two of the queue start first (which of them reports first is up to the scheduler).
            #expect(Set(h.log.started.prefix(2)) == Set(records.prefix(2).compactMap(\.id)))
        }
    }

    @Test func raisingTheLimitStartsWaitingDownloads() async throws {
        try await EngineHarness.run(limit: 1) { h in
            let paths = (1...3).map { "/ep\($0).mp3" }
            for path in paths {
                h.server.serve(path: path, generatedSize: 200_000, contentType: "audio/mpeg", bytesPerSecond: 100_000)
            }
            try await h.engine.enqueue(paths.enumerated().map { h.request($1, title: "Episode \($0 + 1)") })
            try await waitUntil { h.log.started.count == 1 }
            await h.engine.setMaximumConcurrentDownloads(3)
            // The two waiting ones start before the first one (2 s) is done.
            try await waitUntil { h.log.started.count == 3 }
            #expect(h.log.completed.isEmpty)
            await h.engine.waitUntilIdle()
            #expect(try await h.library.downloads().allSatisfy { $0.state == .completed })
        }
    }

    // MARK: - Never twice

    @Test func sameEnclosureRequestedTwiceIsFetchedOnce() async throws {
        try await EngineHarness.run(limit: 3) { h in
            h.server.serve(path: "/same.mp3", generatedSize: 100_000, contentType: "audio/mpeg")
            try await h.engine.enqueue([h.request("/same.mp3", title: "First"), h.request("/same.mp3", title: "Second")])
            await h.engine.waitUntilIdle()

            #expect(h.server.requests(for: "/same.mp3").count == 1)
            let records = try await h.library.downloads()
            #expect(records.count == 1)
            #expect(records.first?.state == .completed)
            #expect(try h.filesInShowFolder() == ["First.mp3"])
            #expect(h.log.started.count == 1)
            #expect(h.log.completed.count == 1)
        }
    }

    @Test func sameEnclosureEnqueuedWhileRunningIsFetchedOnce() async throws {
        try await EngineHarness.run(limit: 3) { h in
            h.server.serve(path: "/same.mp3", generatedSize: 100_000, contentType: "audio/mpeg", bytesPerSecond: 400_000)
            try await h.engine.enqueue([h.request("/same.mp3", title: "First")])
            try await waitUntil { h.log.started.count == 1 }
            try await h.engine.enqueue([h.request("/same.mp3", title: "Second")])
            await h.engine.waitUntilIdle()

            #expect(h.server.requests(for: "/same.mp3").count == 1)
            #expect(try await h.library.downloads().map(\.state) == [.completed])
            #expect(try h.filesInShowFolder() == ["First.mp3"])
            #expect(h.log.started.count == 1)
        }
    }

    @Test func completedEpisodeReenqueuedIsAlreadyDownloaded() async throws {
        try await EngineHarness.run(limit: 2) { h in
            h.server.serve(path: "/ep.mp3", generatedSize: 50_000, contentType: "audio/mpeg")
            let request = h.request("/ep.mp3", title: "Episode")
            try await h.engine.enqueue([request])
            await h.engine.waitUntilIdle()
            let done = try #require(try await h.library.download(enclosureURL: request.enclosure.url))
            #expect(done.state == .completed)
            h.server.clearRequests()
            let before = h.log.all.count

            try await h.engine.enqueue([request])
            await h.engine.waitUntilIdle()

            #expect(h.server.requests.isEmpty)
            #expect(Array(h.log.all.dropFirst(before)) == [.alreadyDownloaded(done)])
            #expect(try await h.library.downloads() == [done])
        }
    }

    // MARK: - Stopping

    @Test func pausingOneRunningDownloadKeepsItsPartWhileOthersComplete() async throws {
        try await EngineHarness.run(limit: 3) { h in
            h.server.serve(path: "/slow.mp3", generatedSize: 2_000_000, contentType: "audio/mpeg", etag: "\"s\"", bytesPerSecond: 400_000)
            h.server.serve(path: "/a.mp3", generatedSize: 60_000, contentType: "audio/mpeg", bytesPerSecond: 300_000)
            h.server.serve(path: "/b.mp3", generatedSize: 70_000, contentType: "audio/mpeg")
            try await h.engine.enqueue([
                h.request("/slow.mp3", title: "Slow"), h.request("/a.mp3", title: "A"), h.request("/b.mp3", title: "B"),
            ])
            let slow = try await h.record("/slow.mp3")
            let destination = URL(fileURLWithPath: slow.file)
            try await waitUntil { h.partSize(destination) > 0 }

            #expect(try await h.engine.stop(id: slow.id, on: .pause))
            await h.engine.waitUntilIdle()

            let paused = try await h.record("/slow.mp3")
            #expect(paused.state == .paused)
            #expect(paused.owner == nil)
            let kept = h.partSize(destination)
            #expect(kept > 0 && kept < 2_000_000)
            #expect(paused.receivedBytes == kept)
            #expect(!TransferHarness.exists(destination))
            #expect(try await h.record("/a.mp3").state == .completed)
            #expect(try await h.record("/b.mp3").state == .completed)
            #expect(h.log.stopped.map(\.state) == [.paused])
            #expect(h.log.completed.count == 2)
        }
    }

    @Test func pausedDownloadResumesWhereItStopped() async throws {
        try await EngineHarness.run(limit: 1) { h in
            let size: Int64 = 1_500_000
            h.server.serve(path: "/ep.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"r\"", bytesPerSecond: 600_000)
            let request = h.request("/ep.mp3", title: "Episode")
            try await h.engine.enqueue([request])
            let id = try await h.record("/ep.mp3").id
            let destination = URL(fileURLWithPath: try await h.record("/ep.mp3").file)
            try await waitUntil { h.partSize(destination) > 0 }
            try await h.engine.stop(id: id, on: .pause)
            await h.engine.waitUntilIdle()
            let kept = try await h.record("/ep.mp3").receivedBytes
            #expect(kept > 0 && kept == h.partSize(destination))

            h.server.serve(path: "/ep.mp3", generatedSize: size, contentType: "audio/mpeg", etag: "\"r\"")
            try await h.engine.enqueue([request])
            await h.engine.waitUntilIdle()

            let done = try await h.record("/ep.mp3")
            #expect(done.state == .completed && done.receivedBytes == size)
            #expect(try Data(contentsOf: destination) == TestServer.generatedBytes(offset: 0, count: Int(size)))
            let resumed = try #require(h.server.requests(for: "/ep.mp3").last)
            #expect(resumed.range == "bytes=\(kept)-")
            #expect(resumed.header("If-Range") == "\"r\"")
            #expect(h.log.started.count == 2)
        }
    }

    @Test func stoppingAQueuedDownloadNeverStartsIt() async throws {
        try await EngineHarness.run(limit: 1) { h in
            h.server.serve(path: "/first.mp3", generatedSize: 200_000, contentType: "audio/mpeg", bytesPerSecond: 800_000)
            h.server.serve(path: "/paused.mp3", generatedSize: 10_000, contentType: "audio/mpeg")
            h.server.serve(path: "/cancelled.mp3", generatedSize: 10_000, contentType: "audio/mpeg")
            try await h.engine.enqueue([
                h.request("/first.mp3", title: "First"), h.request("/paused.mp3", title: "Paused"),
                h.request("/cancelled.mp3", title: "Cancelled"),
            ])
            #expect(try await h.engine.stop(id: h.record("/paused.mp3").id, on: .pause))
            #expect(try await h.engine.stop(id: h.record("/cancelled.mp3").id, on: .cancel))
            #expect(try await !h.engine.stop(id: 999, on: .pause))
            await h.engine.waitUntilIdle()

            #expect(try await h.record("/first.mp3").state == .completed)
            #expect(try await h.record("/paused.mp3").state == .paused)
            #expect(try await h.record("/cancelled.mp3").state == .cancelled)
            #expect(h.server.requests.map(\.path) == ["/first.mp3"])
            #expect(h.log.stopped.map(\.state) == [.paused, .cancelled])
        }
    }

    @Test func cancellingARunningDownloadRemovesItsPart() async throws {
        try await EngineHarness.run(limit: 2) { h in
            h.server.serve(path: "/slow.mp3", generatedSize: 2_000_000, contentType: "audio/mpeg", etag: "\"s\"", bytesPerSecond: 400_000)
            try await h.engine.enqueue([h.request("/slow.mp3", title: "Slow")])
            let slow = try await h.record("/slow.mp3")
            let destination = URL(fileURLWithPath: slow.file)
            try await waitUntil { h.partSize(destination) > 0 }

            #expect(try await h.engine.stop(id: slow.id, on: .cancel))
            await h.engine.waitUntilIdle()

            let cancelled = try await h.record("/slow.mp3")
            #expect(cancelled.state == .cancelled)
            #expect(cancelled.receivedBytes == 0)
            #expect(cancelled.owner == nil)
            h.base.expectNoLeftovers(destination)
            #expect(!TransferHarness.exists(destination))
            #expect(h.log.stopped.map(\.state) == [.cancelled])
        }
    }

    @Test func stopAllLeavesEveryUnfinishedDownloadInterruptedWithItsPart() async throws {
        try await EngineHarness.run(limit: 2) { h in
            let paths = ["/x.mp3", "/y.mp3", "/z.mp3"]
            for path in paths {
                h.server.serve(path: path, generatedSize: 2_000_000, contentType: "audio/mpeg", etag: "\"e\"", bytesPerSecond: 400_000)
            }
            try await h.engine.enqueue(paths.map { h.request($0, title: String($0.dropFirst().prefix(1))) })
            var destinations: [URL] = []
            for path in paths { destinations.append(URL(fileURLWithPath: try await h.record(path).file)) }
            try await waitUntil { h.partSize(destinations[0]) > 0 && h.partSize(destinations[1]) > 0 }

            await h.engine.stopAll()

            // Recorded by the time stopAll returns.
            var records: [Download] = []
            for path in paths { records.append(try await h.record(path)) }
            #expect(records.map(\.state) == [.interrupted, .interrupted, .interrupted])
            #expect(records.allSatisfy { $0.owner == nil })
            for (record, destination) in zip(records, destinations) {
                #expect(record.receivedBytes == h.partSize(destination))
                #expect(!TransferHarness.exists(destination))
            }
            #expect(records[0].receivedBytes > 0 && records[1].receivedBytes > 0)
            #expect(records[2].receivedBytes == 0)  // was still queued: nothing fetched
            #expect(TransferHarness.exists(EpisodesFolder.partialFileInfo(for: destinations[0])))
            #expect(Set(h.log.stopped.compactMap(\.id)) == Set(records.compactMap(\.id)))
            #expect(h.log.stopped.allSatisfy { $0.state == .interrupted })
            #expect(h.server.requests(for: "/z.mp3").isEmpty)
        }
    }

    // MARK: - Failure

    @Test func notFoundEndsInErrorNamingStatusAndURL() async throws {
        try await EngineHarness.run(limit: 1) { h in
            h.server.serve(path: "/ok.mp3", generatedSize: 30_000, contentType: "audio/mpeg")
            let missing = h.request("/missing.mp3", title: "Missing")
            try await h.engine.enqueue([missing, h.request("/ok.mp3", title: "Fine")])
            await h.engine.waitUntilIdle()

            let record = try await h.record("/missing.mp3")
            let url = missing.enclosure.url
            #expect(record.state == .error)
            #expect(record.owner == nil)
            #expect(record.failure?.kind == "http-status")
            #expect(record.failure?.httpStatus == 404)
            #expect(record.failure?.url == url)
            let destination = URL(fileURLWithPath: record.file)
            #expect(!TransferHarness.exists(destination))
            h.base.expectNoLeftovers(destination)
            #expect(h.server.requests(for: "/missing.mp3").count == 1)  // not retried
            #expect(h.log.failed.map(\.failure) == [record.failure])
            // The failure is reported before the next download starts (limit 1).
            let ids = [try await h.record("/missing.mp3").id, try await h.record("/ok.mp3").id]
            #expect(h.log.lifecycle.filter { !$0.hasPrefix("queued") }
                == ["started \(ids[0])", "failed \(ids[0])", "started \(ids[1])", "completed \(ids[1])"])
            #expect(try await h.record("/ok.mp3").state == .completed)
        }
    }

    @Test func anEnclosureThatIsNotAURLEndsInErrorNamingIt() async throws {
        try await EngineHarness.run(limit: 1) { h in
            let enclosure = Enclosure(url: "http://[bad/ep.mp3", type: "audio/mpeg")
            let request = DownloadRequest(
                podcastTitle: "Show", episode: Episode(title: "Bad", enclosure: enclosure), enclosure: enclosure)
            try await h.engine.enqueue([request])
            await h.engine.waitUntilIdle()
            let record = try #require(try await h.library.download(enclosureURL: "http://[bad/ep.mp3"))
            #expect(record.state == .error)
            #expect(record.failure?.kind == "not-a-url")
            #expect(record.failure?.url == "http://[bad/ep.mp3")
            #expect(!TransferHarness.exists(URL(fileURLWithPath: record.file)))
        }
    }

    // MARK: - Progress in the database

    @Test func progressIsSavedWhileRunningAndCompleteAtTheEnd() async throws {
        try await EngineHarness.run(limit: 1) { h in
            let size: Int64 = 360_000
            h.server.serve(path: "/ep.mp3", generatedSize: size, contentType: "audio/mpeg", bytesPerSecond: 450_000)
            try await h.engine.enqueue([h.request("/ep.mp3", title: "Episode")])  // no announced length
            // The row as the wait saw it: read again, it could be the finished one.
            var midway = try await h.record("/ep.mp3")
            try await waitUntil {
                midway = try await h.record("/ep.mp3")
                return midway.state == .downloading && midway.receivedBytes > 0
            }
            #expect(midway.expectedBytes == size)
            #expect(midway.receivedBytes < size)
            #expect(midway.owner == .current)
            await h.engine.waitUntilIdle()

            let done = try await h.record("/ep.mp3")
            #expect(done.state == .completed)
            #expect(done.receivedBytes == size)
            #expect(done.expectedBytes == size)
            #expect(fileSize(atPath: done.file) == size)
            #expect(done.bytesPerSecond == nil)
            #expect(done.owner == nil)
        }
    }

    @Test func pauseFromAnotherProcessThroughTheDatabaseStopsTheTransfer() async throws {
        // Bounds are generous (a loaded machine is slow); the transfer would take 100 s.
        try await EngineHarness.run(limit: 2) { h in
            h.server.serve(path: "/ep.mp3", generatedSize: 40_000_000, contentType: "audio/mpeg", etag: "\"p\"", bytesPerSecond: 400_000)
            try await h.engine.enqueue([h.request("/ep.mp3", title: "Episode")])
            // A progress save has happened: the transfer is under way.
            try await waitUntil { try await h.record("/ep.mp3").receivedBytes > 0 }
            let id = try await h.record("/ep.mp3").id

            // Another process without an engine pauses it: only the database changes.
            let outcomes = try await DownloadControl(buffer: h.buffer, engine: nil).apply(.pause, to: [id])
            guard case .paused = outcomes.first else {
                Issue.record("not paused: \(outcomes)")
                return
            }
            try await waitUntil { !h.log.stopped.isEmpty }
            await h.engine.waitUntilIdle()

            let record = try await h.record("/ep.mp3")
            #expect(record.state == .paused)
            let destination = URL(fileURLWithPath: record.file)
            let kept = h.partSize(destination)
            #expect(kept > 0 && kept < 40_000_000)
            #expect(record.receivedBytes == kept)
            #expect(!TransferHarness.exists(destination))
            #expect(h.log.stopped.map(\.state) == [.paused])
            #expect(h.log.completed.isEmpty && h.log.failed.isEmpty)
        }
    }

    // MARK: - Waiting for the network

    @Test func aDownloadWaitsForTheNetworkAndAResumeTriesAtOnce() async throws {
        // Waits of 30 s on a clock that never moves: only the resume can make the download complete.
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(120), baseDelay: .seconds(30), jitter: 0)
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        try await EngineHarness.run(limit: 2, retryPolicy: policy, clock: TestClock(), wallClockStart: started) { h in
            h.server.serve(path: "/ep.mp3", generatedSize: 50_000, contentType: "audio/mpeg")
            try await h.server.stop()
            try await h.engine.enqueue([h.request("/ep.mp3", title: "Ep")])
            try await waitUntil { !h.log.retrying.isEmpty }
            let waiting = try await h.record("/ep.mp3")
            #expect(waiting.state == .retrying)
            #expect(waiting.retryReason == .connectionRefused)
            let nextTry = try #require(waiting.nextTryAt)
            #expect(nextTry == started.addingTimeInterval(30), "the first wait, on the clock that never moved")
            #expect(waiting.owner == .current)
            // Still under way: the engine (and so a daemon) is not idle.
            #expect(await !h.engine.isIdle)

            try await h.server.restart()
            let outcomes = try await DownloadControl(buffer: h.buffer, engine: h.engine).apply(.resume, to: [waiting.id])
            guard case .resumed(.claimed(let resumed))? = outcomes.first else {
                Issue.record("not resumed: \(outcomes)")
                return
            }
            #expect(resumed.id == waiting.id)
            try await waitUntil { h.log.completed.count == 1 }
            let done = try await h.record("/ep.mp3")
            #expect(done.state == .completed)
            #expect(done.retryReason == nil && done.nextTryAt == nil)
            #expect(h.log.lifecycle == ["queued 1", "started 1", "retrying 1", "started 1", "completed 1"])
        }
    }

    @Test(arguments: [DownloadLifecycle.Event.fail, .interrupt])
    func aDownloadThatGetsNoByteForTheGiveUpTimeEnds(giveUp: DownloadLifecycle.Event) async throws {
        // The give-up time passes on a test clock, only once the first wait has begun.
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(1), baseDelay: .milliseconds(50))
        let clock = TestClock()
        try await EngineHarness.run(limit: 1, retryPolicy: policy, clock: clock, giveUp: giveUp) { h in
            h.server.serve(path: "/ep.mp3", generatedSize: 50_000, contentType: "audio/mpeg")
            try await h.server.stop()
            try await h.engine.enqueue([h.request("/ep.mp3", title: "Ep")])
            try await waitUntil { !h.log.retrying.isEmpty }
            await clock.advance(by: policy.giveUpAfter)
            await h.engine.waitUntilIdle()
            let record = try await h.record("/ep.mp3")
            #expect(record.state == (giveUp == .fail ? .error : .interrupted))
            #expect(record.failure?.kind == "unreachable" && record.failure?.gaveUpAfter != nil)
            #expect(record.owner == nil && record.nextTryAt == nil)
            #expect(!h.log.retrying.isEmpty)
        }
    }

    /// A server that answers but never delivers is no outage: whatever the give-up time, and in
    /// the foreground (which would leave a download the network failed interrupted), the download
    /// ends in error after five fruitless answers, its part kept.
    @Test(arguments: [DownloadLifecycle.Event.fail, .interrupt])
    func aServerThatKeepsEndingTheTransferEndsInErrorKeepingThePart(giveUp: DownloadLifecycle.Event) async throws {
        let policy = FileTransfer.RetryPolicy(giveUpAfter: .seconds(3600), baseDelay: .milliseconds(5), maxDelay: .milliseconds(50))
        try await EngineHarness.run(limit: 1, retryPolicy: policy, giveUp: giveUp) { h in
            h.server.serve(path: "/ep.mp3", generatedSize: 2_000_000, contentType: "audio/mpeg", etag: "\"v1\"")
            h.server.endBodies(path: "/ep.mp3", atByte: 1_000_000)
            try await h.engine.enqueue([h.request("/ep.mp3", title: "Ep")])
            await h.engine.waitUntilIdle()
            let record = try await h.record("/ep.mp3")
            #expect(record.state == .error)
            #expect(record.failure?.reason == .serverKeepsEnding(at: 1_000_000, of: 2_000_000))
            #expect(record.receivedBytes == 1_000_000)
            #expect(h.partSize(URL(fileURLWithPath: record.file)) == 1_000_000)
            // Five tries in a row from byte 1,000,000 brought nothing new (before them, one or more
            // answers brought the first half).
            #expect(FileTransferTests.fruitlessTail(h.server.requests(for: "/ep.mp3").map(\.range), at: 1_000_000) == 5)
        }
    }

    @Test func aStalledTransferShowsNoSpeedInTheLibrary() async throws {
        try await EngineHarness.run(limit: 1) { h in
            h.server.serve(
                path: "/ep.mp3", generatedSize: 800_000, contentType: "audio/mpeg",
                faults: [.stall(afterBytes: 400_000, seconds: 4.5)], bytesPerSecond: 400_000)
            try await h.engine.enqueue([h.request("/ep.mp3", title: "Ep")])
            try await waitUntil { try await h.record("/ep.mp3").currentBytesPerSecond() != nil }
            try await waitUntil { try await h.record("/ep.mp3").isStalled() }
            let stalled = try await h.record("/ep.mp3")
            #expect(stalled.state == .downloading)
            #expect(stalled.currentBytesPerSecond() == nil)
            #expect(stalled.secondsLeft() == nil)
            await h.engine.waitUntilIdle()
            #expect(try await h.record("/ep.mp3").state == .completed)
        }
    }
}
