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

        /// What its line shows at `now`.
        func live(at now: ContinuousClock.Instant) -> LiveDownload {
            LiveDownload(
                title: title, received: received, total: total, speed: rate.bytesPerSecond(at: now),
                stalled: rate.isStalled(at: now), waiting: retrying.map { Words.retrying($0) })
        }
    }

    private struct State {
        var active: [Int64: Active] = [:]
        var order: [Int64] = []
        var finishedBytes: Int64 = 0
        var failures = 0
        var gaveUp = 0
        var live = LiveArea()
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
                if mode == .lines { say("queued: \(Words.episode(record))", in: &state) }
            case .started(let record):
                let id = record.id
                state.active[id] = Active(
                    title: record.episodeTitle, received: record.receivedBytes, total: record.expectedBytes,
                    lastReportedTenth: Self.tenth(record.receivedBytes, record.expectedBytes))
                state.active[id]!.rate.add(record.receivedBytes, at: .now)
                // A start after a wait for the network keeps its line.
                if !state.order.contains(id) { state.order.append(id) }
                let resumed = record.receivedBytes > 0 ? " (resuming at \(Format.bytes(record.receivedBytes)))" : ""
                say("downloading: \(Words.episode(record))\(resumed)", in: &state)
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

    /// Redraws the live lines, so that a stall or a countdown shows without new events, and at
    /// a resized terminal's width.
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
        write(state.live.clear(columns: TTY.size.columns), in: &state)
    }

    private func redraw(_ state: inout State) {
        let now = ContinuousClock.now
        let size = TTY.size
        let downloads = state.order.compactMap { state.active[$0] }.map { $0.live(at: now) }
        let lines = downloads.isEmpty ? [] : Self.liveLines(downloads, width: size.columns, utf8: TTY.isUTF8)
        write(state.live.draw(lines, columns: size.columns, rows: size.rows), in: &state)
        state.lastDraw = .now
    }

    private func write(_ text: String, in state: inout State) {
        guard !text.isEmpty else { return }
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

    /// A download as its live line shows it.
    struct LiveDownload {
        var title: String
        var received: Int64
        var total: Int64?
        /// Bytes a second over the last few seconds.
        var speed: Double
        var stalled = false
        /// While it waits for the network: why and until when (`retrying in 40 s: connection refused`).
        var waiting: String?
    }

    /// The live lines on a terminal `width` columns wide: one per download and a total line, in
    /// aligned columns (title, percent, bar, bytes, speed, time left), the titles cut to fit.
    static func liveLines(_ downloads: [LiveDownload], width: Int, utf8: Bool) -> [String] {
        // The bar gets what the terminal spares: 10 cells at 80 columns, 30 from 120, 4 below 68.
        let bar = Bar(cells: min(30, max(4, (width - 60) / 2)), utf8: utf8)
        let total = LiveDownload(
            title: "Total", received: downloads.reduce(0) { $0 + $1.received },
            total: downloads.reduce(0) { $0 + ($1.total ?? $1.received) },
            speed: downloads.reduce(0) { $0 + ($1.waiting == nil ? $1.speed : 0) })
        let table = TextTable(rightAligned: [1, 3, 4], shrinking: [0, 5], rows: (downloads + [total]).map { cells($0, bar: bar) })
        return table.render(width: width).components(separatedBy: "\n")
    }

    /// `Title  42%  12.3 MB of 30.1 MB  4.2 MB/s  0:04 left`, with `stalled` instead of the
    /// speed when nothing arrived for a few seconds: the plain line of a download when the
    /// output is not a terminal, its title whole.
    private static func describe(_ active: Active) -> String {
        cells(active.live(at: .now), bar: nil).filter { !$0.isEmpty }.joined(separator: "  ")
    }

    /// A download's line as cells: title, percent, bar (with one), bytes, speed or `stalled`,
    /// and the time left, or while it waits for the network when and why it tries again
    /// (`retrying in 40 s: connection refused`, as `downloads` says it).
    private static func cells(_ download: LiveDownload, bar: Bar?) -> [String] {
        var cells = [download.title]
        if let total = download.total, total > 0 {
            let fraction = min(1, Double(download.received) / Double(total))
            cells += ["\(Int(fraction * 100))%", bar?.text(fraction) ?? "", "\(Format.bytes(download.received)) of \(Format.bytes(total))"]
        } else {
            cells += ["", "", Format.bytes(download.received)]
        }
        if let waiting = download.waiting { return cells + ["", waiting] }
        if download.stalled { return cells + ["stalled", ""] }
        let secondsLeft = download.total.flatMap { download.speed > 0 ? Double($0 - download.received) / download.speed : nil }
        return cells + ["\(Format.bytes(Int64(download.speed)))/s", secondsLeft.map { "\(Format.duration(seconds: Int($0))) left" } ?? ""]
    }

    /// A progress bar of a fixed number of cells: `━━━━──────` on a UTF-8 terminal, `####------`
    /// otherwise.
    private struct Bar {
        var cells: Int
        var utf8: Bool

        func text(_ fraction: Double) -> String {
            let filled = Int(fraction * Double(cells))
            return String(repeating: utf8 ? "━" : "#", count: filled) + String(repeating: utf8 ? "─" : "-", count: cells - filled)
        }
    }

    private static func tenth(_ received: Int64, _ total: Int64?) -> Int {
        guard let total, total > 0 else { return 0 }
        return Int(min(10, received * 10 / total))
    }
}
