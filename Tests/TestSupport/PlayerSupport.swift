import Foundation
import Testing

/// Audio that tests make themselves: a 440 Hz tone as 16-bit mono WAV at 8 kHz.
public enum TestAudio {
    public static func wavData(seconds: Double) -> Data {
        let rate = 8000
        let samples = Int(seconds * Double(rate))
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + samples * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(1))  // mono
        append(UInt32(rate))
        append(UInt32(rate * 2))
        append(UInt16(2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(samples * 2))
        for index in 0..<samples {
            append(Int16(sin(Double(index) * 2 * .pi * 440 / Double(rate)) * 8000))
        }
        return data
    }

    /// A player program for tests: mpv without sound output, as `SINGLECAST_PLAYER` names it.
    public static func silentPlayer(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("silent-mpv").path
        try writeScript(at: path, body: "exec mpv --ao=null \"$@\"\n")
        return path
    }

    /// Writes an executable shell script. It is written through a descriptor closed on exec: one
    /// inherited by a program that a test running beside this one starts meanwhile would keep
    /// the script busy (ETXTBSY) for as long as that program runs.
    public static func writeScript(at path: String, body: String) throws {
        let script = Array(("#!/bin/sh\n" + body).utf8)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        fchmod(descriptor, 0o755)
        let written = script.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == script.count else { throw POSIXError(.EIO) }
    }
}

/// A second client of mpv's JSON IPC socket, as a user's keys or another program would be.
public enum MpvTestClient {
    /// Sends one command and returns the `data` of its reply (nil on an error reply or no answer).
    public static func ask(_ socket: String, _ command: [Any]) -> Any? {
        guard let descriptor = UnixSocket.connect(socket) else { return nil }
        defer { close(descriptor) }
        guard send(descriptor, command, requestID: 7) else { return nil }
        var pending = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                    object["request_id"] as? Int == 7
                else { continue }
                return object["error"] as? String == "success" ? object["data"] ?? NSNull() : nil
            }
        }
    }

    private static func send(_ descriptor: Int32, _ command: [Any], requestID: Int) -> Bool {
        guard var line = try? JSONSerialization.data(withJSONObject: ["command": command, "request_id": requestID]) else {
            return false
        }
        line.append(0x0A)
        return line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == line.count
    }
}

/// Processes seen from the outside, through `/proc`.
public enum TestProcess {
    /// Whether process `pid` is gone (or a zombie: it runs no more).
    public static func isGone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "Z" || state == "X"
    }

    /// Waits (``waitUntil(timeout:sourceLocation:_:)``, `timeout` only bounding the wait) until
    /// `pid` is gone; true when it went.
    public static func waitUntilGone(
        _ pid: pid_t, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        (try? await waitUntil(timeout: timeout, sourceLocation: sourceLocation) { isGone(pid) }) != nil
    }

    /// `/proc/PID/cmdline` or `/proc/PID/environ` as text, NULs as spaces.
    public static func procText(_ pid: pid_t, _ file: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(file)"))
        return String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    /// The children of `pid` (from every thread's list).
    public static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [pid_t] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t($0) }
        }
    }
}
