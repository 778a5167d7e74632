import ArgumentParser
import SinglecastKit

/// `--jobs`, checked against the engine's one limit.
enum JobsOption {
    static func validate(_ jobs: Int?) throws {
        guard let jobs, !DownloadEngine.allowedConcurrentDownloads.contains(jobs) else { return }
        throw ValidationError("--" + outOfRange(jobs) + ".")
    }

    /// `jobs must be between 1 and 32, not 40`.
    static func outOfRange(_ jobs: Int) -> String {
        let allowed = DownloadEngine.allowedConcurrentDownloads
        return "jobs must be between \(allowed.lowerBound) and \(allowed.upperBound), not \(jobs)"
    }
}
