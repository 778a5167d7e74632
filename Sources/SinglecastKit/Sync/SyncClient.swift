import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The two dialects of the gpodder API that servers speak.
public enum SyncDialect: String, Sendable, CaseIterable, Codable {
    /// gpodder.net API v2 (also oPodSync and others): a login, then a session cookie;
    /// subscriptions belong to a device.
    case gpodder
    /// The GPodder Sync app for Nextcloud: basic authentication on every request, one list
    /// of subscriptions per user, no devices.
    case nextcloud
}

/// A user name and the password for a sync server. The password is never stored, logged or
/// shown: it goes only into the `Authorization` header of requests to the server.
public struct SyncCredentials: Sendable {
    public var user: String
    var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    var authorization: String { Credentials(user: user, password: password).authorization }
}

/// One device of an account, as `sync --devices` lists them.
public struct SyncDevice: Equatable, Sendable, Codable {
    public var id: String
    public var caption: String?
    public var type: String?
    public var subscriptions: Int?
}

/// The requests of the gpodder API, in either dialect, to one server for one user.
final class SyncClient: Sendable {
    let session: HTTPSession
    /// The server's address, ending in `/`.
    let server: URL
    /// The server's address as the account gives it, for errors.
    let account: URL
    let credentials: SyncCredentials
    let dialect: SyncDialect
    /// The session cookie of a gpodder.net login.
    private let cookie = Mutex<String?>(nil)

    /// The largest answer read: 10 MB of episode actions fit many times over.
    static let bodyLimit = 128 * 1_048_576

    init(session: HTTPSession, server: URL, credentials: SyncCredentials, dialect: SyncDialect) {
        self.session = session
        self.server = Self.normalized(server)
        self.account = server
        self.credentials = credentials
        self.dialect = dialect
    }

    /// The server's address with a path that ends in `/`, so API paths go after it.
    static func normalized(_ server: URL) -> URL {
        guard var components = URLComponents(url: server, resolvingAgainstBaseURL: true) else { return server }
        if !components.path.hasSuffix("/") { components.path += "/" }
        components.query = nil
        components.fragment = nil
        return components.url ?? server
    }

    // MARK: - Finding the dialect

    /// Asks the server which dialect it speaks: a gpodder.net login first (kept, when it
    /// succeeds), then the Nextcloud app's subscription list; one request each at most.
    static func detect(session: HTTPSession, server: URL, credentials: SyncCredentials) async throws -> SyncClient {
        let gpodder = SyncClient(session: session, server: server, credentials: credentials, dialect: .gpodder)
        let login = try await gpodder.send(.POST, gpodder.path("api/2/auth", credentials.user, "login.json"), request: .login)
        if login.status == 401 || login.status == 403 {
            throw SyncError(.unauthorized(user: credentials.user), server: server)
        }
        if (200...299).contains(login.status) {
            gpodder.keepCookie(login.headers)
            return gpodder
        }
        let nextcloud = SyncClient(session: session, server: server, credentials: credentials, dialect: .nextcloud)
        let probe = try await nextcloud.send(.GET, nextcloud.nextcloudPath("subscriptions", since: 0), request: .subscriptions)
        if probe.status == 401 || probe.status == 403 {
            throw SyncError(.unauthorized(user: credentials.user), server: server)
        }
        guard (200...299).contains(probe.status),
            (try? JSONDecoder().decode(SyncWire.SubscriptionChanges.self, from: probe.body)) != nil
        else { throw SyncError(.noAPI, server: server) }
        return nextcloud
    }

    // MARK: - Requests

    /// Logs in (gpodder.net: the session cookie for the next requests); nothing for Nextcloud.
    func login() async throws {
        guard dialect == .gpodder, cookie.withLock({ $0 }) == nil else { return }
        let response = try await expect(.POST, path("api/2/auth", credentials.user, "login.json"), request: .login)
        keepCookie(response.headers)
    }

    /// Registers (or renames) this device, with a caption and type `laptop`.
    func registerDevice(_ device: String, caption: String) async throws {
        guard dialect == .gpodder else { return }
        let body = try JSONEncoder().encode(SyncWire.DeviceSettings(caption: caption, type: "laptop"))
        _ = try await expect(.POST, path("api/2/devices", credentials.user, device + ".json"), body: body, request: .device)
    }

    /// The account's devices.
    func devices() async throws -> [SyncDevice] {
        guard dialect == .gpodder else { throw SyncError(.noDevices, server: account) }
        let response = try await expect(.GET, path("api/2/devices", credentials.user + ".json"), request: .devices)
        let devices = try decode([SyncWire.Lenient<SyncWire.Device>].self, response.body, request: .devices)
        return devices.compactMap { (entry: SyncWire.Lenient<SyncWire.Device>) -> SyncDevice? in
            guard let device = entry.value else { return nil }
            return SyncDevice(id: device.id, caption: device.caption, type: device.type, subscriptions: device.subscriptions)
        }
    }

    /// The subscription changes since `since` (all when nil).
    func subscriptionChanges(device: String, since: Int64?) async throws -> SyncWire.SubscriptionChanges {
        let url =
            switch dialect {
            case .gpodder: path("api/2/subscriptions", credentials.user, device + ".json", since: since ?? 0)
            case .nextcloud: nextcloudPath("subscriptions", since: since ?? 0)
            }
        let response = try await expect(.GET, url, request: .subscriptions)
        return try decode(SyncWire.SubscriptionChanges.self, response.body, request: .subscriptions)
    }

    /// Sends subscription changes; returns the server's answer (its URL rewrites).
    func uploadSubscriptionChanges(device: String, add: [String], remove: [String]) async throws -> SyncWire.UploadResult {
        let url =
            switch dialect {
            case .gpodder: path("api/2/subscriptions", credentials.user, device + ".json")
            case .nextcloud: nextcloudPath("subscription_change/create")
            }
        let body = try JSONEncoder().encode(SyncWire.SentSubscriptionChanges(add: add, remove: remove))
        let response = try await expect(.POST, url, body: body, request: .subscriptionUpload)
        return try decode(SyncWire.UploadResult.self, response.body, request: .subscriptionUpload)
    }

    /// The episode actions uploaded since `since` (all when nil), read as they arrive (see
    /// ``ActionStream``), with the server's timestamp.
    func episodeActions(since: Int64?) async throws -> (actions: ReceivedActions, timestamp: Int64) {
        let url =
            switch dialect {
            case .gpodder: path("api/2/episodes", credentials.user + ".json", since: since ?? 0)
            case .nextcloud: nextcloudPath("episode_action", since: since ?? 0)
            }
        var stream = ActionStream()
        var malformed = false
        let response = try await send(
            .GET, url, request: .actions,
            consume: { buffer in
                do {
                    if !malformed { try stream.feed(buffer.readableBytesView) }
                } catch {
                    malformed = true
                }
            })
        try checkAuthorized(response)
        guard (200...299).contains(response.status) else {
            throw SyncError(.status(response.status, request: .actions), server: account)
        }
        do {
            guard !malformed else { throw SyncWire.Skipped() }
            let timestamp = try stream.finish()
            return (stream.received, timestamp)
        } catch {
            throw SyncError(.malformed(request: .actions), server: account)
        }
    }

    /// What an upload of episode actions came to.
    enum UploadOutcome {
        case accepted(SyncWire.UploadResult)
        /// The server refused the batch with this 4xx status (other than 401).
        case refused(Int)
    }

    /// Sends a batch of episode actions, `body` being their JSON array
    /// (``SyncWire/SentAction/json(_:)``); `handedOver` is called once the body has gone to
    /// the connection, while the server reads it and answers.
    func uploadEpisodeActions(_ body: Data, handedOver: @escaping @Sendable () -> Void = {}) async throws -> UploadOutcome {
        let url =
            switch dialect {
            case .gpodder: path("api/2/episodes", credentials.user + ".json")
            case .nextcloud: nextcloudPath("episode_action/create")
            }
        let response = try await send(.POST, url, body: body, request: .actionUpload, handedOver: handedOver)
        try checkAuthorized(response)
        if (400...499).contains(response.status) && response.status != 408 && response.status != 429 {
            return .refused(response.status)
        }
        guard (200...299).contains(response.status) else {
            throw SyncError(.status(response.status, request: .actionUpload), server: account)
        }
        // Some servers answer an upload with an empty body.
        if response.body.isEmpty { return .accepted(try JSONDecoder().decode(SyncWire.UploadResult.self, from: Data("{}".utf8))) }
        return .accepted(try decode(SyncWire.UploadResult.self, response.body, request: .actionUpload))
    }

    // MARK: - Plumbing

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// `base/api/2/…/user/device.json`, each part percent-encoded, with `?since=` when given.
    func path(_ prefix: String, _ parts: String..., since: Int64? = nil) -> URL {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;"))
        let encoded = parts.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
        let query = since.map { "?since=\($0)" } ?? ""
        return URL(string: server.absoluteString + prefix + "/" + encoded.joined(separator: "/") + query)!
    }

    func nextcloudPath(_ endpoint: String, since: Int64? = nil) -> URL {
        let query = since.map { "?since=\($0)" } ?? ""
        return URL(string: server.absoluteString + "index.php/apps/gpoddersync/" + endpoint + query)!
    }

    private func keepCookie(_ headers: HTTPHeaders) {
        let cookies = headers["Set-Cookie"].compactMap { $0.split(separator: ";").first.map(String.init) }
            .filter { $0.contains("=") }
        guard !cookies.isEmpty else { return }
        cookie.withLock { $0 = cookies.joined(separator: "; ") }
    }

    private func checkAuthorized(_ response: Answer) throws {
        if response.status == 401 || response.status == 403 {
            throw SyncError(.unauthorized(user: credentials.user), server: account)
        }
    }

    /// Sends a request and requires a 2xx answer.
    private func expect(_ method: HTTPMethod, _ url: URL, body: Data? = nil, request: SyncRequest) async throws -> Answer {
        let response = try await send(method, url, body: body, request: request)
        try checkAuthorized(response)
        guard (200...299).contains(response.status) else {
            throw SyncError(.status(response.status, request: request), server: account)
        }
        return response
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: Data, request: SyncRequest) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw SyncError(.malformed(request: request), server: account)
        }
    }

    /// Sends one request through the session's one request path (redirects followed there) and
    /// reads its answer whole. The credentials go in a header, only to the server's own origin,
    /// or to its host over https (a redirect from http to https), never elsewhere.
    /// With `consume`, the body of a 2xx answer is handed over as it arrives instead of kept;
    /// `handedOver` is called when the request's body has gone to the connection.
    func send(
        _ method: HTTPMethod, _ url: URL, body: Data? = nil, request: SyncRequest,
        handedOver: (@Sendable () -> Void)? = nil, consume: ((ByteBuffer) -> Void)? = nil
    ) async throws -> Answer {
        let outgoing = HTTPSession.Request(
            method, url, headers: [("Accept", "application/json")], body: body, contentType: "application/json",
            credentials: { [self] current in
                guard current.origin == server.origin
                    || (current.scheme?.lowercased() == "https" && current.host?.lowercased() == server.host?.lowercased())
                else { return [] }
                if let cookie = cookie.withLock({ $0 }), request != .login { return [("Cookie", cookie)] }
                return [("Authorization", credentials.authorization)]
            },
            handedOver: handedOver)
        do {
            let response = try await session.send(outgoing)
            let streams = consume != nil && (200...299).contains(response.status)
            var data = Data()
            var total = 0
            do {
                for try await buffer in response.body {
                    total += buffer.readableBytes
                    guard total <= Self.bodyLimit else { throw HTTPError(.bodyTooLarge(Self.bodyLimit), url: response.finalURL) }
                    if streams { consume?(buffer) } else { data.append(contentsOf: buffer.readableBytesView) }
                }
            } catch {
                throw HTTPError.wrapping(error, url: response.finalURL)
            }
            return Answer(status: response.status, headers: response.headers, body: data)
        } catch let error as HTTPError {
            throw SyncError(.transport(error.reason, request: request), server: account)
        }
    }
}
