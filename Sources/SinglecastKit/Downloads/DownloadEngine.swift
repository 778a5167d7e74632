import Foundation
import Synchronization

/// Runs episode downloads: an ordered queue, at most a given number at once, each one
/// owned through the progress buffer, resumable, and individually pausable or cancellable.
///
/// The engine is an actor because the queue, the running transfers and the limit are
/// shared by the transfers, the caller and (in the daemon) control requests that arrive at
/// any time. Each running transfer is a task of its own so that one can be paused or
/// cancelled without touching the others; ``stopAll()`` cancels them all.
public actor DownloadEngine {
    private struct Job {
        var record: DownloadRecord
        var request: DownloadRequest
    }

    public nonisolated let buffer: ProgressBuffer
    private nonisolated let transfer: FileTransfer
    private nonisolated let processID: Int32
    private nonisolated let emit: @Sendable (DownloadEvent) -> Void
    private var maximumConcurrentDownloads: Int
    private var queue: [Job] = []
    private var running: [Int64: Task<Void, Never>] = [:]
    /// Why a running transfer was asked to stop, when it was.
    private var stopReasons: [Int64: DownloadState] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// - Parameters:
    ///   - maximumConcurrentDownloads: how many transfers run at once; the rest wait in order.
    ///   - events: called for every ``DownloadEvent``, from any task.
    public init(
        buffer: ProgressBuffer, transfer: FileTransfer, maximumConcurrentDownloads: Int = 3,
        processID: Int32 = getpid(), events: @escaping @Sendable (DownloadEvent) -> Void
    ) {
        self.buffer = buffer
        self.transfer = transfer
        self.maximumConcurrentDownloads = max(1, maximumConcurrentDownloads)
        self.processID = processID
        self.emit = events
    }

    /// Claims each request in the progress buffer and queues the ones this process now owns.
    /// Complete files and downloads owned by another process are reported and skipped.
    /// `background` marks the downloads as the daemon's, to resume when it restarts.
    @discardableResult
    public func enqueue(_ requests: [DownloadRequest], background: Bool = false) throws -> [DownloadClaim] {
        var claims: [DownloadClaim] = []
        for request in requests {
            let claim = try buffer.claim(request, processID: processID, background: background)
            claims.append(claim)
            switch claim {
            case .alreadyDownloaded(let record):
                emit(.alreadyDownloaded(record))
            case .ownedElsewhere(let record):
                emit(.ownedElsewhere(record))
            case .claimed(let record):
                guard let id = record.id, running[id] == nil, !queue.contains(where: { $0.record.id == id }) else {
                    continue
                }
                queue.append(Job(record: record, request: request))
                emit(.queued(record))
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

    /// Stops one download: `.paused` keeps its partial file, `.cancelled` removes it.
    /// Returns false when this engine does not hold the download.
    @discardableResult
    public func stop(id: Int64, as state: DownloadState) throws -> Bool {
        if let index = queue.firstIndex(where: { $0.record.id == id }) {
            let job = queue.remove(at: index)
            try finishStopped(job.record, as: state)
            signalIdleIfDone()
            return true
        }
        guard let task = running[id] else { return false }
        stopReasons[id] = state
        task.cancel()
        return true
    }

    /// Stops everything (Ctrl-C): queued and running downloads become interrupted, partial
    /// files kept. Returns when every transfer has stopped and been recorded.
    public func stopAll() async {
        for job in queue {
            try? finishStopped(job.record, as: .interrupted)
        }
        queue.removeAll()
        for task in running.values { task.cancel() }
        await waitUntilIdle()
    }

    // MARK: - Scheduling

    private func startWaitingJobs() {
        while running.count < maximumConcurrentDownloads, !queue.isEmpty {
            let job = queue.removeFirst()
            let id = job.record.id!
            running[id] = Task { await self.run(job) }
        }
        signalIdleIfDone()
    }

    private func finished(_ id: Int64) -> DownloadState? {
        running[id] = nil
        let reason = stopReasons.removeValue(forKey: id)
        startWaitingJobs()
        return reason
    }

    /// Why a running transfer was asked to stop, if it was (``finished(_:)`` forgets it).
    private func stopReason(for id: Int64) -> DownloadState? {
        stopReasons[id]
    }

    private func signalIdleIfDone() {
        guard queue.isEmpty, running.isEmpty else { return }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - One transfer

    private nonisolated func run(_ job: Job) async {
        var record = job.record
        let id = record.id!
        let destination = URL(fileURLWithPath: record.file)
        let library = buffer.library
        record.state = .downloading
        record.receivedBytes = ProgressBuffer.size(ofFile: FileTransfer.partURL(for: destination).path) ?? 0
        _ = try? library.recordProgress(id: id, receivedBytes: record.receivedBytes, expectedBytes: record.expectedBytes)
        emit(.started(record))

        let throttle = Mutex(ProgressThrottle())
        let emit = self.emit
        do {
            guard let url = job.request.enclosure.location else { throw DownloadError.notAURL(job.request.enclosure.url) }
            let final = try await transfer.download(url, to: destination, announcedType: job.request.enclosure.type) {
                progress in
                let (report, save, speed) = throttle.withLock { $0.due(at: .now, receivedBytes: progress.receivedBytes) }
                if report {
                    emit(.progress(id: id, receivedBytes: progress.receivedBytes, totalBytes: progress.totalBytes))
                }
                if save, (try? library.recordProgress(
                    id: id, receivedBytes: progress.receivedBytes, expectedBytes: progress.totalBytes, bytesPerSecond: speed)) == false
                {
                    // Paused or cancelled from another process: stop this transfer.
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            let size = ProgressBuffer.size(ofFile: final.path) ?? 0
            record.file = final.path
            record.receivedBytes = size
            record.expectedBytes = size
            record.state = .completed
            try? library.recordState(id: id, .completed, receivedBytes: size, expectedBytes: size, file: final.path)
            emit(.completed(record))
            _ = await finished(id)
        } catch {
            // Recorded and reported before the slot is freed, so that the next download starts
            // (and waitUntilIdle()/stopAll() return) only once this one's outcome is saved.
            let requested = await stopReason(for: id)
            if Task.isCancelled || error is CancellationError {
                let externalState = (try? library.download(id: id))?.state
                let state = requested ?? ([.paused, .cancelled].contains(externalState) ? externalState! : .interrupted)
                try? finishStopped(record, as: state)
            } else {
                let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
                record.state = .error
                record.message = message
                record.receivedBytes = ProgressBuffer.size(ofFile: FileTransfer.partURL(for: destination).path) ?? 0
                try? library.recordState(id: id, .error, receivedBytes: record.receivedBytes, message: message)
                emit(.failed(record, message: message))
            }
            _ = await finished(id)
        }
    }

    /// Records a download stopped before completion; `.cancelled` also removes its partial file.
    private nonisolated func finishStopped(_ record: DownloadRecord, as state: DownloadState) throws {
        var record = record
        let destination = URL(fileURLWithPath: record.file)
        if state == .cancelled {
            ProgressBuffer.removePartialFiles(for: destination)
        }
        record.state = state
        record.ownerPID = nil
        record.receivedBytes = ProgressBuffer.size(ofFile: FileTransfer.partURL(for: destination).path) ?? 0
        try buffer.library.recordState(id: record.id!, state, receivedBytes: record.receivedBytes)
        emit(.stopped(record))
    }
}

/// Decides when a chunk's progress is worth reporting (about ten times a second) and
/// saving to the database (at most twice a second), and measures the speed between saves.
struct ProgressThrottle {
    private var lastReport = ContinuousClock.Instant.now - .seconds(1)
    private var lastSave = ContinuousClock.Instant.now
    private var bytesAtLastSave: Int64?

    mutating func due(at now: ContinuousClock.Instant, receivedBytes: Int64) -> (report: Bool, save: Bool, bytesPerSecond: Double?) {
        let report = now - lastReport >= .milliseconds(100)
        let elapsed = now - lastSave
        let save = elapsed >= .milliseconds(500)
        if report { lastReport = now }
        guard save else {
            if bytesAtLastSave == nil { bytesAtLastSave = receivedBytes }
            return (report, false, nil)
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let speed = bytesAtLastSave.map { Double(receivedBytes - $0) / seconds }
        lastSave = now
        bytesAtLastSave = receivedBytes
        return (report, true, speed)
    }
}
