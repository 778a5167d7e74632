import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A gpodder-API server on `127.0.0.1` for tests and benchmarks, written from the public API
/// references: gpodder.net API v2 (login and session cookie, devices, subscriptions per device,
/// episode actions) and the GPodder Sync app for Nextcloud (basic authentication, one list
/// per user). It keeps its own clock (a counter that each write advances), counts `since`
/// inclusively, answers `update_urls` for the rewrites it is given, and follows scripted
/// faults. Every request is recorded with its body.
///
/// Without credentials a request is answered 401 with `WWW-Authenticate: Basic`, as gPodder's
/// client needs before it sends them.
public final class GpodderServer: Sendable {
    /// The two dialects; a server may speak one or both.
    public enum Dialect: String, Sendable { case gpodder, nextcloud }

    /// The API's requests, to script faults on.
    public enum Endpoint: String, Sendable {
        case login, device, devices, subscriptions, subscriptionUpload, actions, actionUpload
    }

    /// What the server does to one request instead of answering it.
    public enum Fault: Sendable, Equatable {
        case status(Int)
        /// Headers announcing a body, a few bytes of it, then the connection closes.
        case cutConnection
        /// 200 with a body that is not JSON.
        case malformedBody
        /// No fault: the request is answered as usual (to fault a later one).
        case asUsual
    }

    /// A request as received.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var uri: String
        public var headers: HTTPHeaders
        public var body: Data

        public func header(_ name: String) -> String? { headers.first(name: name) }
        /// The body as JSON.
        public var json: Any? { try? JSONSerialization.jsonObject(with: body) }
    }

    /// An episode action as stored: its JSON object as uploaded, and the server's time.
    public struct StoredAction: Sendable {
        public var user: String
        public var json: Data
        public var stamp: Int64

        public var object: [String: Any] { (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:] }
    }

    struct SubscriptionChange: Sendable {
        var user: String
        var device: String
        var url: String
        var added: Bool
        var stamp: Int64
    }

    struct State: Sendable {
        var passwords: [String: String] = [:]
        var sessions: [String: String] = [:]
        var devices: [String: [String: (caption: String, type: String)]] = [:]
        var subscriptions: [SubscriptionChange] = []
        var actions: [StoredAction] = []
        var clock: Int64 = 1_700_000_000
        var faults: [Endpoint: [Fault]] = [:]
        var rewrites: [String: String] = [:]
        var requests: [Request] = []
        var dialects: Set<Dialect> = [.gpodder, .nextcloud]
        /// Uploads of actions with one of these substrings in a URL are refused whole (400).
        var refusing: [String] = []
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    public let port: Int
    public let baseURL: URL
    private let state: TestServerLockedState<State>
    private let listener: any Channel

    private init(listener: any Channel, state: TestServerLockedState<State>) {
        self.listener = listener
        self.state = state
        port = listener.localAddress?.port ?? 0
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts a server with these accounts (user name: password) speaking `dialects`.
    public static func start(users: [String: String], dialects: Set<Dialect> = [.gpodder, .nextcloud]) async throws
        -> GpodderServer
    {
        let state = TestServerLockedState(State())
        state.withLock {
            $0.passwords = users
            $0.dialects = dialects
        }
        let box = GpodderServerBox()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                state.withLock { $0.connections[id] = channel }
                channel.closeFuture.whenComplete { _ in _ = state.withLock { $0.connections.removeValue(forKey: id) } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(GpodderServerHandler(box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = GpodderServer(listener: listener, state: state)
        box.set(server)
        return server
    }

    public func stop() async throws {
        let connections = state.withLock { Array($0.connections.values) }
        try? await listener.close()
        for connection in connections { try? await connection.close() }
    }

    // MARK: - Scripting

    /// The next requests to `endpoint` meet these faults, one each.
    public func addFaults(_ faults: [Fault], for endpoint: Endpoint) {
        state.withLock { $0.faults[endpoint, default: []].append(contentsOf: faults) }
    }

    /// Subscription uploads of `old` store `new` instead and say so in `update_urls`.
    public func rewrite(_ old: String, to new: String) {
        state.withLock { $0.rewrites[old] = new }
    }

    /// Refuses (400) any upload of actions with `text` in a podcast or episode URL.
    public func refuseActions(containing text: String) {
        state.withLock { $0.refusing.append(text) }
    }

    /// Another device's subscription change, as if uploaded now.
    public func subscriptionChange(user: String, device: String, add: [String] = [], remove: [String] = []) {
        state.withLock { state in
            state.clock += 1
            for url in add {
                state.subscriptions.append(SubscriptionChange(user: user, device: device, url: url, added: true, stamp: state.clock))
            }
            for url in remove {
                state.subscriptions.append(SubscriptionChange(user: user, device: device, url: url, added: false, stamp: state.clock))
            }
        }
    }

    /// Another device's episode actions, as JSON objects (anything, to test lenient reading), uploaded now.
    public func uploadActions(user: String, _ objects: [[String: Any]]) {
        let encoded = objects.map { (try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])) ?? Data() }
        state.withLock { state in
            state.clock += 1
            for json in encoded { state.actions.append(StoredAction(user: user, json: json, stamp: state.clock)) }
        }
    }

    /// Registers a device, as another client would.
    public func addDevice(user: String, id: String, caption: String, type: String) {
        state.withLock { $0.devices[user, default: [:]][id] = (caption, type) }
    }

    // MARK: - Inspecting

    public var requests: [Request] { state.withLock { $0.requests } }

    public func requests(to endpoint: Endpoint) -> [Request] {
        requests.filter { Self.endpoint(method: $0.method, path: $0.path)?.endpoint == endpoint }
    }

    public var storedActions: [StoredAction] { state.withLock { $0.actions } }

    /// A device's subscriptions now (for Nextcloud, `device` is ignored: one list per user).
    public func subscriptions(user: String, device: String?) -> [String] {
        state.withLock { state in Self.current(state.subscriptions.filter { $0.user == user && (device == nil || $0.device == device) }) }
    }

    public var devices: [String: [String: (caption: String, type: String)]] { state.withLock { $0.devices } }

    public var clock: Int64 { state.withLock { $0.clock } }

    // MARK: - Answering

    private static func current(_ changes: [SubscriptionChange]) -> [String] {
        var last: [String: Bool] = [:]
        var order: [String] = []
        for change in changes.sorted(by: { $0.stamp < $1.stamp }) {
            if last[change.url] == nil { order.append(change.url) }
            last[change.url] = change.added
        }
        return order.filter { last[$0] == true }
    }

    /// The endpoint of a request, with the user and device in its path.
    static func endpoint(method: String, path: String) -> (endpoint: Endpoint, dialect: Dialect, user: String?, device: String?)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
        func strip(_ name: String) -> String { name.hasSuffix(".json") ? String(name.dropLast(5)) : name }
        if parts.count >= 3 && parts[0] == "api" && parts[1] == "2" {
            switch (method, parts.count, parts[2]) {
            case ("POST", 5, "auth") where parts[4] == "login.json": return (.login, .gpodder, parts[3], nil)
            case ("GET", 4, "devices"): return (.devices, .gpodder, strip(parts[3]), nil)
            case ("POST", 5, "devices"): return (.device, .gpodder, parts[3], strip(parts[4]))
            case ("GET", 5, "subscriptions"): return (.subscriptions, .gpodder, parts[3], strip(parts[4]))
            case ("POST", 5, "subscriptions"): return (.subscriptionUpload, .gpodder, parts[3], strip(parts[4]))
            case ("GET", 4, "episodes"): return (.actions, .gpodder, strip(parts[3]), nil)
            case ("POST", 4, "episodes"): return (.actionUpload, .gpodder, strip(parts[3]), nil)
            default: return nil
            }
        }
        guard parts.count >= 4, parts[0] == "index.php", parts[1] == "apps", parts[2] == "gpoddersync" else { return nil }
        switch (method, parts.dropFirst(3).joined(separator: "/")) {
        case ("GET", "subscriptions"): return (.subscriptions, .nextcloud, nil, nil)
        case ("POST", "subscription_change/create"): return (.subscriptionUpload, .nextcloud, nil, nil)
        case ("GET", "episode_action"): return (.actions, .nextcloud, nil, nil)
        case ("POST", "episode_action/create"): return (.actionUpload, .nextcloud, nil, nil)
        default: return nil
        }
    }

    enum Answer {
        case json(Int, Any, headers: [(String, String)] = [])
        case text(Int, String, headers: [(String, String)] = [])
        case cut
    }

    func answer(method: String, uri: String, headers: HTTPHeaders, body: Data) -> Answer {
        let path = String(uri.prefix { $0 != "?" })
        let query = URLComponents(string: uri)?.queryItems ?? []
        let since = query.first { $0.name == "since" }?.value.flatMap { Int64($0) }
        return state.withLock { state -> Answer in
            state.requests.append(Request(method: method, path: path, uri: uri, headers: headers, body: body))
            guard let (endpoint, dialect, pathUser, device) = Self.endpoint(method: method, path: path),
                state.dialects.contains(dialect)
            else { return .text(404, "not found") }
            // Who asks: basic authentication, or (gpodder.net) the session cookie.
            var user: String?
            if let authorization = headers.first(name: "Authorization"), authorization.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }),
                let colon = decoded.firstIndex(of: ":")
            {
                let name = String(decoded[..<colon])
                if state.passwords[name] == String(decoded[decoded.index(after: colon)...]) { user = name }
            } else if dialect == .gpodder, endpoint != .login, let cookie = headers.first(name: "Cookie") {
                for part in cookie.split(separator: ";") {
                    let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2, pair[0] == "sessionid", let name = state.sessions[pair[1]] { user = name }
                }
            }
            guard let user, pathUser == nil || pathUser == user else {
                return .text(401, "unauthorized", headers: [("WWW-Authenticate", "Basic realm=\"gpodder\"")])
            }
            if var faults = state.faults[endpoint], !faults.isEmpty, faults[0] == .asUsual {
                faults.removeFirst()
                state.faults[endpoint] = faults
            } else if var faults = state.faults[endpoint], !faults.isEmpty {
                let fault = faults.removeFirst()
                state.faults[endpoint] = faults
                switch fault {
                case .status(let code):
                    return .text(code, "fault", headers: code == 401 ? [("WWW-Authenticate", "Basic realm=\"gpodder\"")] : [])
                case .cutConnection: return .cut
                case .malformedBody: return .text(200, "<html><body>Maintenance</body></html>")
                case .asUsual: break
                }
            }
            switch endpoint {
            case .login:
                let session = UUID().uuidString
                state.sessions[session] = user
                return .json(200, [String: Any](), headers: [("Set-Cookie", "sessionid=\(session); Path=/; HttpOnly")])
            case .devices:
                let list = (state.devices[user] ?? [:]).sorted { $0.key < $1.key }.map { id, device in
                    [
                        "id": id, "caption": device.caption, "type": device.type,
                        "subscriptions": Self.current(state.subscriptions.filter { $0.user == user && $0.device == id }).count,
                    ] as [String: Any]
                }
                return .json(200, list)
            case .device:
                let settings = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
                let old = state.devices[user]?[device!]
                state.devices[user, default: [:]][device!] = (
                    settings["caption"] as? String ?? old?.caption ?? "", settings["type"] as? String ?? old?.type ?? "other"
                )
                return .json(200, [String: Any]())
            case .subscriptions:
                let mine = state.subscriptions.filter { $0.user == user && (dialect == .nextcloud || $0.device == device) }
                var add: [String] = []
                var remove: [String] = []
                if let since {
                    var last: [String: Bool] = [:]
                    var order: [String] = []
                    for change in mine.sorted(by: { $0.stamp < $1.stamp }) where change.stamp >= since {
                        if last[change.url] == nil { order.append(change.url) }
                        last[change.url] = change.added
                    }
                    add = order.filter { last[$0] == true }
                    remove = order.filter { last[$0] == false }
                } else {
                    add = Self.current(mine)
                }
                return .json(200, ["add": add, "remove": remove, "timestamp": state.clock])
            case .subscriptionUpload:
                guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
                    return .text(400, "bad json")
                }
                let add = object["add"] as? [String] ?? []
                let remove = object["remove"] as? [String] ?? []
                if !Set(add).isDisjoint(with: remove) { return .text(400, "same URL added and removed") }
                state.clock += 1
                var updates: [[String]] = []
                for url in add {
                    let stored = state.rewrites[url] ?? url
                    if stored != url { updates.append([url, stored]) }
                    state.subscriptions.append(
                        SubscriptionChange(user: user, device: device ?? "", url: stored, added: true, stamp: state.clock))
                }
                for url in remove {
                    state.subscriptions.append(
                        SubscriptionChange(user: user, device: device ?? "", url: url, added: false, stamp: state.clock))
                }
                if dialect == .nextcloud { return .json(200, ["timestamp": state.clock]) }
                return .json(200, ["timestamp": state.clock, "update_urls": updates])
            case .actions:
                let selected = state.actions.filter { $0.user == user && $0.stamp >= (since ?? 0) }
                return .text(
                    200,
                    "{\"actions\":[" + selected.map { String(decoding: $0.json, as: UTF8.self) }.joined(separator: ",")
                        + "],\"timestamp\":\(state.clock)}",
                    headers: [("Content-Type", "application/json")])
            case .actionUpload:
                guard let list = (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] else {
                    return .text(400, "bad json")
                }
                // As strict as gpodder.net: every action valid, or the whole batch refused.
                for object in list {
                    guard let podcast = object["podcast"] as? String, let episode = object["episode"] as? String,
                        let action = object["action"] as? String, ["play", "download", "delete", "new"].contains(action),
                        podcast.hasPrefix("http"), episode.hasPrefix("http"),
                        !state.refusing.contains(where: { podcast.contains($0) || episode.contains($0) })
                    else { return .text(400, "invalid action") }
                    if let timestamp = object["timestamp"] {
                        guard let text = timestamp as? String, Self.isPlainTimestamp(text) else { return .text(400, "bad timestamp") }
                    }
                }
                state.clock += 1
                for object in list {
                    let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
                    state.actions.append(StoredAction(user: user, json: json, stamp: state.clock))
                }
                if dialect == .nextcloud { return .json(200, ["timestamp": state.clock]) }
                return .json(200, ["timestamp": state.clock, "update_urls": [[String]]()])
            }
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS`, with an optional fraction, as gpodder.net stores it.
    static func isPlainTimestamp(_ text: String) -> Bool {
        text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?/#) != nil
    }

    func respond(method: String, uri: String, headers: HTTPHeaders, body: Data, keepAlive: Bool, on channel: any Channel) async {
        let answer = answer(method: method, uri: uri, headers: headers, body: body)
        var status = 200
        var extra: [(String, String)] = []
        var bytes = Data()
        switch answer {
        case .json(let code, let object, let headers):
            status = code
            extra = headers + [("Content-Type", "application/json")]
            bytes = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        case .text(let code, let text, let headers):
            status = code
            extra = headers
            bytes = Data(text.utf8)
        case .cut:
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: "4096")
            channel.write(HTTPServerResponsePart.head(head), promise: nil)
            try? await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "{\"actions\":[{"))))
            try? await channel.close()
            return
        }
        var head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: status))
        for (name, value) in extra { head.headers.add(name: name, value: value) }
        head.headers.replaceOrAdd(name: "Content-Length", value: String(bytes.count))
        if !keepAlive { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        if !bytes.isEmpty { channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))), promise: nil) }
        try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { try? await channel.close() }
    }
}

final class GpodderServerBox: Sendable {
    private let server = TestServerLockedState<GpodderServer?>(nil)
    func set(_ value: GpodderServer) { server.withLock { $0 = value } }
    var value: GpodderServer? { server.withLock { $0 } }
}

final class GpodderServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: GpodderServerBox
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(box: GpodderServerBox) {
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head, let server = box.value else { return }
            self.head = nil
            let bytes = Data(body.readableBytesView)
            body.clear()
            let channel = context.channel
            let method = "\(head.method)"
            Task {
                await server.respond(
                    method: method, uri: head.uri, headers: head.headers, body: bytes, keepAlive: head.isKeepAlive, on: channel)
            }
        }
    }
}
