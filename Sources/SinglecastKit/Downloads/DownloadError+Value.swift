import Foundation

/// A download's failure as a stored value: a `kind` (stable, machine-readable: `http-status`,
/// `unreachable`, `server-keeps-ending`, …) and the details that kind has (`status`, `errno`,
/// `received`, …), never a sentence. The library stores it (``Download/failure``), the daemon
/// sends it, and `--json` prints it as `error`; the executable words it.
extension DownloadError: Codable {
    /// The machine-readable kind of the failure.
    public var kind: String {
        switch reason {
        case .notAURL: "not-a-url"
        case .http(let error):
            switch error.reason {
            case .status: "http-status"
            case .connectTimeout: "connect-timeout"
            case .readTimeout: "read-timeout"
            case .unreachable(.nameResolution): "host-not-found"
            case .unreachable: "unreachable"
            case .redirect: "redirect"
            case .unsupportedURL: "unsupported-url"
            case .bodyTooLarge: "body-too-large"
            case .connectionClosed: "connection-closed"
            case .unauthorized: "unauthorized"
            case .certificateNotTrusted: "certificate-not-trusted"
            case .certificateExpired: "certificate-expired"
            case .certificateWrongHost: "certificate-wrong-host"
            case .tlsHandshakeFailed: "tls-handshake-failed"
            }
        case .htmlInsteadOfMedia: "html-instead-of-media"
        case .incomplete: "incomplete"
        case .oversized: "oversized"
        case .unusableRange: "unusable-range"
        case .serverKeepsEnding: "server-keeps-ending"
        case .noSpace: "no-space"
        case .fileSystem: "file-system"
        case .unexpected: "unexpected"
        }
    }

    enum CodingKeys: String, CodingKey {
        case kind, url, status, errno, lookupCode, detail, refused, expectedType, received, expected, at, total, path,
            operation, retryAfterSeconds, gaveUpAfterSeconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(url.redactingURLPasswords, forKey: .url)
        switch reason {
        case .notAURL: break
        case .http(let error):
            switch error.reason {
            case .status(let code): try container.encode(code, forKey: .status)
            case .unreachable(.system(let code)): try container.encode(code, forKey: .errno)
            case .unreachable(.nameResolution(let code)): try container.encode(code, forKey: .lookupCode)
            case .unreachable(.other(let text)), .redirect(let text), .tlsHandshakeFailed(let text):
                try container.encode(text.redactingURLPasswords, forKey: .detail)
            case .bodyTooLarge(let limit): try container.encode(limit, forKey: .expected)
            case .unauthorized(let refused): try container.encode(refused, forKey: .refused)
            case .connectTimeout, .readTimeout, .unsupportedURL, .connectionClosed, .certificateNotTrusted,
                .certificateExpired, .certificateWrongHost:
                break
            }
        case .htmlInsteadOfMedia(let expectedType): try container.encodeIfPresent(expectedType, forKey: .expectedType)
        case .incomplete(let received, let expected), .oversized(let received, let expected):
            try container.encode(received, forKey: .received)
            try container.encode(expected, forKey: .expected)
        case .unusableRange(let detail), .unexpected(let detail): try container.encode(detail, forKey: .detail)
        case .serverKeepsEnding(let at, let total):
            try container.encode(at, forKey: .at)
            try container.encodeIfPresent(total, forKey: .total)
        case .noSpace(let path): try container.encode(path, forKey: .path)
        case .fileSystem(let operation, let path, let code):
            try container.encode(operation, forKey: .operation)
            try container.encode(path, forKey: .path)
            try container.encode(code, forKey: .errno)
        }
        try container.encodeIfPresent(retryAfter.map { $0.components.seconds }, forKey: .retryAfterSeconds)
        try container.encodeIfPresent(gaveUpAfter.map { $0.components.seconds }, forKey: .gaveUpAfterSeconds)
    }

    /// Reads a stored failure; a kind this build does not know reads as `unexpected`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let text = try container.decode(String.self, forKey: .url)
        func int64(_ key: CodingKeys) throws -> Int64 { try container.decode(Int64.self, forKey: key) }
        func string(_ key: CodingKeys) throws -> String { try container.decode(String.self, forKey: key) }
        func http(_ reason: HTTPError.Reason) -> Reason {
            .http(HTTPError(reason, url: URL(string: text) ?? URL(fileURLWithPath: "/")))
        }
        let reason: Reason
        switch kind {
        case "not-a-url": reason = .notAURL
        case "http-status": reason = http(.status(try container.decode(Int.self, forKey: .status)))
        case "connect-timeout": reason = http(.connectTimeout)
        case "read-timeout": reason = http(.readTimeout)
        case "host-not-found": reason = http(.unreachable(.nameResolution(code: try container.decode(Int32.self, forKey: .lookupCode))))
        case "unreachable":
            if let code = try container.decodeIfPresent(Int32.self, forKey: .errno) {
                reason = http(.unreachable(.system(errno: code)))
            } else {
                reason = http(.unreachable(.other(try container.decodeIfPresent(String.self, forKey: .detail) ?? "")))
            }
        case "redirect": reason = http(.redirect(try string(.detail)))
        case "unsupported-url": reason = http(.unsupportedURL)
        case "body-too-large": reason = http(.bodyTooLarge(try container.decode(Int.self, forKey: .expected)))
        case "connection-closed": reason = http(.connectionClosed)
        case "unauthorized": reason = http(.unauthorized(refused: try container.decode(Bool.self, forKey: .refused)))
        case "certificate-not-trusted": reason = http(.certificateNotTrusted)
        case "certificate-expired": reason = http(.certificateExpired)
        case "certificate-wrong-host": reason = http(.certificateWrongHost)
        case "tls-handshake-failed": reason = http(.tlsHandshakeFailed(try string(.detail)))
        case "html-instead-of-media":
            reason = .htmlInsteadOfMedia(expectedType: try container.decodeIfPresent(String.self, forKey: .expectedType))
        case "incomplete": reason = .incomplete(received: try int64(.received), expected: try int64(.expected))
        case "oversized": reason = .oversized(received: try int64(.received), expected: try int64(.expected))
        case "unusable-range": reason = .unusableRange(try string(.detail))
        case "server-keeps-ending":
            reason = .serverKeepsEnding(at: try int64(.at), of: try container.decodeIfPresent(Int64.self, forKey: .total))
        case "no-space": reason = .noSpace(path: try string(.path))
        case "file-system":
            reason = .fileSystem(
                operation: try string(.operation), path: try string(.path), errno: try container.decode(Int32.self, forKey: .errno))
        default: reason = .unexpected(try container.decodeIfPresent(String.self, forKey: .detail) ?? kind)
        }
        self = DownloadError.stored(reason, url: text)
        retryAfter = try container.decodeIfPresent(Int64.self, forKey: .retryAfterSeconds).map { .seconds($0) }
        gaveUpAfter = try container.decodeIfPresent(Int64.self, forKey: .gaveUpAfterSeconds).map { .seconds($0) }
    }
}
