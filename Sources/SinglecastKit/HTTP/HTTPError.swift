import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A failure to fetch a URL, as a value: what went wrong and the URL involved (the executable
/// words it).
public struct HTTPError: Error, Hashable, Sendable {
    /// What went wrong, independent of the URL.
    public enum Reason: Hashable, Sendable {
        /// The server answered with a status Singlecast cannot use.
        case status(Int)
        /// Connecting took longer than the connect timeout.
        case connectTimeout
        /// The server stopped sending for longer than the read timeout.
        case readTimeout
        /// The host could not be reached (DNS failure, refused or reset connection), and why.
        case unreachable(NetworkCause)
        /// A redirect chain went past the hop limit or pointed nowhere.
        case redirect(RedirectProblem)
        /// The URL is not an http(s) URL.
        case unsupportedURL
        /// The body was larger than the caller allows.
        case bodyTooLarge(Int)
        /// The connection closed before the whole body arrived.
        case connectionClosed
        /// The server wants a user name and password (HTTP 401); `refused` when some were sent.
        case unauthorized(refused: Bool)
        /// The server's certificate does not lead to a trusted root.
        case certificateNotTrusted
        /// The server's certificate has expired (or is not valid yet).
        case certificateExpired
        /// The server's certificate is for another host name.
        case certificateWrongHost
        /// The TLS handshake failed for another reason.
        case tlsHandshakeFailed(String)
    }

    public var reason: Reason
    public var url: URL

    public init(_ reason: Reason, url: URL) {
        self.reason = reason
        self.url = url
    }

    /// Whether trying again later might succeed: timeouts, dropped connections, failed
    /// TLS handshakes, 408, 429 and 5xx answers. Certificate problems and 401 are not.
    public var isTransient: Bool {
        switch reason {
        case .status(let code): return code == 408 || code == 429 || (500...599).contains(code)
        case .connectTimeout, .readTimeout, .unreachable, .connectionClosed, .tlsHandshakeFailed: return true
        case .redirect, .unsupportedURL, .bodyTooLarge, .unauthorized,
            .certificateNotTrusted, .certificateExpired, .certificateWrongHost:
            return false
        }
    }

    /// Translates an error thrown by async-http-client or SwiftNIO for a request to `url`.
    static func wrapping(_ error: any Error, url: URL) -> any Error {
        if error is HTTPError || error is CancellationError { return error }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return HTTPError(.connectTimeout, url: url)
            case .readTimeout, .deadlineExceeded:
                return HTTPError(.readTimeout, url: url)
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return HTTPError(.connectionClosed, url: url)
            case .cancelled:
                return CancellationError()
            case .invalidURL, .emptyHost, .emptyScheme:
                return HTTPError(.unsupportedURL, url: url)
            default:
                return HTTPError(.unreachable(.other(String(describing: clientError))), url: url)
            }
        }
        // A connection closed in the middle of an answer's head or body.
        if let parserError = error as? HTTPParserError, parserError == .invalidEOFState {
            return HTTPError(.connectionClosed, url: url)
        }
        if let tlsError = error as? NIOSSLError {
            return HTTPError(reason(for: tlsError), url: url)
        }
        if let tlsError = error as? NIOSSLExtraError, tlsError == .failedToValidateHostname {
            return HTTPError(.certificateWrongHost, url: url)
        }
        if let channelError = error as? ChannelError {
            switch channelError {
            case .connectTimeout: return HTTPError(.connectTimeout, url: url)
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return HTTPError(.connectionClosed, url: url)
            default: break
            }
        }
        if let cause = NetworkCause.of(error) {
            return HTTPError(.unreachable(cause), url: url)
        }
        return HTTPError(.unreachable(.other(String(describing: error))), url: url)
    }

    /// A certificate that failed verification is reported as not trusted (BoringSSL does not
    /// say why); ``CertificateProbe`` looks at it again to tell an expired one.
    private static func reason(for error: NIOSSLError) -> Reason {
        switch error {
        case .handshakeFailed(.sslError(let stack)) where stack.contains { "\($0)".contains("CERTIFICATE_VERIFY_FAILED") }:
            return .certificateNotTrusted
        case .handshakeFailed(let cause):
            return .tlsHandshakeFailed(describe(cause))
        case .uncleanShutdown:
            return .connectionClosed
        default:
            return .tlsHandshakeFailed("\(error)")
        }
    }

    /// BoringSSL's error stack as the names of its errors (`WRONG_VERSION_NUMBER`),
    /// without codes and source file names.
    private static func describe(_ error: BoringSSLError) -> String {
        guard case .sslError(let stack) = error else { return "\(error)" }
        // "Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at …"
        let names = stack.map { entry in
            let text = "\(entry)"
            let beforeFile = text.components(separatedBy: " at ").first ?? text
            return beforeFile.split(separator: ":").last.map(String.init) ?? text
        }
        return names.isEmpty ? "\(error)" : names.joined(separator: ", ")
    }
}

extension HTTPError {
    /// How following redirects failed.
    public enum RedirectProblem: Hashable, Sendable {
        /// A redirect with `status` had no Location, or one that is not a URL.
        case withoutLocation(status: Int)
        /// The chain was longer than `limit` redirects.
        case tooMany(limit: Int)
    }
}
