import Foundation

/// What a running ``DownloadDaemon`` reports, one value per thing worth a line in its log;
/// the executable words them.
public enum DaemonEvent: Sendable {
    /// The control socket is listening, in the daemon's process.
    case listening(socket: String, processID: Int32)
    /// Background downloads interrupted by the last stop are being resumed.
    case resuming(count: Int)
    /// What the download engine reported (progress included, which a log may leave out).
    case download(DownloadEvent)
    /// The `--on-complete` command for `file` exited with a non-zero status.
    case hookFailed(file: String, status: Int32)
    /// The `--on-complete` command for `file` could not be started.
    case hookDidNotStart(file: String, detail: String)
    /// The control socket closed with an error, and the daemon stops.
    case controlSocketClosed(detail: String)
    /// Nothing happened for the idle time; the daemon exits.
    case idle(for: Duration)
    /// The daemon has stopped: its downloads are interrupted, its socket removed.
    case stopped
}
