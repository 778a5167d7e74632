import Foundation

/// The systemd user timer that runs `singlecast update` (`singlecast-update.timer`, installed by
/// `make install`), as `systemctl --user is-enabled` reports it.
public enum UpdateTimer {
    /// The timer unit's name.
    public static let unit = "singlecast-update.timer"

    /// What systemd says of the timer.
    public enum State: String, Sendable, Equatable {
        case enabled, disabled
        /// systemd knows no such unit.
        case notInstalled = "not-installed"
        /// systemd could not be asked (no `systemctl`, no user session).
        case unknown
    }

    /// Asks `systemctl --user is-enabled` (off the task threads: it waits for a process).
    public static func state(environment: [String: String]) async -> State {
        (try? await OffPool.run { query(environment: environment) }) ?? .unknown
    }

    private static func query(environment: [String: String]) -> State {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["systemctl", "--user", "is-enabled", unit]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return .unknown }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `enabled` and `enabled-runtime` run the timer; `disabled`, `linked`, `masked` and the rest
    /// do not; `not-found` is no unit at all.
    static func parse(_ answer: String) -> State {
        switch answer {
        case "enabled", "enabled-runtime": .enabled
        case "not-found": .notInstalled
        case "": .unknown
        default: answer.hasPrefix("Failed") ? .unknown : .disabled
        }
    }
}
