import Foundation
import Synchronization

/// Runs episode downloads: an ordered queue, at most a given number at once, each one
/// owned through the progress buffer, resumable, and individually pausable or cancellable.
///
/// The engine is an actor because the queue, the running transfers and the limit are
/// shared by the transfers, the caller and (in the daemon) control requests that arrive at
/// any time. Each running transfer is a task of its own so that one can be paused or
/// cancelled without touching the others; ``stopAll()`` cancels them all.
///
/// Events arrive through the closure given to the initializer and through ``events``.
public actor DownloadEngine {
    private struct Job {
        var download: Download
        var request: DownloadRequest
        /// The file is complete: only its missing extras are fetched.
        var extrasOnly = false
    }

    public nonisolated let buffer: ProgressBuffer
    /// Every event, in order, for one consumer; it ends when ``finishEvents()`` is called.
    public nonisolated let events: AsyncStream<DownloadEvent>
    private nonisolated let eventContinuation: AsyncStream<DownloadEvent>.Continuation
    private nonisolated let transfer: FileTransfer
    private nonisolated let extras: ExtrasFetcher
    private nonisolated let owner: DownloadOwner
    private nonisolated let giveUp: DownloadLifecycle.Event
    private nonisolated let handler: @Sendable (DownloadEvent) -> Void
    private var maximumConcurrentDownloads: Int

    /// How many downloads may run at once, the one limit of `--jobs` and the daemon.
    public static let allowedConcurrentDownloads = 1...32
    /// How many downloads run at once when nothing says otherwise.
    public static let defaultConcurrentDownloads = 3
    private var queue: [Job] = []
    private var running: [Int64: Task<Void, Never>] = [:]
    /// The host each running transfer downloads from.
    private var hosts: [Int64: String] = [:]
    /// Why a running transfer was asked to stop, when it was.
    private var stopReasons: [Int64: DownloadLifecycle.Event] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// - Parameters:
    ///   - maximumConcurrentDownloads: how many transfers run at once; the rest wait in order.
    ///   - giveUp: what a transfer that stopped waiting for the network becomes: `.fail` (the
    ///     error state, the daemon's choice) or `.interrupt` (resumable, a foreground run's).
    ///   - events: called for every ``DownloadEvent``, from any task.
    public init(
        buffer: ProgressBuffer, transfer: FileTransfer, maximumConcurrentDownloads: Int = defaultConcurrentDownloads,
        owner: DownloadOwner = .current, giveUp: DownloadLifecycle.Event = .fail,
        events: @escaping @Sendable (DownloadEvent) -> Void = { _ in }
    ) {
        self.buffer = buffer
        self.transfer = transfer
        self.extras = ExtrasFetcher(session: transfer.session, buffer: buffer)
        self.maximumConcurrentDownloads = max(1, maximumConcurrentDownloads)
        self.owner = owner
        self.giveUp = giveUp
        self.handler = events
        (self.events, self.eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(10_000))
    }

    /// Ends ``events`` (call it once the engine's work is done).
    public nonisolated func finishEvents() {
        eventContinuation.finish()
    }

    private nonisolated func emit(_ event: DownloadEvent) {
        handler(event)
        eventContinuation.yield(event)
    }

    /// Claims each request in the progress buffer and queues the ones this process now owns.
    /// Complete files and downloads owned by another process are reported and skipped.
    /// `background` marks the downloads as the daemon's, to resume when it restarts.
    @discardableResult
    public func enqueue(_ requests: [DownloadRequest], background: Bool = false) async throws -> [DownloadClaim] {
        var claims: [DownloadClaim] = []
        for request in requests {
            let claim = try await buffer.claim(request, owner: owner, background: background)
            claims.append(claim)
            switch claim {
            case .alreadyDownloaded(let download):
                emit(.alreadyDownloaded(download))
                if await extras.isWanted(request), running[download.id] == nil,
                    !queue.contains(where: { $0.download.id == download.id })
                {
                    queue.append(Job(download: download, request: request, extrasOnly: true))
                }
            case .ownedElsewhere(let download):
                emit(.ownedElsewhere(download))
            case .claimed(let download):
                if let host = hosts[download.id] {
                    // Running already, perhaps waiting for the network: try at once.
                    transfer.outages.tryNow(host: host)
                    continue
                }
                guard running[download.id] == nil, !queue.contains(where: { $0.download.id == download.id }) else {
                    continue
                }
                queue.append(Job(download: download, request: request))
                emit(.queued(download))
            }
        }
        startWaitingJobs()
        return claims
    }

    /// Whether nothing is queued or running.
    public var isIdle: Bool { queue.isEmpty && running.isEmpty }

    /// Changes how many transfers run at once; takes effect as slots free up.
    public func setMaximumConcurrentDownloads(_ count: Int) {
        maximumConcurrentDownloads = max(1, count)
        startWaitingJobs()
    }

    /// Returns when nothing is queued or running.
    public func waitUntilIdle() async {
        if queue.isEmpty && running.isEmpty { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Stops one download on `event` (`.pause` keeps its partial file, `.cancel` removes it)
    /// and returns once that is recorded. Returns false when this engine does not hold it.
    @discardableResult
    public func stop(id: Int64, on event: DownloadLifecycle.Event) async throws -> Bool {
        if let index = queue.firstIndex(where: { $0.download.id == id }) {
            let job = queue.remove(at: index)
            await recordStopped(job.download, on: event)
            signalIdleIfDone()
            return true
        }
        guard let task = running[id] else { return false }
        stopReasons[id] = event
        task.cancel()
        await task.value
        return true
    }

    /// Stops everything (Ctrl-C): queued and running downloads become interrupted, partial
    /// files kept. Returns when every transfer has stopped and been recorded.
    public func stopAll() async {
        let queued = queue
        queue.removeAll()
        for job in queued {
            await recordStopped(job.download, on: .interrupt)
        }
        for task in running.values { task.cancel() }
        await waitUntilIdle()
    }

    // MARK: - Scheduling

    private func startWaitingJobs() {
        while running.count < maximumConcurrentDownloads, !queue.isEmpty {
            let job = queue.removeFirst()
            hosts[job.download.id] = job.request.enclosure.location.map(HostOutages.host(of:))
            running[job.download.id] = Task { await self.run(job) }
        }
        signalIdleIfDone()
    }

    private func finished(_ id: Int64) {
        running[id] = nil
        hosts[id] = nil
        stopReasons[id] = nil
        startWaitingJobs()
    }

    /// Why a running transfer was asked to stop, if it was.
    private func stopReason(for id: Int64) -> DownloadLifecycle.Event? {
        stopReasons[id]
    }

    /// Cancels a running transfer that another process paused or cancelled.
    private func cancelTransfer(_ id: Int64) {
        running[id]?.cancel()
    }

    private func signalIdleIfDone() {
        guard queue.isEmpty, running.isEmpty else { return }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - One transfer

    private nonisolated func run(_ job: Job) async {
        guard !job.extrasOnly else {
            await fetchExtras(job)
            await finished(job.download.id)
            return
        }
        var download = job.download
        let id = download.id
        let destination = URL(fileURLWithPath: download.file)
        DownloadLifecycle.apply(.transfer, to: &download)
        download.receivedBytes = fileSize(atPath: EpisodesFolder.partialFile(for: destination).path) ?? 0
        _ = try? await buffer.recordTransfer(
            id: id, receivedBytes: download.receivedBytes, expectedBytes: download.expectedBytes, bytesPerSecond: nil)
        emit(.started(download))
        let started = download

        let saver = ProgressSaver(buffer: buffer) { [weak self] in await self?.cancelTransfer(id) }
        let clock = transfer.clock
        let throttle = Mutex(ProgressThrottle(now: clock.now))
        let outcome: Result<URL, any Error>
        do {
            guard let url = job.request.enclosure.location else { throw DownloadError.notAURL(job.request.enclosure.url) }
            let final = try await transfer.download(
                url, to: destination, announcedType: job.request.enclosure.type,
                progress: { progress in
                    let (report, save, speed, resumed) = throttle.withLock {
                        $0.due(at: clock.now, receivedBytes: progress.receivedBytes)
                    }
                    if resumed {
                        var again = started
                        DownloadLifecycle.apply(.transfer, to: &again)
                        again.receivedBytes = progress.receivedBytes
                        again.expectedBytes = progress.totalBytes ?? started.expectedBytes
                        self.emit(.started(again))
                    }
                    if report {
                        self.emit(.progress(id: id, receivedBytes: progress.receivedBytes, totalBytes: progress.totalBytes))
                    }
                    if save { saver.offer(id: id, progress, bytesPerSecond: speed) }
                },
                waiting: { wait in
                    throttle.withLock { $0.waitForRetry() }
                    await saver.drain()
                    let recorded = try? await self.buffer.recordRetryWait(id: id, wait)
                    if recorded == false {
                        // Paused or cancelled elsewhere meanwhile.
                        await self.cancelTransfer(id)
                        return
                    }
                    var waiting = started
                    DownloadLifecycle.apply(.retryLater, to: &waiting)
                    waiting.receivedBytes = wait.receivedBytes
                    waiting.retryReason = wait.reason
                    waiting.nextTryAt = wait.nextTry
                    self.emit(.retrying(waiting))
                })
            outcome = .success(final)
        } catch {
            outcome = .failure(error)
        }
        let cancelled = Task.isCancelled
        // Recorded and reported before the slot is freed, so that the next download starts
        // (and waitUntilIdle()/stopAll() return) only once this one's outcome is saved. A task
        // of its own: the database refuses work from a cancelled one.
        await Task {
            await saver.drain()
            await self.settle(download, outcome, cancelled: cancelled)
        }.value
        if case .success = outcome, !cancelled, await extras.isWanted(job.request) { await fetchExtras(job) }
        await finished(id)
    }

    /// Fetches the missing transcripts and chapters of a completed download and reports them.
    private nonisolated func fetchExtras(_ job: Job) async {
        if let (download, files) = await extras.fetchMissing(downloadID: job.download.id, request: job.request) {
            emit(.extras(download, files))
        }
    }

    /// Records and reports how a transfer ended.
    private nonisolated func settle(_ download: Download, _ outcome: Result<URL, any Error>, cancelled: Bool) async {
        let id = download.id
        let destination = URL(fileURLWithPath: download.file)
        switch outcome {
        case .success(let final):
            let size = fileSize(atPath: final.path) ?? 0
            guard let completed = try? await buffer.recordCompleted(id: id, file: final.path, size: size) else { return }
            emit(.completed(completed))
            for removed in (try? await buffer.applyRetention(after: completed)) ?? [] {
                emit(.deletedByRetention(removed))
            }
        case .failure(let error) where cancelled || error is CancellationError:
            let stored = try? await buffer.library.download(id: id)
            if let requested = await stopReason(for: id) {
                await recordStopped(download, on: requested)
            } else if let stored, !DownloadLifecycle.isUnderWay(stored.state) {
                // Paused or cancelled by another process, which recorded it; what arrived
                // since then is counted (or, for a cancel, removed) now.
                if stored.state == .cancelled { ProgressBuffer.removePartialFiles(for: destination) }
                emit(.stopped((try? await buffer.recordPartSize(id: id)) ?? stored))
            } else {
                await recordStopped(download, on: .interrupt)
            }
        case .failure(let error as DownloadError) where error.gaveUpAfter != nil && giveUp == .interrupt:
            if case .success(let stopped)? = try? await buffer.recordStopped(id: id, on: .interrupt, failure: error) {
                emit(.stopped(stopped))
            }
        case .failure(let error):
            let failure = error as? DownloadError
                ?? DownloadError.stored(
                    .unexpected(describing(error)), url: download.enclosureURL)
            if let failed = try? await buffer.recordFailed(id: id, failure: failure) {
                emit(.failed(failed))
            }
        }
    }

    /// Records a download stopped before completion and reports it.
    private nonisolated func recordStopped(_ download: Download, on event: DownloadLifecycle.Event) async {
        if case .success(let stopped)? = try? await buffer.recordStopped(id: download.id, on: event) {
            emit(.stopped(stopped))
        }
    }
}

/// Saves a transfer's progress without ever making the transfer wait for the database: at most
/// one save is under way, and the latest progress offered meanwhile is saved next. When a save
/// finds the download no longer under way (paused or cancelled elsewhere), `stopTransfer` runs.
final class ProgressSaver: Sendable {
    private struct Pending {
        var id: Int64
        var progress: FileTransfer.Progress
        var bytesPerSecond: Double?
    }

    private struct State {
        var pending: Pending?
        var saving: Task<Void, Never>?
    }

    private let buffer: ProgressBuffer
    private let stopTransfer: @Sendable () async -> Void
    private let state = Mutex(State())

    init(buffer: ProgressBuffer, stopTransfer: @escaping @Sendable () async -> Void) {
        self.buffer = buffer
        self.stopTransfer = stopTransfer
    }

    func offer(id: Int64, _ progress: FileTransfer.Progress, bytesPerSecond: Double?) {
        state.withLock { state in
            state.pending = Pending(id: id, progress: progress, bytesPerSecond: bytesPerSecond)
            if state.saving == nil {
                state.saving = Task { await self.saveWhilePending() }
            }
        }
    }

    /// Returns once no save is under way.
    func drain() async {
        while let saving = state.withLock({ $0.saving }) {
            await saving.value
        }
    }

    private func saveWhilePending() async {
        while let next = state.withLock({ state -> Pending? in
            defer { state.pending = nil }
            if state.pending == nil { state.saving = nil }
            return state.pending
        }) {
            let underWay = try? await buffer.recordTransfer(
                id: next.id, receivedBytes: next.progress.receivedBytes, expectedBytes: next.progress.totalBytes,
                bytesPerSecond: next.bytesPerSecond)
            if underWay == false { await stopTransfer() }
        }
    }
}

/// Decides when a chunk's progress is worth reporting (about ten times a second) and
/// saving to the database (at most twice a second), and measures the speed over the last
/// few seconds. After a wait for the network, the first progress is saved at once and
/// reported as a new start, and the speed is measured afresh.
///
/// Its instants are those of the transfer's clock (see ``FileTransfer``).
struct ProgressThrottle {
    private var lastReport: ErasedClock.Instant
    private var lastSave: ErasedClock.Instant
    private var rate = TransferRate<ErasedClock.Instant>()
    private var waiting = false

    /// A throttle for a transfer starting at `now`: its first progress is reported, and saved
    /// half a second later.
    init(now: ErasedClock.Instant) {
        lastReport = now - .seconds(1)
        lastSave = now
    }

    /// The transfer waits for its next try.
    mutating func waitForRetry() {
        waiting = true
    }

    mutating func due(at now: ErasedClock.Instant, receivedBytes: Int64)
        -> (report: Bool, save: Bool, bytesPerSecond: Double?, resumed: Bool)
    {
        let resumed = waiting
        if resumed {
            waiting = false
            rate = TransferRate<ErasedClock.Instant>()
        }
        rate.add(receivedBytes, at: now)
        let report = resumed || now - lastReport >= .milliseconds(100)
        let save = resumed || now - lastSave >= .milliseconds(500)
        if report { lastReport = now }
        guard save else { return (report, false, nil, resumed) }
        lastSave = now
        let speed = rate.bytesPerSecond(at: now)
        return (report, true, speed > 0 ? speed : nil, resumed)
    }
}
