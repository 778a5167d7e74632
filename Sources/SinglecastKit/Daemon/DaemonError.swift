import Foundation

/// A failure to start, reach or use the download daemon, as a value (the executable words it).
public enum DaemonError: Error, Equatable, Sendable {
    /// Another daemon holds the library's lock.
    case alreadyRunning(library: String, processID: Int32?)
    /// The control socket (or the lock beside it) could not be created or reached, and why.
    case socket(path: String, problem: SocketProblem)
    /// The daemon was started but did not answer in time; its log may say why.
    case didNotStart(log: String)
    /// The daemon refused the request, and why.
    case refused(ControlFailure)

    /// Why the control socket could not be used.
    public enum SocketProblem: Equatable, Sendable {
        /// A system call on it failed with this `errno`.
        case system(errno: Int32)
        /// No daemon accepted the connection; the connection's error, described.
        case notListening(String)
        /// No reply came within this time.
        case noReply(within: Duration)
        /// The daemon closed the connection without a reply.
        case closed
        /// The reply is not the protocol's JSON.
        case unreadableReply
        /// The daemon to answer on it could not be started (`posix_spawn`'s error).
        case cannotStart(executable: String, errno: Int32)
        /// Listening on it failed; the error, described.
        case cannotListen(String)
    }
}
