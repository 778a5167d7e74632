import Foundation

/// A sync that could not go through, as a value: what failed, at which server. The
/// command line words it (the library knows nothing of where a password came from).
public struct SyncError: Error, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// The server refused the user name and password (HTTP 401 or 403).
        case unauthorized(user: String)
        /// The server answered a request with a status it should not have.
        case status(Int, request: SyncRequest)
        /// The server could not be reached, or the connection failed (see ``HTTPError``).
        case transport(HTTPError.Reason, request: SyncRequest)
        /// The answer was not the JSON the API describes.
        case malformed(request: SyncRequest)
        /// Neither dialect of the API answered at the server's address.
        case noAPI
        /// The dialect keeps no devices (the Nextcloud app has one list per user).
        case noDevices
    }

    public var reason: Reason
    /// The server's address as the user gave it (never with a password).
    public var server: URL

    public init(_ reason: Reason, server: URL) {
        self.reason = reason
        self.server = server
    }

    /// The server's host name, as messages name it.
    public var host: String { server.host(percentEncoded: false) ?? server.absoluteString }
}

/// The requests a sync makes, to say which one failed.
public enum SyncRequest: String, Sendable, Equatable {
    case login
    case device
    case devices
    case subscriptions
    case subscriptionUpload
    case actions
    case actionUpload
}
