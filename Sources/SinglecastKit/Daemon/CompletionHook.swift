import Foundation

/// Runs the user's `--on-complete` command for a finished download, without waiting for it.
enum CompletionHook {
    /// Runs `/bin/sh -c COMMAND singlecast-hook FILE` with `SINGLECAST_FILE` and
    /// `SINGLECAST_TITLE` set, and reports a failure to start or a non-zero exit.
    static func run(_ command: String, file: String, title: String, report: @escaping @Sendable (DaemonEvent) -> Void) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command, "singlecast-hook", file]
        var environment = ProcessInfo.processInfo.environment
        environment["SINGLECAST_FILE"] = file
        environment["SINGLECAST_TITLE"] = title
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { finished in
            if finished.terminationStatus != 0 {
                report(.hookFailed(file: file, status: finished.terminationStatus))
            }
        }
        do {
            try process.run()
        } catch {
            report(.hookDidNotStart(file: file, detail: describing(error)))
        }
    }
}
