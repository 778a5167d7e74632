import Foundation

/// Runs the user's `--on-complete` command for a finished download, without waiting for it.
enum CompletionHook {
    /// Runs `/bin/sh -c COMMAND singlecast-hook FILE` with `SINGLECAST_FILE` and
    /// `SINGLECAST_TITLE` set, and logs how it ended.
    static func run(_ command: String, file: String, title: String, log: @escaping @Sendable (String) -> Void) {
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
                log("on-complete hook exited with status \(finished.terminationStatus) for \(file)")
            }
        }
        do {
            try process.run()
        } catch {
            log("on-complete hook could not start for \(file): \(error.localizedDescription)")
        }
    }
}
