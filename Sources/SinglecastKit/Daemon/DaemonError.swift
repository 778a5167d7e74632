import Foundation

/// A failure to start, reach or use the download daemon.
public enum DaemonError: LocalizedError, Equatable, Sendable {
    /// Another daemon holds the library's lock.
    case alreadyRunning(library: String, processID: Int32?)
    /// The control socket could not be created or reached.
    case socket(path: String, detail: String)
    /// The daemon was started but did not answer in time; its log may say why.
    case didNotStart(log: String)
    /// The daemon refused the request, and why.
    case refused(ControlFailure)

    public var errorDescription: String? {
        switch self {
        case .alreadyRunning(let library, let processID):
            let who = processID.map { " (process \($0))" } ?? ""
            return "a download daemon is already running for \(library)\(who)"
        case .socket(let path, let detail):
            return "control socket \(path): \(detail)"
        case .didNotStart(let log):
            return "the download daemon did not start; see \(log)"
        case .refused(let failure):
            return "the download daemon refused: \(failure)"
        }
    }
}
