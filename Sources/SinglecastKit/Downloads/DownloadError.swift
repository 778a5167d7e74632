import Foundation

/// A failure to download an episode, as a value: what went wrong and the URL or file involved
/// (the executable words it).
///
/// Whether trying again may help is decided in one place, ``isTransient``; for HTTP
/// failures it defers to ``HTTPError/isTransient``.
public struct DownloadError: Error, Hashable, Sendable {
    /// What went wrong.
    public enum Reason: Hashable, Sendable {
        /// The enclosure's text is not a URL.
        case notAURL
        /// The request failed or the server answered with an unusable status.
        case http(HTTPError)
        /// The server sent an HTML page (an error or login page) instead of the media;
        /// the associated value is the type the feed announced, if any.
        case htmlInsteadOfMedia(expectedType: String?)
        /// The body ended before the announced size was reached.
        case incomplete(received: Int64, expected: Int64)
        /// The body was longer than the announced size.
        case oversized(received: Int64, expected: Int64)
        /// The server kept answering ranges that do not fit the partial file.
        case unusableRange(RangeMismatch)
        /// The server kept answering without bringing a byte past `at` (of `of`, when it
        /// announced a size): it ends every transfer at the same byte, or sends no byte at all.
        case serverKeepsEnding(at: Int64, of: Int64?)
        /// The disk (or the user's quota) is full; the partial file is kept.
        case noSpace(path: String)
        /// Another file-system operation failed.
        case fileSystem(operation: FileOperation, path: String, errno: Int32)
        /// Anything else (an error from outside the transfer, or a failure stored as a sentence
        /// by an earlier version), described.
        case unexpected(String)
    }

    public var reason: Reason
    /// The URL being downloaded, as text.
    public var url: String
    /// How long the server asked us to wait before retrying (`Retry-After`), if it did.
    public var retryAfter: Duration?
    /// Set when the transfer stopped waiting for the network: this long passed without a byte.
    public var gaveUpAfter: Duration?

    public init(_ reason: Reason, url: URL, retryAfter: Duration? = nil) {
        self.init(reason, text: url.absoluteString, retryAfter: retryAfter)
    }

    /// A failure as stored: `url` is the text of the URL, whatever it is.
    static func stored(_ reason: Reason, url: String) -> DownloadError {
        DownloadError(reason, text: url, retryAfter: nil)
    }

    /// The error for an enclosure whose text is not a URL.
    public static func notAURL(_ text: String) -> DownloadError {
        DownloadError(.notAURL, text: text, retryAfter: nil)
    }

    private init(_ reason: Reason, text: String, retryAfter: Duration?) {
        self.reason = reason
        self.url = text
        self.retryAfter = retryAfter
    }

    /// Whether a later attempt (resuming from the bytes on disk) may succeed.
    public var isTransient: Bool {
        switch reason {
        case .http(let error): return error.isTransient
        case .incomplete: return true
        case .notAURL, .htmlInsteadOfMedia, .oversized, .unusableRange, .serverKeepsEnding, .noSpace, .fileSystem,
            .unexpected:
            return false
        }
    }

    /// The short reason a transient failure gives for waiting (see ``RetryReason``).
    public var retryReason: RetryReason {
        switch reason {
        case .http(let error):
            switch error.reason {
            case .status(let code): return .http(code)
            case .connectTimeout: return .connectTimeout
            case .readTimeout: return .readTimeout
            case .connectionClosed: return .connectionLost
            case .tlsHandshakeFailed: return .tlsHandshake
            case .unreachable(let cause): return RetryReason(cause)
            default: return .unreachable
            }
        case .incomplete: return .connectionLost
        default: return .unreachable
        }
    }

    /// This failure, marked as the one the transfer gave up on after `quiet` without a byte.
    func givingUp(after quiet: Duration) -> DownloadError {
        var error = self
        error.gaveUpAfter = quiet
        return error
    }

    /// The HTTP status behind the failure, if there is one.
    public var httpStatus: Int? {
        if case .http(let error) = reason, case .status(let code) = error.reason { return code }
        return nil
    }

    /// The error for a failed file operation on `path`: a full disk or quota gets its own reason.
    static func fileSystem(_ operation: FileOperation, path: String, errno code: Int32, url: URL) -> DownloadError {
        if code == ENOSPC || code == EDQUOT {
            return DownloadError(.noSpace(path: path), url: url)
        }
        return DownloadError(.fileSystem(operation: operation, path: path, errno: code), url: url)
    }
}

extension DownloadError {
    /// How a server's answer to a resume from byte `from` did not fit the partial file.
    public enum RangeMismatch: Hashable, Sendable {
        /// A 206 whose range does not start at `from`.
        case startsElsewhere(from: Int64)
        /// 416 Range Not Satisfiable, though the file is longer than `from`.
        case notSatisfiable(from: Int64)
    }
}
