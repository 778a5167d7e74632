import Foundation
import Testing

/// A D-Bus session bus of the test's own (`dbus-daemon --session`), for the desktop's side of
/// MPRIS: only the child processes given ``address`` (as `DBUS_SESSION_BUS_ADDRESS`) see it.
public struct DBusSession: Sendable {
    /// The bus's address.
    public let address: String
    private let daemon: pid_t
    private let folder: URL

    /// Starts a session bus listening on a socket in a folder of its own, once it listens.
    public static func start() async throws -> DBusSession {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let socket = folder.appendingPathComponent("bus").path
        // In the foreground: a daemon that forks keeps the descriptors Foundation watches its child by.
        let process = try Self.start(["dbus-daemon", "--session", "--nofork", "--address=unix:path=\(socket)"], environment: [:])
        let session = DBusSession(address: "unix:path=\(socket)", daemon: process.processIdentifier, folder: folder)
        do {
            try await waitUntil { FileManager.default.fileExists(atPath: socket) || !process.isRunning }
            try #require(process.isRunning, "dbus-daemon did not start")
        } catch {
            session.stop()
            throw error
        }
        return session
    }

    /// Runs `playerctl ARGUMENTS` on this bus; its standard output and status.
    public func playerctl(_ arguments: [String]) async throws -> (output: String, status: Int32) {
        let output = Pipe()
        let process = try Self.start(["playerctl"] + arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": address], output: output)
        // Waited for as `CLI` waits: polling, bounded.
        let deadline = ContinuousClock.now + .seconds(15)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                Issue.record("playerctl \(arguments) did not end")
                throw DBusSessionError.timedOut
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return (String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), process.terminationStatus)
    }

    /// Stops the bus (SIGKILL: the daemon inherits the test process's blocked SIGTERM).
    public func stop() {
        kill(daemon, SIGKILL)
        try? FileManager.default.removeItem(at: folder)
    }

    private static func start(_ arguments: [String], environment: [String: String], output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}

public enum DBusSessionError: Error {
    case timedOut
}
