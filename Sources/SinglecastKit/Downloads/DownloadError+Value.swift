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
        case .http(let error): error.kind
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

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FailureKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(url.redactingURLPasswords, forKey: .url)
        switch reason {
        case .notAURL: break
        case .http(let error): try error.encodeDetails(to: &container)
        case .htmlInsteadOfMedia(let expectedType): try container.encodeIfPresent(expectedType, forKey: .expectedType)
        case .incomplete(let received, let expected), .oversized(let received, let expected):
            try container.encode(received, forKey: .received)
            try container.encode(expected, forKey: .expected)
        case .unusableRange(.startsElsewhere(let from)):
            try container.encode("starts-elsewhere", forKey: .mismatch)
            try container.encode(from, forKey: .from)
        case .unusableRange(.notSatisfiable(let from)):
            try container.encode("not-satisfiable", forKey: .mismatch)
            try container.encode(from, forKey: .from)
        case .unexpected(let detail): try container.encode(detail, forKey: .detail)
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
        let container = try decoder.container(keyedBy: FailureKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let text = try container.decode(String.self, forKey: .url)
        func int64(_ key: FailureKeys) throws -> Int64 { try container.decode(Int64.self, forKey: key) }
        func string(_ key: FailureKeys) throws -> String { try container.decode(String.self, forKey: key) }
        let reason: Reason
        switch kind {
        case "not-a-url": reason = .notAURL
        case "html-instead-of-media":
            reason = .htmlInsteadOfMedia(expectedType: try container.decodeIfPresent(String.self, forKey: .expectedType))
        case "incomplete": reason = .incomplete(received: try int64(.received), expected: try int64(.expected))
        case "oversized": reason = .oversized(received: try int64(.received), expected: try int64(.expected))
        case "unusable-range" where try container.decodeIfPresent(String.self, forKey: .mismatch) == "starts-elsewhere":
            reason = .unusableRange(.startsElsewhere(from: try int64(.from)))
        case "unusable-range" where try container.decodeIfPresent(String.self, forKey: .mismatch) == "not-satisfiable":
            reason = .unusableRange(.notSatisfiable(from: try int64(.from)))
        case "server-keeps-ending":
            reason = .serverKeepsEnding(at: try int64(.at), of: try container.decodeIfPresent(Int64.self, forKey: .total))
        case "no-space": reason = .noSpace(path: try string(.path))
        case "file-system":
            reason = .fileSystem(
                operation: try container.decode(FileOperation.self, forKey: .operation), path: try string(.path),
                errno: try container.decode(Int32.self, forKey: .errno))
        default:
            if let http = try HTTPError.stored(kind: kind, url: text, from: container) {
                reason = .http(http)
            } else {
                reason = .unexpected(try container.decodeIfPresent(String.self, forKey: .detail) ?? kind)
            }
        }
        self = DownloadError.stored(reason, url: text)
        retryAfter = try container.decodeIfPresent(Int64.self, forKey: .retryAfterSeconds).map { .seconds($0) }
        gaveUpAfter = try container.decodeIfPresent(Int64.self, forKey: .gaveUpAfterSeconds).map { .seconds($0) }
    }
}

extension DownloadError: CustomStringConvertible {
    /// The failure as JSON, for logs (the executable words it for people).
    public var description: String { failureJSON(self) }
}
