import Foundation

/// A failure to start or drive the player (the audio itself failing is a ``PlayerFailure``,
/// delivered in ``PlaybackEnd``).
public enum PlayerError: Error, Equatable, Sendable {
    /// `mpv` is not on `PATH` (and no player is configured).
    case playerNotFound
    /// The `player` setting (or `SINGLECAST_PLAYER`) names a file that does not exist or cannot be run.
    case configuredPlayerMissing(path: String)
    /// Starting the player failed (`execve`'s `errno`, or that of a step before it).
    case couldNotStart(path: String, errno: Int32)
    /// The player exited before its IPC socket answered (a wrapper script that fails, an
    /// option it refuses). `status` is its exit status, or 128 + the signal that killed it.
    case exitedBeforeReady(path: String, status: Int32)
    /// The player started but its IPC socket did not answer in time.
    case didNotAnswer(path: String)
    /// The private folder for the player's socket could not be made.
    case socketDirectory(path: String, errno: Int32)
    /// A speed outside ``PlaybackRequest/speeds``.
    case speedOutOfRange(Double)
    /// The player refused a command (its error, such as `"property unavailable"`).
    case commandFailed(command: String, error: String)
    /// The playback has ended: there is no player to send the command to.
    case playbackEnded
}

/// The player program to run: mpv, or something that behaves as mpv (a wrapper script that
/// `exec`s it with extra options: without `exec`, mpv would be the wrapper's child and would
/// not die with Singlecast).
public struct PlayerExecutable: Sendable, Equatable {
    /// The variable that names the player, a path used as it is.
    public static let variable = "SINGLECAST_PLAYER"

    public var path: String

    public init(path: String) {
        self.path = path
    }

    /// `configured` (the `player` setting or `SINGLECAST_PLAYER`) when set (a missing file is
    /// ``PlayerError/configuredPlayerMissing(path:)``), else `mpv` in a folder of `environment`'s
    /// `PATH`, else ``PlayerError/playerNotFound``.
    public static func locate(
        configured: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PlayerError) -> PlayerExecutable {
        if let configured, !configured.isEmpty {
            guard access(configured, X_OK) == 0, !isDirectory(configured) else {
                throw .configuredPlayerMissing(path: configured)
            }
            return PlayerExecutable(path: configured)
        }
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for folder in folders where !folder.isEmpty {
            let candidate = String(folder) + (folder.hasSuffix("/") ? "mpv" : "/mpv")
            if access(candidate, X_OK) == 0, !isDirectory(candidate) {
                return PlayerExecutable(path: candidate)
            }
        }
        throw .playerNotFound
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
