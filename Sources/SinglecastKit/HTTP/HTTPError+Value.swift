import Foundation

/// The keys of a failure stored or printed as a value (a download's, an extra's): its `kind`
/// and the details that kind has. Shared, so that one detail has one name everywhere.
enum FailureKeys: String, CodingKey {
    case kind, url, status, errno, lookupCode, detail, refused, expectedType, received, expected, at, total, path,
        operation, retryAfterSeconds, gaveUpAfterSeconds, mismatch, from, redirect, limit
}

/// A failure value as one line of JSON, its kind and details (never a sentence): the text a
/// row stores for it, and its `description` in logs.
func failureJSON(_ failure: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(failure)).map { String(decoding: $0, as: UTF8.self) } ?? "\(type(of: failure))"
}

extension HTTPError {
    /// The machine-readable kind of the failure (`http-status`, `unreachable`, `host-not-found`, …).
    public var kind: String {
        switch reason {
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
    }

    /// Writes the details of the failure's kind (not the kind and the URL, which the caller writes).
    func encodeDetails(to container: inout KeyedEncodingContainer<FailureKeys>) throws {
        switch reason {
        case .status(let code): try container.encode(code, forKey: .status)
        case .unreachable(.system(let code)): try container.encode(code, forKey: .errno)
        case .unreachable(.nameResolution(let code)): try container.encode(code, forKey: .lookupCode)
        case .redirect(.withoutLocation(let status)):
            try container.encode("without-location", forKey: .redirect)
            try container.encode(status, forKey: .status)
        case .redirect(.tooMany(let limit)):
            try container.encode("too-many", forKey: .redirect)
            try container.encode(limit, forKey: .limit)
        case .unreachable(.other(let text)), .tlsHandshakeFailed(let text):
            try container.encode(text.redactingURLPasswords, forKey: .detail)
        case .bodyTooLarge(let limit): try container.encode(limit, forKey: .expected)
        case .unauthorized(let refused): try container.encode(refused, forKey: .refused)
        case .connectTimeout, .readTimeout, .unsupportedURL, .connectionClosed, .certificateNotTrusted,
            .certificateExpired, .certificateWrongHost:
            break
        }
    }

    /// The failure a stored `kind` and its details describe, for `url`; nil when the kind is not
    /// one of HTTP's.
    static func stored(kind: String, url: String, from container: KeyedDecodingContainer<FailureKeys>) throws -> HTTPError? {
        func string(_ key: FailureKeys) throws -> String { try container.decode(String.self, forKey: key) }
        let reason: Reason
        switch kind {
        case "http-status": reason = .status(try container.decode(Int.self, forKey: .status))
        case "connect-timeout": reason = .connectTimeout
        case "read-timeout": reason = .readTimeout
        case "host-not-found": reason = .unreachable(.nameResolution(code: try container.decode(Int32.self, forKey: .lookupCode)))
        case "unreachable":
            if let code = try container.decodeIfPresent(Int32.self, forKey: .errno) {
                reason = .unreachable(.system(errno: code))
            } else {
                reason = .unreachable(.other(try container.decodeIfPresent(String.self, forKey: .detail) ?? ""))
            }
        case "redirect" where try container.decodeIfPresent(String.self, forKey: .redirect) == "without-location":
            reason = .redirect(.withoutLocation(status: try container.decode(Int.self, forKey: .status)))
        case "redirect" where try container.decodeIfPresent(String.self, forKey: .redirect) == "too-many":
            reason = .redirect(.tooMany(limit: try container.decode(Int.self, forKey: .limit)))
        case "unsupported-url": reason = .unsupportedURL
        case "body-too-large": reason = .bodyTooLarge(try container.decode(Int.self, forKey: .expected))
        case "connection-closed": reason = .connectionClosed
        case "unauthorized": reason = .unauthorized(refused: try container.decode(Bool.self, forKey: .refused))
        case "certificate-not-trusted": reason = .certificateNotTrusted
        case "certificate-expired": reason = .certificateExpired
        case "certificate-wrong-host": reason = .certificateWrongHost
        case "tls-handshake-failed": reason = .tlsHandshakeFailed(try string(.detail))
        default: return nil
        }
        return HTTPError(reason, url: URL(string: url) ?? URL(fileURLWithPath: "/"))
    }
}
