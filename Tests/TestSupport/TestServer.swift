import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A small HTTP/1.1 server on `127.0.0.1` for tests and benchmarks: it serves registered
/// resources with `Range`, `If-Range`, `ETag`, `Last-Modified` and conditional GET (304) support, follows
/// scripted faults, and records every request it receives.
///
/// ```swift
/// let server = try await TestServer.start()
/// server.serve(path: "/ep.mp3", data: bytes, contentType: "audio/mpeg", etag: "\"v1\"")
/// // … request server.url("/ep.mp3") …
/// try await server.stop()
/// ```
///
/// Bodies are streamed in chunks, each written once the channel can take it, so a
/// generated body of several GiB never sits in memory.
public final class TestServer: Sendable {
    /// What the server does to one request instead of, or on top of, a normal answer.
    /// A resource's faults are consumed in order, one per request.
    public enum Fault: Sendable, Equatable {
        /// Normal headers, then the connection is reset (TCP RST) after this many body bytes.
        case dropAfter(Int)
        /// Normal headers, then the connection is closed cleanly (FIN) after this many
        /// body bytes although `Content-Length` announced more.
        case shortBody(Int)
        /// Send this many body bytes, go silent for `seconds`, then carry on.
        case stall(afterBytes: Int, seconds: Double)
        /// Answer with this status (and `Retry-After: retryAfter` seconds when given).
        case status(Int, retryAfter: Int? = nil)
        /// Answer 200 with the whole body whatever `Range` asked for.
        case ignoreRange
        /// Replace the resource's content and `ETag` (for good), then answer normally.
        case changeContent(Data, etag: String)
        /// Answer 416 with `Content-Range: bytes */<size>` whatever was asked.
        case status416
        /// Answer 200 with a small `text/html` error page.
        case htmlPage
        /// Answer 404.
        case notFound
        /// Answer a `Range` request with 206 from this offset instead of the one asked for.
        case rangeFrom(Int64)
    }

    /// A request as the server received it.
    public struct Request: Sendable {
        public var method: String
        /// The path, without the query string.
        public var path: String
        /// The request target as sent, query string included.
        public var uri: String
        public var headers: HTTPHeaders

        /// The first value of a header, if present.
        public func header(_ name: String) -> String? { headers.first(name: name) }
        /// The `Range` header, if present.
        public var range: String? { header("Range") }
    }

    enum Content: Sendable {
        case buffer(ByteBuffer)
        case generated(size: Int64)
        case file(URL, size: Int64)

        var size: Int64 {
            switch self {
            case .buffer(let buffer): return Int64(buffer.readableBytes)
            case .generated(let size): return size
            case .file(_, let size): return size
            }
        }
    }

    struct Resource: Sendable {
        var content: Content
        var contentType: String
        var contentEncoding: String?
        var etag: String?
        var lastModified: String?
        var faults: [Fault]
        var bytesPerSecond: Int?
        /// The `Authorization` header a request must carry; others are answered 401.
        var authorization: String? = nil
        /// Every answer's body ends (cleanly, short of what `Content-Length` announced) at this
        /// byte of the resource, whatever range was asked for.
        var endsAt: Int64?
        /// Every `Range` request is answered 206 with no byte.
        var emptyRanges = false
    }

    struct State: Sendable {
        var resources: [String: Resource] = [:]
        var redirects: [String: (location: String, status: Int)] = [:]
        var directories: [(prefix: String, directory: URL)] = []
        var requests: [Request] = []
        var connections: [ObjectIdentifier: any Channel] = [:]
        var stopped = false
        /// The listening socket, while the server listens.
        var listener: (any Channel)?
    }

    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>`, or `https://…` when the server speaks TLS.
    public let baseURL: URL
    private let host: String
    private let tls: NIOSSLContext?
    private let box: TestServerBox
    private let state: TestServerLockedState<State>

    private init(
        listener: any Channel, state: TestServerLockedState<State>, host: String, tls: NIOSSLContext?, box: TestServerBox
    ) {
        self.port = listener.localAddress?.port ?? 0
        self.baseURL = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(self.port)")!
        self.host = host
        self.tls = tls
        self.box = box
        self.state = state
        state.withLock { $0.listener = listener }
    }

    /// Starts a server on `host`; port 0 picks a free ephemeral port (read it from ``port``).
    /// With a `tls` context the server speaks HTTPS (see ``TestCertificates``).
    public static func start(host: String = "127.0.0.1", port: Int = 0, tls: NIOSSLContext? = nil) async throws
        -> TestServer
    {
        let state = TestServerLockedState(State())
        let box = TestServerBox()
        let listener = try await listen(host: host, port: port, tls: tls, state: state, box: box)
        let server = TestServer(listener: listener, state: state, host: host, tls: tls, box: box)
        box.server = server
        return server
    }

    /// Listens again on the same port after ``stop()``, with the same resources (a server that
    /// went away and came back). Connections are refused while it is stopped.
    public func restart() async throws {
        let listener = try await Self.listen(host: host, port: port, tls: tls, state: state, box: box)
        state.withLock { state in
            state.listener = listener
            state.stopped = false
        }
    }

    private static func listen(
        host: String, port: Int, tls: NIOSSLContext?, state: TestServerLockedState<State>, box: TestServerBox
    ) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                state.withLock { $0.connections[id] = channel }
                channel.closeFuture.whenComplete { _ in
                    _ = state.withLock { $0.connections.removeValue(forKey: id) }
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(TestServerRequestHandler(box: box))
                }
            }
            .bind(host: host, port: port)
            .get()
    }

    /// Stops listening and closes every open connection (see ``restart()``).
    public func stop() async throws {
        let (connections, listener) = state.withLock { state -> ([any Channel], (any Channel)?) in
            state.stopped = true
            defer { state.listener = nil }
            return (Array(state.connections.values), state.listener)
        }
        try? await listener?.close()
        for connection in connections {
            try? await connection.close()
        }
    }

    /// The absolute URL of `path` on this server (`path` may carry a query string).
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + (path.hasPrefix("/") ? path : "/" + path))!
    }

    // MARK: - Registering content

    /// Serves `data` at `path`. With a `contentEncoding` (such as `"gzip"`), `data` must
    /// already be encoded that way; it is sent as is, with that `Content-Encoding`.
    /// With an `authorization` (such as `"Basic YWxpY2U6czNjcmV0"`), requests without exactly that
    /// `Authorization` header are answered 401 with a `WWW-Authenticate: Basic` challenge.
    public func serve(
        path: String, data: Data, contentType: String = "application/octet-stream", contentEncoding: String? = nil,
        etag: String? = nil, lastModified: Date? = nil, faults: [Fault] = [], bytesPerSecond: Int? = nil,
        authorization: String? = nil
    ) {
        register(
            path: path, content: .buffer(ByteBuffer(bytes: data)), contentType: contentType,
            contentEncoding: contentEncoding, etag: etag, lastModified: lastModified, faults: faults,
            bytesPerSecond: bytesPerSecond, authorization: authorization)
    }

    /// Serves `generatedSize` deterministic bytes at `path` (see ``generatedBytes(offset:count:)``),
    /// generated on the fly: nothing of the size is held in memory.
    public func serve(
        path: String, generatedSize: Int64, contentType: String = "application/octet-stream",
        etag: String? = nil, lastModified: Date? = nil, faults: [Fault] = [], bytesPerSecond: Int? = nil
    ) {
        register(
            path: path, content: .generated(size: generatedSize), contentType: contentType,
            etag: etag, lastModified: lastModified, faults: faults, bytesPerSecond: bytesPerSecond)
    }

    /// Serves the files below `directory` under the URL prefix `prefix` (read when requested;
    /// the ETag is derived from size and modification date).
    public func serve(directory: URL, at prefix: String = "/") {
        let prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
        state.withLock { $0.directories.append((prefix, directory.standardizedFileURL)) }
    }

    /// Answers `path` with a redirect to `location` (relative locations are sent as given).
    public func redirect(path: String, to location: String, status: Int = 302) {
        state.withLock { $0.redirects[path] = (location, status) }
    }

    /// Makes every answer for `path` end its body at byte `byte` of the resource, for good: a
    /// server that answers each try and never delivers past that byte. Nil lifts it.
    public func endBodies(path: String, atByte byte: Int64?) {
        state.withLock { $0.resources[path]?.endsAt = byte }
    }

    /// Makes every `Range` request for `path` get a 206 with a `Content-Range` and no byte, for good.
    public func answerRangesWithNoByte(path: String) {
        state.withLock { $0.resources[path]?.emptyRanges = true }
    }

    /// Appends faults to those still pending for `path`.
    public func addFaults(_ faults: [Fault], for path: String) {
        state.withLock { $0.resources[path]?.faults.append(contentsOf: faults) }
    }

    /// Removes a resource or redirect.
    public func remove(path: String) {
        state.withLock {
            $0.resources[path] = nil
            $0.redirects[path] = nil
        }
    }

    private func register(
        path: String, content: Content, contentType: String, contentEncoding: String? = nil, etag: String?,
        lastModified: Date?, faults: [Fault], bytesPerSecond: Int?, authorization: String? = nil
    ) {
        let resource = Resource(
            content: content, contentType: contentType, contentEncoding: contentEncoding, etag: etag,
            lastModified: lastModified.map(Self.httpDate), faults: faults, bytesPerSecond: bytesPerSecond,
            authorization: authorization)
        state.withLock { $0.resources[path] = resource }
    }

    // MARK: - Recorded requests

    /// Every request received so far, oldest first.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The requests received for `path`, oldest first.
    public func requests(for path: String) -> [Request] {
        state.withLock { $0.requests.filter { $0.path == path } }
    }

    /// Forgets the recorded requests.
    public func clearRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    // MARK: - Generated content

    /// The deterministic bytes a generated resource serves at `offset`.
    /// The pattern has a period of ``patternPeriod`` bytes (a prime, so that a body
    /// shifted by any amount smaller than that compares unequal).
    public static func generatedBytes(offset: Int64, count: Int) -> Data {
        var data = Data(capacity: count)
        var position = offset
        var remaining = count
        while remaining > 0 {
            let start = Int(position % Int64(patternPeriod))
            let length = min(remaining, patternPeriod - start)
            data.append(contentsOf: pattern.getSlice(at: start, length: length)!.readableBytesView)
            position += Int64(length)
            remaining -= length
        }
        return data
    }

    /// The period of the generated pattern.
    public static let patternPeriod = 1_048_573

    static let chunkSize = 64 * 1024

    /// The pattern, with `chunkSize` extra bytes at the end so that any chunk is one slice.
    static let pattern: ByteBuffer = {
        var buffer = ByteBufferAllocator().buffer(capacity: patternPeriod + chunkSize)
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: patternPeriod)
        for i in 0..<patternPeriod {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            bytes[i] = UInt8(truncatingIfNeeded: x >> 24)
        }
        buffer.writeBytes(bytes)
        buffer.writeBytes(bytes[0..<chunkSize])
        return buffer
    }()

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    // MARK: - Answering

    /// What to send for one request, decided under the lock.
    enum Plan: Sendable {
        case simple(status: Int, headers: [(String, String)], body: String)
        case body(status: Int, headers: [(String, String)], content: Content, range: ClosedRange<Int64>?,
                  fault: Fault?, bytesPerSecond: Int?, endsAt: Int64? = nil)
    }

    func respond(to head: HTTPRequestHead, on channel: any Channel) async {
        let plan = plan(for: head)
        let keepAlive = head.isKeepAlive
        do {
            switch plan {
            case .simple(let status, let headers, let body):
                var responseHead = HTTPResponseHead(version: head.version, status: .init(statusCode: status))
                for (name, value) in headers { responseHead.headers.add(name: name, value: value) }
                responseHead.headers.replaceOrAdd(name: "Content-Length", value: String(body.utf8.count))
                if !keepAlive { responseHead.headers.replaceOrAdd(name: "Connection", value: "close") }
                channel.write(HTTPServerResponsePart.head(responseHead), promise: nil)
                if head.method != .HEAD && !body.isEmpty {
                    channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
                }
                try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
                if !keepAlive { try? await channel.close() }
            case .body(let status, let headers, let content, let range, let fault, let bytesPerSecond, let endsAt):
                var responseHead = HTTPResponseHead(version: head.version, status: .init(statusCode: status))
                for (name, value) in headers { responseHead.headers.add(name: name, value: value) }
                let start = range?.lowerBound ?? 0
                let end = range.map { $0.upperBound + 1 } ?? content.size
                responseHead.headers.replaceOrAdd(name: "Content-Length", value: String(end - start))
                if !keepAlive { responseHead.headers.replaceOrAdd(name: "Connection", value: "close") }
                try await channel.writeAndFlush(HTTPServerResponsePart.head(responseHead))
                if head.method == .HEAD {
                    try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
                    return
                }
                try await streamBody(
                    content, from: start, to: end, fault: fault, bytesPerSecond: bytesPerSecond, endsAt: endsAt,
                    on: channel)
                if !keepAlive { try? await channel.close() }
            }
        } catch {
            try? await channel.close()
        }
    }

    private func plan(for head: HTTPRequestHead) -> Plan {
        let path = String(head.uri.prefix { $0 != "?" })
        return state.withLock { state -> Plan in
            state.requests.append(Request(method: "\(head.method)", path: path, uri: head.uri, headers: head.headers))
            if let redirect = state.redirects[path] {
                return .simple(status: redirect.status, headers: [("Location", redirect.location)], body: "")
            }
            var resource: Resource
            if let registered = state.resources[path] {
                resource = registered
            } else if let fromDirectory = Self.resource(forPath: path, in: state.directories) {
                resource = fromDirectory
            } else {
                return Self.notFound
            }
            let fault = resource.faults.isEmpty ? nil : resource.faults.removeFirst()
            if case .changeContent(let data, let etag) = fault {
                resource.content = .buffer(ByteBuffer(bytes: data))
                resource.etag = etag
            }
            if state.resources[path] != nil { state.resources[path] = resource }
            return Self.plan(for: head, resource: resource, fault: fault)
        }
    }

    static let notFound = Plan.simple(
        status: 404, headers: [("Content-Type", "text/plain")], body: "Not Found\n")

    private static func plan(for head: HTTPRequestHead, resource: Resource, fault: Fault?) -> Plan {
        if let authorization = resource.authorization, head.headers.first(name: "Authorization") != authorization {
            return .simple(
                status: 401, headers: [("WWW-Authenticate", "Basic realm=\"test\""), ("Content-Type", "text/plain")],
                body: "401 Unauthorized\n")
        }
        let size = resource.content.size
        var headers: [(String, String)] = [("Content-Type", resource.contentType), ("Accept-Ranges", "bytes")]
        if let contentEncoding = resource.contentEncoding { headers.append(("Content-Encoding", contentEncoding)) }
        if let etag = resource.etag { headers.append(("ETag", etag)) }
        if let lastModified = resource.lastModified { headers.append(("Last-Modified", lastModified)) }
        switch fault {
        case .notFound:
            return notFound
        case .status(let code, let retryAfter):
            var extra: [(String, String)] = [("Content-Type", "text/plain")]
            if let retryAfter { extra.append(("Retry-After", String(retryAfter))) }
            let phrase = HTTPResponseStatus(statusCode: code).reasonPhrase
            return .simple(status: code, headers: extra, body: "\(code) \(phrase)\n")
        case .htmlPage:
            return .simple(
                status: 200, headers: [("Content-Type", "text/html; charset=utf-8")],
                body: "<!DOCTYPE html>\n<html><head><title>Oops</title></head><body>Episode unavailable</body></html>\n")
        case .status416:
            return .simple(
                status: 416, headers: [("Content-Range", "bytes */\(size)"), ("Content-Type", "text/plain")],
                body: "Range Not Satisfiable\n")
        default:
            break
        }
        // Conditional GET: If-None-Match wins over If-Modified-Since (RFC 9110, 13.2.2).
        let notModified: Bool
        if let ifNoneMatch = head.headers.first(name: "If-None-Match") {
            notModified = resource.etag.map { etag in ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag } } ?? false
        } else if let ifModifiedSince = head.headers.first(name: "If-Modified-Since") {
            notModified = ifModifiedSince == resource.lastModified
        } else {
            notModified = false
        }
        if notModified {
            return .simple(status: 304, headers: headers.filter { $0.0 == "ETag" || $0.0 == "Last-Modified" }, body: "")
        }
        var honourRange = fault != .ignoreRange
        if let ifRange = head.headers.first(name: "If-Range") {
            let matches = (ifRange == resource.etag && !ifRange.hasPrefix("W/")) || ifRange == resource.lastModified
            honourRange = honourRange && matches
        }
        if honourRange, let rangeHeader = head.headers.first(name: "Range"),
            var requested = parseRange(rangeHeader)
        {
            if case .rangeFrom(let offset) = fault { requested = (offset, nil) }
            guard requested.start < size else {
                headers.append(("Content-Range", "bytes */\(size)"))
                return .simple(status: 416, headers: headers, body: "")
            }
            let last = min(requested.end ?? (size - 1), size - 1)
            headers.append(("Content-Range", "bytes \(requested.start)-\(last)/\(size)"))
            if resource.emptyRanges {
                return .simple(status: 206, headers: headers, body: "")
            }
            return .body(
                status: 206, headers: headers, content: resource.content, range: requested.start...last,
                fault: fault, bytesPerSecond: resource.bytesPerSecond, endsAt: resource.endsAt)
        }
        return .body(
            status: 200, headers: headers, content: resource.content, range: nil,
            fault: fault, bytesPerSecond: resource.bytesPerSecond, endsAt: resource.endsAt)
    }

    /// Parses a single `bytes=N-` or `bytes=N-M` range (suffix ranges are not supported).
    static func parseRange(_ header: String) -> (start: Int64, end: Int64?)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int64(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
        let endText = parts[1].trimmingCharacters(in: .whitespaces)
        if endText.isEmpty { return (start, nil) }
        guard let end = Int64(endText), end >= start else { return nil }
        return (start, end)
    }

    private static func resource(forPath path: String, in directories: [(prefix: String, directory: URL)]) -> Resource? {
        for (prefix, directory) in directories where path.hasPrefix(prefix) {
            let relative = String(path.dropFirst(prefix.count)).removingPercentEncoding ?? ""
            guard !relative.isEmpty, !relative.split(separator: "/").contains("..") else { continue }
            let file = directory.appendingPathComponent(relative)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let size = (attributes[.size] as? NSNumber)?.int64Value
            else { continue }
            let modified = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
            return Resource(
                content: .file(file, size: size), contentType: contentType(forExtension: file.pathExtension),
                contentEncoding: nil, etag: "\"\(size)-\(Int64(modified.timeIntervalSince1970 * 1000))\"",
                lastModified: httpDate(modified), faults: [], bytesPerSecond: nil)
        }
        return nil
    }

    private static func contentType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "mp3": return "audio/mpeg"
        case "m4a": return "audio/mp4"
        case "ogg": return "audio/ogg"
        case "opus": return "audio/opus"
        case "mp4": return "video/mp4"
        case "xml", "rss": return "application/rss+xml"
        case "json": return "application/json"
        case "html": return "text/html"
        default: return "application/octet-stream"
        }
    }

    /// Writes `content[start..<end]` in chunks, keeping at most a few chunks in flight,
    /// and applies the body faults.
    private func streamBody(
        _ content: Content, from start: Int64, to end: Int64, fault: Fault?, bytesPerSecond: Int?, endsAt: Int64?,
        on channel: any Channel
    ) async throws {
        var limit = min(end, max(start, endsAt ?? end))  // stop (and close) here
        var stallAt: Int64?
        var stallSeconds = 0.0
        switch fault {
        case .dropAfter(let bytes), .shortBody(let bytes):
            limit = min(end, start + Int64(bytes))
        case .stall(let afterBytes, let seconds):
            stallAt = start + Int64(afterBytes)
            stallSeconds = seconds
        default:
            break
        }
        var chunk = Self.chunkSize
        if let bytesPerSecond { chunk = max(1, min(chunk, bytesPerSecond / 20)) }
        let file: FileHandle? = if case .file(let url, _) = content { try FileHandle(forReadingFrom: url) } else { nil }
        defer { try? file?.close() }
        let began = ContinuousClock.now
        var inFlight: [EventLoopFuture<Void>] = []
        var offset = start
        while offset < limit {
            if let at = stallAt, offset >= at {
                stallAt = nil
                for future in inFlight { try await future.get() }
                inFlight.removeAll()
                let until = ContinuousClock.now + .seconds(stallSeconds)
                while ContinuousClock.now < until {
                    guard channel.isActive, !state.withLock({ $0.stopped }) else { return }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            var length = Int(min(Int64(chunk), limit - offset))
            if let at = stallAt { length = Int(min(Int64(length), max(1, at - offset))) }
            let buffer: ByteBuffer
            switch content {
            case .buffer(let whole):
                buffer = whole.getSlice(at: whole.readerIndex + Int(offset), length: length)!
            case .generated:
                buffer = Self.pattern.getSlice(at: Int(offset % Int64(Self.patternPeriod)), length: length)!
            case .file:
                try file!.seek(toOffset: UInt64(offset))
                buffer = ByteBuffer(bytes: try file!.read(upToCount: length) ?? Data())
                guard buffer.readableBytes == length else { throw CancellationError() }
            }
            inFlight.append(channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))))
            offset += Int64(length)
            if inFlight.count >= 4 {
                try await inFlight.removeFirst().get()
            }
            if let bytesPerSecond {
                let due = began + .seconds(Double(offset - start) / Double(bytesPerSecond))
                if due > ContinuousClock.now { try await Task.sleep(until: due, clock: .continuous) }
                guard !state.withLock({ $0.stopped }) else { return }
            }
        }
        for future in inFlight { try await future.get() }
        if limit < end {
            if case .dropAfter = fault {
                if let provider = channel as? any SocketOptionProvider {
                    try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                }
            }
            try? await channel.close()
            return
        }
        try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
    }
}

/// Holds the server once it exists, for the request handlers created before that. The
/// reference is weak: the server holds the box too (to listen again after a stop).
final class TestServerBox: Sendable {
    private struct Reference {
        weak var server: TestServer?
    }

    private let reference = TestServerLockedState(Reference())

    var server: TestServer? {
        get { reference.withLock { $0.server } }
        set { reference.withLock { $0.server = newValue } }
    }
}

final class TestServerRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: TestServerBox
    private var head: HTTPRequestHead?

    init(box: TestServerBox) {
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head, let server = box.server else { return }
            self.head = nil
            let channel = context.channel
            Task { await server.respond(to: head, on: channel) }
        }
    }
}

/// A value behind a lock (NIOConcurrencyHelpers is not a dependency of this target).
final class TestServerLockedState<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
