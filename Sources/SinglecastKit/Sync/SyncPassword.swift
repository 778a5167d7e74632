import Foundation

/// Where a sync password came from, so that a refusal can say where to fix it.
public enum SyncPasswordSource: Equatable, Sendable {
    /// The netrc file at this path (`$NETRC`, else `~/.netrc`), `machine` = the server's host.
    case netrc(path: String)
    /// `SINGLECAST_SYNC_PASSWORD`.
    case environment
    /// Typed at a prompt.
    case prompt
}

/// Finds the password of a sync account without asking anyone: the netrc entry for the
/// server's host (and the user, when the entry names one), else `SINGLECAST_SYNC_PASSWORD`.
/// A prompt is the command line's to offer.
public enum SyncPassword {
    public static let environmentVariable = "SINGLECAST_SYNC_PASSWORD"

    public static func find(server: URL, user: String, environment: [String: String]) -> (
        password: String, source: SyncPasswordSource
    )? {
        if let path = Credentials.netrcPath(environment: environment),
            let host = server.host(percentEncoded: false),
            let text = try? String(contentsOfFile: path, encoding: .utf8),
            let entry = Netrc(text).credentials(host: host, login: user), !entry.password.isEmpty
        {
            return (entry.password, .netrc(path: path))
        }
        if let password = environment[environmentVariable], !password.isEmpty {
            return (password, .environment)
        }
        return nil
    }
}
