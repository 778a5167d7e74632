import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// The HTTP client Singlecast uses: a real `User-Agent`, connect and read
/// timeouts, and redirects followed by hand so that callers learn the final URL
/// and whether every hop was permanent.
///
/// Basic authentication: the user name and password in a URL's user info go only to that
/// URL's origin (scheme, host and port), never to another one a redirect leads to, and are
/// never part of the URL requested; without them, the entry of the netrc file (`$NETRC`,
/// else `~/.netrc`) for the host requested is sent. Trust roots: the system's, plus those
/// in `SSL_CERT_FILE`; `SSL_CERT_DIR` replaces the system's folder, as in OpenSSL.
///
/// A session owns an async-http-client `HTTPClient`, made for its first request (a command that
/// finds what it needs in the library never pays for one); call ``shutdown()`` when done.
public final class HTTPSession: Sendable {
    /// How a session behaves.
    public struct Configuration: Sendable {
        /// Sent with every request; some podcast hosts refuse requests without one.
        public var userAgent: String = "Singlecast/\(SinglecastVersion.current) (Linux; podcast client)"
        /// How long connecting may take.
        public var connectTimeout: Duration = .seconds(10)
        /// How long the server may go without sending a byte.
        public var readTimeout: Duration = .seconds(30)
        /// Ask for gzip and inflate responses (for feeds and JSON; never for media with ranges).
        public var acceptsCompression: Bool = false
        /// How many redirects one request may follow.
        public var maximumRedirects: Int = 10
        /// The variables read for `NETRC`, `HOME`, `SSL_CERT_FILE` and `SSL_CERT_DIR`.
        public var environment: [String: String] = ProcessInfo.processInfo.environment
        /// Where requests are logged (at debug level, URLs redacted).
        public var logger = Logger(label: "singlecast.http")

        public init() {}
    }

    /// A response whose head has arrived; its body is still to be read.
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: HTTPClientResponse.Body
        /// The URL that answered, after all redirects; it keeps the user info of the URL
        /// asked for while on that URL's origin.
        public var finalURL: URL
        /// The URL to remember for the resource: the final URL when every redirect
        /// was permanent (301 or 308), else the last URL reached through permanent ones.
        public var permanentURL: URL
        /// Whether the request that got this answer carried credentials.
        public var sentCredentials: Bool
    }

    public let configuration: Configuration
    /// The client once a request has made it; nil after ``shutdown()`` too.
    private let madeClient = Mutex<(client: HTTPClient?, isShutDown: Bool)>((nil, false))

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The session's client, made on first use; after ``shutdown()``, the error a client shut
    /// down throws.
    private func client() throws -> HTTPClient {
        try madeClient.withLock { made in
            guard !made.isShutDown else { throw HTTPClientError.alreadyShutdown }
            if let client = made.client { return client }
            let client = Self.makeClient(configuration)
            made.client = client
            return client
        }
    }

    private static func makeClient(_ configuration: Configuration) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(
                connect: .init(configuration.connectTimeout),
                read: .init(configuration.readTimeout)
            ),
            decompression: configuration.acceptsCompression
                ? .enabled(limit: .size(512 * 1_048_576)) : .disabled
        )
        clientConfiguration.httpVersion = .http1Only
        // A failed connection (refused, or a certificate problem) is reported at once instead of
        // being retried until the connect timeout: callers such as FileTransfer do their own retries.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.tlsConfiguration = Self.tlsConfiguration(configuration.environment, logger: configuration.logger)
        // Reads of up to 512 KiB instead of NIO's 64 KiB: a fast download hands fewer, larger
        // buffers from the event loop to the task writing the file.
        clientConfiguration.http1_1ConnectionDebugInitializer = { channel in
            channel.setOption(
                ChannelOptions.recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 4096, initial: 65_536, maximum: 524_288))
        }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// Closes the connections; the session cannot be used afterwards.
    public func shutdown() async throws {
        let client = madeClient.withLock { made in
            defer { made = (nil, true) }
            return made.client
        }
        try await client?.shutdown()
    }

    /// A request as ``send(_:)`` makes it, on every hop of a redirect chain.
    public struct Request: Sendable {
        public var method: HTTPMethod
        public var url: URL
        /// Sent on every hop, besides `User-Agent` and `Accept-Encoding`.
        public var headers: [(String, String)]
        /// The body and its `Content-Type`; a 303 answer turns the request into a GET without them.
        public var body: Data?
        public var contentType: String?
        /// The credential headers for a hop to a URL; nil: the URL's user name and password, else
        /// the netrc entry for its host, as basic authentication (see ``HTTPSession``).
        public var credentials: (@Sendable (URL) -> [(String, String)])?
        /// Called once the connection has taken the whole body.
        public var handedOver: (@Sendable () -> Void)?

        public init(
            _ method: HTTPMethod = .GET, _ url: URL, headers: [(String, String)] = [], body: Data? = nil,
            contentType: String? = nil, credentials: (@Sendable (URL) -> [(String, String)])? = nil,
            handedOver: (@Sendable () -> Void)? = nil
        ) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.contentType = contentType
            self.credentials = credentials
            self.handedOver = handedOver
        }
    }

    /// Sends a GET for `url` (see ``send(_:)``); a 401 throws ``HTTPError/Reason/unauthorized(refused:)``.
    public func get(_ url: URL, headers: [(String, String)] = []) async throws -> Response {
        let response = try await send(Request(.GET, url, headers: headers))
        if response.status == 401 {
            try await discard(response.body, url: response.finalURL)
            throw HTTPError(.unauthorized(refused: response.sentCredentials), url: response.finalURL)
        }
        return response
    }

    /// Sends `request`, following up to ``Configuration/maximumRedirects`` redirects (relative
    /// `Location` included; 301, 302, 307 and 308 with the same method and body, 303 as a GET),
    /// and returns the first answer that is not a redirect, its body still to be read.
    /// Statuses are the caller's to judge. The one way Singlecast sends a request.
    public func send(_ request: Request) async throws -> Response {
        let netrcPath = Credentials.netrcPath(environment: configuration.environment)
        var current = request.url
        var method = request.method
        var body = request.body
        var permanentURL = request.url
        var stillPermanent = true
        for _ in 0...configuration.maximumRedirects {
            guard let scheme = current.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw HTTPError(.unsupportedURL, url: current)
            }
            var outgoing = HTTPClientRequest(url: current.removingUserInfo.absoluteString)
            outgoing.method = method
            outgoing.headers.add(name: "User-Agent", value: configuration.userAgent)
            if configuration.acceptsCompression {
                outgoing.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
            }
            for (name, value) in request.headers {
                outgoing.headers.add(name: name, value: value)
            }
            let credentials =
                request.credentials?(current)
                ?? Credentials.forRequest(to: current, netrcPath: netrcPath).map { [("Authorization", $0.authorization)] } ?? []
            for (name, value) in credentials {
                outgoing.headers.replaceOrAdd(name: name, value: value)
            }
            if let body {
                if let contentType = request.contentType { outgoing.headers.add(name: "Content-Type", value: contentType) }
                let bytes = ByteBuffer(bytes: body)
                if let handedOver = request.handedOver {
                    outgoing.body = .stream(WholeBody(bytes: bytes, handedOver: handedOver), length: .known(Int64(bytes.readableBytes)))
                } else {
                    outgoing.body = .bytes(bytes)
                }
            }
            let response: HTTPClientResponse
            do {
                response = try await client().execute(outgoing, timeout: .init(configuration.readTimeout + configuration.connectTimeout))
            } catch {
                throw await CertificateProbe.refine(HTTPError.wrapping(error, url: current), timeout: configuration.connectTimeout)
            }
            let status = Int(response.status.code)
            configuration.logger.debug("\(method.rawValue)", metadata: ["url": "\(current.redacted)", "status": "\(status)"])
            guard Self.redirectStatuses.contains(status) else {
                return Response(
                    status: status, headers: response.headers, body: response.body, finalURL: current,
                    permanentURL: permanentURL, sentCredentials: !credentials.isEmpty)
            }
            guard let location = response.headers.first(name: "Location"),
                let next = URL(string: location, relativeTo: current)?.absoluteURL.carryingUserInfo(from: current)
            else {
                throw HTTPError(.redirect(.withoutLocation(status: status)), url: current)
            }
            try await discard(response.body, url: current)
            if status == 303 && method != .HEAD {
                method = .GET
                body = nil
            }
            stillPermanent = stillPermanent && (status == 301 || status == 308)
            if stillPermanent { permanentURL = next }
            current = next
        }
        throw HTTPError(.redirect(.tooMany(limit: configuration.maximumRedirects)), url: request.url)
    }

    /// The answers that send the request elsewhere.
    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Reads a whole response body of at most `limit` bytes.
    public func collect(_ response: Response, upTo limit: Int) async throws -> Data {
        var data = Data()
        do {
            for try await buffer in response.body {
                guard data.count + buffer.readableBytes <= limit else {
                    throw HTTPError(.bodyTooLarge(limit), url: response.finalURL)
                }
                data.append(contentsOf: buffer.readableBytesView)
            }
        } catch {
            throw HTTPError.wrapping(error, url: response.finalURL)
        }
        return data
    }

    /// The system's trust roots plus the PEM file `SSL_CERT_FILE`; with `SSL_CERT_DIR`, as in
    /// OpenSSL, the first folder it names replaces the system's (certificates found by their
    /// hash names, see `openssl rehash`). Nothing is read here: certificates are loaded when
    /// a TLS connection needs them.
    private static func tlsConfiguration(_ environment: [String: String], logger: Logger) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        let fileManager = FileManager.default
        if let file = environment["SSL_CERT_FILE"] {
            if fileManager.isReadableFile(atPath: file) {
                tls.additionalTrustRoots = [.file(file)]
            } else {
                logger.warning("SSL_CERT_FILE cannot be read", metadata: ["file": "\(file)"])
            }
        }
        var isDirectory: ObjCBool = false
        if let directory = environment["SSL_CERT_DIR"]?.split(separator: ":").first.map(String.init),
            fileManager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        {
            tls.trustRoots = .file(directory)
        }
        return tls
    }

    /// Reads and drops a redirect's small body so the connection can be reused.
    private func discard(_ body: HTTPClientResponse.Body, url: URL) async throws {
        var received = 0
        do {
            for try await buffer in body {
                received += buffer.readableBytes
                if received > 65_536 { break }
            }
        } catch {
            throw HTTPError.wrapping(error, url: url)
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// A request body of one buffer that says when the connection has taken it: async-http-client
/// asks for what follows the buffer once it is written.
private struct WholeBody: AsyncSequence, Sendable {
    let bytes: ByteBuffer
    let handedOver: @Sendable () -> Void

    func makeAsyncIterator() -> Iterator { Iterator(bytes: bytes, handedOver: handedOver) }

    struct Iterator: AsyncIteratorProtocol {
        var bytes: ByteBuffer?
        let handedOver: @Sendable () -> Void

        mutating func next() async -> ByteBuffer? {
            if let first = bytes {
                bytes = nil
                return first
            }
            handedOver()
            return nil
        }
    }
}
