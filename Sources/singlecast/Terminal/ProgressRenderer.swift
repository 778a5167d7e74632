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
        var rate = TransferRate<ContinuousClock.Instant>()
        var lastReportedTenth: Int
        /// While waiting for the network: the download as the engine reported it.
        var retrying: SinglecastKit.Download?
    }

    private struct State {
        var active: [Int64: Active] = [:]
        var order: [Int64] = []
        var finishedBytes: Int64 = 0
        var failures = 0
        var gaveUp = 0
        var linesOnScreen = 0
        var lastDraw = ContinuousClock.Instant.now - .seconds(1)
        /// Text produced under the lock, written by ``flush(_:)`` outside it.
        var pending: [(String, descriptor: Int32)] = []
    }

    private let mode: Mode
    private let state = Mutex(State())

    init(mode: Mode) {
        self.mode = mode
    }

    /// How many downloads failed.
    var failureCount: Int { state.withLock { $0.failures } }
    /// How many downloads stopped because the network did not come back in time.
    var gaveUpCount: Int { state.withLock { $0.gaveUp } }

    /// Takes one event from the engine.
    func handle(_ event: DownloadEvent) {
        if mode == .json {
            JSONEventLine.write(event)
            state.withLock { state in
                switch event {
                case .failed: state.failures += 1
                case .stopped(let record) where Self.gaveUp(record): state.gaveUp += 1
                default: break
                }
            }
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
                // A start after a wait for the network keeps its line.
                if !state.order.contains(id) { state.order.append(id) }
                let resumed = record.receivedBytes > 0 ? " (resuming at \(Format.bytes(record.receivedBytes)))" : ""
                say("downloading: \(record.episodeTitle)\(resumed)", in: &state)
            case .progress(let id, let received, let total):
                guard var active = state.active[id] else { return }
                active.retrying = nil
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
            case .retrying(let record):
                state.active[record.id]?.retrying = record
                state.active[record.id]?.received = record.receivedBytes
                if mode == .lines {
                    say("waiting for network: \(record.episodeTitle) (\(Words.retrying(record)))", in: &state)
                } else {
                    redraw(&state)
                }
            case .failed(let record):
                finish(record.id, in: &state)
                state.failures += 1
                say("error: \(record.episodeTitle): \(record.failure.map(Words.failure) ?? "failed")", in: &state, toError: true)
            case .stopped(let record):
                finish(record.id, in: &state)
                if Self.gaveUp(record) { state.gaveUp += 1 }
                say(Words.stopped(record), in: &state, toError: Self.gaveUp(record))
            case .deletedByRetention(let record):
                say("deleted (keeping the newest): \(record.file)", in: &state)
            case .extras(let record, let files):
                for file in files { say(Words.extraOutcome(file, of: record), in: &state, toError: !file.isSaved) }
            }
            flush(&state)
        }
    }

    /// Redraws the live lines, so that a stall or a countdown shows without new events.
    func tick() {
        guard mode == .live else { return }
        state.withLock { state in
            guard !state.order.isEmpty else { return }
            redraw(&state)
            flush(&state)
        }
    }

    /// Whether a stopped download stopped because the network did not come back in time.
    private static func gaveUp(_ record: SinglecastKit.Download) -> Bool {
        record.state == .interrupted && record.failure != nil
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
        let line = TerminalText.sanitized(line, keepingLineBreaks: true) + "\n"
        if toError {
            state.pending.append((line, STDERR_FILENO))
        } else {
            write(line, in: &state)
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
        let now = ContinuousClock.now
        var lines = state.order.compactMap { state.active[$0] }.map { Self.fit(Self.describe($0, at: now), width) }
        lines.append(Self.fit(Self.totalLine(state, at: now), width))
        write(lines.joined(separator: "\n") + "\n", in: &state)
        state.linesOnScreen = lines.count
        state.lastDraw = .now
    }

    private func write(_ text: String, in state: inout State) {
        state.pending.append((text, STDOUT_FILENO))
    }

    /// Hands what the event produced to the output queue, which writes it in order: a slow
    /// terminal or pipe never holds the lock, nor the task that reported the event.
    private func flush(_ state: inout State) {
        guard !state.pending.isEmpty else { return }
        let pending = state.pending
        state.pending.removeAll()
        Self.output.async {
            for (text, descriptor) in pending { StandardStreams.write(text, to: descriptor) }
        }
    }

    private static let output = DispatchQueue(label: "singlecast.output")

    // MARK: - Text

    /// `Title  42%  12.3 MB of 30.1 MB  4.2 MB/s  0:04 left`, with `stalled` instead of the
    /// speed when nothing arrived for a few seconds, or `waiting for network (retrying in 40 s: …)`.
    private static func describe(_ active: Active, at now: ContinuousClock.Instant = .now) -> String {
        var parts = [TerminalText.truncated(active.title, toWidth: 40)]
        if let total = active.total, total > 0 {
            parts.append("\(Int(Double(active.received) / Double(total) * 100))%")
            parts.append("\(Format.bytes(active.received)) of \(Format.bytes(total))")
        } else {
            parts.append(Format.bytes(active.received))
        }
        if let retrying = active.retrying {
            parts.append("waiting for network (\(Words.retrying(retrying)))")
        } else if active.rate.isStalled(at: now) {
            parts.append("stalled")
        } else {
            let speed = active.rate.bytesPerSecond(at: now)
            parts.append("\(Format.bytes(Int64(speed)))/s")
            if let total = active.total, speed > 0 {
                parts.append("\(Format.duration(seconds: Int(Double(total - active.received) / speed))) left")
            }
        }
        return parts.joined(separator: "  ")
    }

    /// The speed of a line that is transferring (not waiting, not stalled).
    private static func speed(_ active: Active, at now: ContinuousClock.Instant) -> Double {
        active.retrying == nil ? active.rate.bytesPerSecond(at: now) : 0
    }

    private static func totalLine(_ state: State, at now: ContinuousClock.Instant) -> String {
        let actives = state.order.compactMap { state.active[$0] }
        let received = actives.reduce(0) { $0 + $1.received }
        let total = actives.reduce(0) { $0 + ($1.total ?? $1.received) }
        let speed = actives.reduce(0) { $0 + Self.speed($1, at: now) }
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
