import Foundation
import Synchronization
import TestSupport

@testable import SinglecastKit

/// A folder for one test: a wrapper that runs the real mpv without sound (as
/// `SINGLECAST_PLAYER` would name it), audio written by the test, and `XDG_RUNTIME_DIR` for
/// mpv's socket.
struct PlayerFixture {
    let folder: URL
    let wrapper: PlayerExecutable
    var environment: [String: String]

    init() throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("sc-player-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("run"), withIntermediateDirectories: true)
        wrapper = try Self.script(in: folder, named: "mpv-null", body: "exec mpv --ao=null \"$@\"\n")
        environment = [
            "PATH": "/usr/bin:/bin", "HOME": folder.path, "XDG_RUNTIME_DIR": folder.appendingPathComponent("run").path,
            PlayerExecutable.variable: wrapper.path,
        ]
    }

    /// An executable shell script.
    static func script(in folder: URL, named name: String, body: String) throws -> PlayerExecutable {
        let path = folder.appendingPathComponent(name).path
        try TestAudio.writeScript(at: path, body: body)
        return PlayerExecutable(path: path)
    }

    func player(output: MpvPlayer.TerminalOutput = .discard) -> MpvPlayer {
        MpvPlayer(executable: wrapper, libraryDirectory: folder, terminalOutput: output, environment: environment)
    }

    /// Writes `seconds` of a 440 Hz tone as a WAV file (8 kHz, 16-bit, mono); returns its path.
    func wav(seconds: Double, name: String = "tone.wav") throws -> String {
        let path = folder.appendingPathComponent(name).path
        try TestAudio.wavData(seconds: seconds).write(to: URL(fileURLWithPath: path))
        return path
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Records a session's events as they come, and waits for the ones a test expects.
final class EventRecorder: Sendable {
    private struct State {
        var events: [PlayerEvent] = []
        var nextTicket = 0
        var waiters: [Int: (matches: @Sendable (PlayerEvent) -> Bool, continuation: CheckedContinuation<PlayerEvent?, Never>)] = [:]
    }

    private let state = Mutex(State())
    let session: any PlaybackSession

    init(_ session: any PlaybackSession) {
        self.session = session
        Task { [self] in
            for await event in session.events { record(event) }
        }
    }

    private func record(_ event: PlayerEvent) {
        let woken = state.withLock { state -> [CheckedContinuation<PlayerEvent?, Never>] in
            state.events.append(event)
            let matching = state.waiters.filter { $0.value.matches(event) }
            for key in matching.keys { state.waiters[key] = nil }
            return matching.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: event) }
    }

    var events: [PlayerEvent] { state.withLock { $0.events } }

    /// The first event so far, or to come within `timeout`, that `matches`.
    func first(
        timeout: Duration = .seconds(30), where matches: @escaping @Sendable (PlayerEvent) -> Bool
    ) async -> PlayerEvent? {
        await withCheckedContinuation { continuation in
            let ticket = state.withLock { state -> Int? in
                if let event = state.events.first(where: matches) {
                    continuation.resume(returning: event)
                    return nil
                }
                state.nextTicket += 1
                state.waiters[state.nextTicket] = (matches, continuation)
                return state.nextTicket
            }
            guard let ticket else { return }
            Task {
                try? await Task.sleep(for: timeout)
                self.state.withLock { $0.waiters.removeValue(forKey: ticket) }?.continuation.resume(returning: nil)
            }
        }
    }

    func started() async -> (position: Double, duration: Double?)? {
        guard case .started(let position, let duration) = await first(where: { if case .started = $0 { true } else { false } })
        else { return nil }
        return (position, duration)
    }

    func end() async -> PlaybackEnd? {
        guard case .ended(let end) = await first(where: { if case .ended = $0 { true } else { false } }) else { return nil }
        return end
    }
}

extension MpvSession {
    /// Asks mpv for `property` as a second IPC client, as another program (or a test) can.
    func property(_ property: String) -> MpvValue? {
        MpvClient.ask(socketPath, ["get_property", property])
    }
}

/// A second client of mpv's socket, with blocking reads of at most 10 seconds each.
enum MpvClient {
    /// Sends one command and returns the `data` of its reply.
    static func ask(_ socket: String, _ command: [String]) -> MpvValue? {
        guard let descriptor = UnixSocket.connect(socket) else { return nil }
        defer { close(descriptor) }
        let line = MpvMessage.commandLine(command.map { .string($0) }, requestID: 4242)
        guard line.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == line.count else { return nil }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let message = MpvMessage(line: pending[..<newline])
                pending.removeSubrange(...newline)
                if case .reply(4242, _, let data) = message { return data }
            }
        }
    }

    /// Sends one command without waiting for its reply.
    static func send(_ socket: String, _ command: [String]) -> Bool {
        guard let descriptor = UnixSocket.connect(socket) else { return false }
        defer { close(descriptor) }
        let line = MpvMessage.commandLine(command.map { .string($0) }, requestID: nil)
        return line.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == line.count
    }
}
