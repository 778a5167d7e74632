import Foundation
import SinglecastKit
import Synchronization

/// Shows download events: live lines redrawn on a terminal, plain lines when piped, or one
/// JSON object per event.
final class ProgressRenderer: Sendable {
    enum Mode { case live, lines, json }

    private struct Active {
        var title: String
        var received: Int64
        var total: Int64?
        var rate = TransferRate()
        var lastReportedTenth: Int
    }

    private struct State {
        var active: [Int64: Active] = [:]
        var order: [Int64] = []
        var finishedBytes: Int64 = 0
        var failures = 0
        var linesOnScreen = 0
        var lastDraw = ContinuousClock.Instant.now - .seconds(1)
        /// Text produced under the lock, written by ``flush(_:)`` outside it.
        var pending: [(String, FileHandle)] = []
    }

    private let mode: Mode
    private let state = Mutex(State())

    init(mode: Mode) {
        self.mode = mode
    }

    /// How many downloads failed.
    var failureCount: Int { state.withLock { $0.failures } }

    /// Takes one event from the engine.
    func handle(_ event: DownloadEvent) {
        if mode == .json {
            JSONEventLine.write(event)
            if case .failed = event { state.withLock { $0.failures += 1 } }
            return
        }
        state.withLock { state in
            switch event {
            case .alreadyDownloaded(let record):
                say(Words.alreadyDownloaded(record), in: &state)
            case .ownedElsewhere(let record):
                say(Words.ownedElsewhere(record), in: &state)
            case .queued(let record):
                if mode == .lines { say("queued: \(record.episodeTitle)", in: &state) }
            case .started(let record):
                let id = record.id
                state.active[id] = Active(
                    title: record.episodeTitle, received: record.receivedBytes, total: record.expectedBytes,
                    lastReportedTenth: Self.tenth(record.receivedBytes, record.expectedBytes))
                state.active[id]!.rate.add(record.receivedBytes, at: .now)
                state.order.append(id)
                let resumed = record.receivedBytes > 0 ? " (resuming at \(Format.bytes(record.receivedBytes)))" : ""
                say("downloading: \(record.episodeTitle)\(resumed)", in: &state)
            case .progress(let id, let received, let total):
                guard var active = state.active[id] else { return }
                active.received = received
                active.total = total ?? active.total
                active.rate.add(received, at: .now)
                let tenth = Self.tenth(received, active.total)
                if mode == .lines, tenth > active.lastReportedTenth {
                    active.lastReportedTenth = tenth
                    state.active[id] = active
                    say(Self.describe(active), in: &state)
                } else {
                    state.active[id] = active
                }
                if mode == .live, ContinuousClock.now - state.lastDraw >= .milliseconds(100) {
                    redraw(&state)
                }
            case .completed(let record):
                finish(record.id, in: &state)
                state.finishedBytes += record.receivedBytes
                say("done: \(record.file)", in: &state)
            case .failed(let record):
                finish(record.id, in: &state)
                state.failures += 1
                say("error: \(record.episodeTitle): \(record.failure ?? "failed")", in: &state, toError: true)
            case .stopped(let record):
                finish(record.id, in: &state)
                let kept = record.receivedBytes > 0 ? ", \(Format.bytes(record.receivedBytes)) kept" : ""
                say("\(record.state.rawValue): \(record.episodeTitle)\(kept)", in: &state)
            case .deletedByRetention(let record):
                say("deleted (keeping the newest): \(record.file)", in: &state)
            case .extras(let record, let files):
                for file in files { say(Words.extraOutcome(file, of: record), in: &state, toError: !file.isSaved) }
            }
            flush(&state)
        }
    }

    /// Clears the live lines at the end.
    func finish() {
        if mode == .live {
            state.withLock { state in
                clearLive(&state)
                flush(&state)
            }
        }
        Self.output.sync {}
    }

    // MARK: - Drawing

    private func finish(_ id: Int64, in state: inout State) {
        state.active[id] = nil
        state.order.removeAll { $0 == id }
    }

    private func say(_ line: String, in state: inout State, toError: Bool = false) {
        if mode == .live { clearLive(&state) }
        if toError {
            state.pending.append((line + "\n", FileHandle.standardError))
        } else {
            write(line + "\n", in: &state)
        }
        if mode == .live { redraw(&state) }
    }

    private func clearLive(_ state: inout State) {
        guard state.linesOnScreen > 0 else { return }
        write("\u{1B}[\(state.linesOnScreen)F\u{1B}[J", in: &state)
        state.linesOnScreen = 0
    }

    private func redraw(_ state: inout State) {
        clearLive(&state)
        guard !state.order.isEmpty else { return }
        let width = TTY.columns
        var lines = state.order.compactMap { state.active[$0] }.map { Self.fit(Self.describe($0), width) }
        lines.append(Self.fit(Self.totalLine(state), width))
        write(lines.joined(separator: "\n") + "\n", in: &state)
        state.linesOnScreen = lines.count
        state.lastDraw = .now
    }

    private func write(_ text: String, in state: inout State) {
        state.pending.append((text, FileHandle.standardOutput))
    }

    /// Hands what the event produced to the output queue, which writes it in order: a slow
    /// terminal or pipe never holds the lock, nor the task that reported the event.
    private func flush(_ state: inout State) {
        guard !state.pending.isEmpty else { return }
        let pending = state.pending
        state.pending.removeAll()
        Self.output.async {
            for (text, handle) in pending { handle.write(Data(text.utf8)) }
        }
    }

    private static let output = DispatchQueue(label: "singlecast.output")

    // MARK: - Text

    /// `Title  42%  12.3 MB of 30.1 MB  4.2 MB/s  0:04 left`
    private static func describe(_ active: Active) -> String {
        let speed = active.rate.bytesPerSecond
        var parts = [SearchTable.truncate(active.title, 40)]
        if let total = active.total, total > 0 {
            parts.append("\(Int(Double(active.received) / Double(total) * 100))%")
            parts.append("\(Format.bytes(active.received)) of \(Format.bytes(total))")
        } else {
            parts.append(Format.bytes(active.received))
        }
        parts.append("\(Format.bytes(Int64(speed)))/s")
        if let total = active.total, speed > 0 {
            parts.append("\(Format.duration(seconds: Int(Double(total - active.received) / speed))) left")
        }
        return parts.joined(separator: "  ")
    }

    private static func totalLine(_ state: State) -> String {
        let actives = state.order.compactMap { state.active[$0] }
        let received = actives.reduce(0) { $0 + $1.received }
        let total = actives.reduce(0) { $0 + ($1.total ?? $1.received) }
        let speed = actives.reduce(0) { $0 + $1.rate.bytesPerSecond }
        var parts = ["Total"]
        if total > 0 { parts.append("\(Int(Double(received) / Double(total) * 100))%") }
        parts.append("\(Format.bytes(received)) of \(Format.bytes(total))")
        parts.append("\(Format.bytes(Int64(speed)))/s")
        if speed > 0 { parts.append("\(Format.duration(seconds: Int(Double(total - received) / speed))) left") }
        return parts.joined(separator: "  ")
    }

    private static func tenth(_ received: Int64, _ total: Int64?) -> Int {
        guard let total, total > 0 else { return 0 }
        return Int(min(10, received * 10 / total))
    }

    private static func fit(_ line: String, _ width: Int) -> String {
        line.count < width ? line : String(line.prefix(max(1, width - 1)))
    }
}

/// Speed over the last few seconds, from (time, bytes) samples.
struct TransferRate {
    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []

    mutating func add(_ bytes: Int64, at time: ContinuousClock.Instant) {
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > .seconds(3), samples.count > 2 {
            samples.removeFirst()
        }
    }

    var bytesPerSecond: Double {
        guard let first = samples.first, let last = samples.last else { return 0 }
        let elapsed = last.time - first.time
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0.05 ? Double(last.bytes - first.bytes) / seconds : 0
    }
}
