import Foundation

/// Why a subscription's update failed, as a value: the HTTP failure, the feed's, or anything
/// else described. Stored with the podcast and printed by `--json` as `error` (its `kind` and
/// details); the executable words it.
public enum UpdateFailure: Hashable, Sendable {
    /// Fetching the feed failed (the server answered with an unusable status, or could not be reached).
    case http(HTTPError)
    /// The document is not a usable feed.
    case feed(FeedError)
    /// Anything else (or a failure stored as a sentence by an earlier version), described.
    case unexpected(String)

    /// The failure behind an error thrown by an update.
    public init(_ error: any Error) {
        if let http = error as? HTTPError {
            self = .http(http)
        } else if let feed = error as? FeedError {
            self = .feed(feed)
        } else {
            self = .unexpected(describing(error))
        }
    }

    /// Whether the feed's URL does not serve a feed at all (a 4xx other than 408 and 429, or a
    /// document that is not a feed), rather than failing for now (the network, a 5xx): a
    /// subscription is refused for it.
    public var isPermanent: Bool {
        switch self {
        case .http(let error):
            if case .status(let status) = error.reason { return (400..<500).contains(status) && status != 408 && status != 429 }
            return false
        case .feed: return true
        case .unexpected: return false
        }
    }

    /// The machine-readable kind: an HTTP kind (`http-status`, `unreachable`, …), a feed's
    /// (`not-a-feed`, `invalid-xml`, …) or `unexpected`.
    public var kind: String {
        switch self {
        case .http(let error): error.kind
        case .feed(let error): error.kind
        case .unexpected: "unexpected"
        }
    }
}

extension UpdateFailure: Codable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .http(let error):
            var container = encoder.container(keyedBy: FailureKeys.self)
            try container.encode(error.kind, forKey: .kind)
            try container.encode(error.url.absoluteString.redactingURLPasswords, forKey: .url)
            try error.encodeDetails(to: &container)
        case .feed(let error):
            try error.encode(to: encoder)
        case .unexpected(let detail):
            var container = encoder.container(keyedBy: FailureKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(detail, forKey: .detail)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FailureKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        if let url = try container.decodeIfPresent(String.self, forKey: .url),
            let http = try HTTPError.stored(kind: kind, url: url, from: container)
        {
            self = .http(http)
        } else if FeedError.Kind(rawValue: kind) != nil,
            let feed = try? FeedError(from: decoder)
        {
            self = .feed(feed)
        } else {
            self = .unexpected(try container.decodeIfPresent(String.self, forKey: .detail) ?? kind)
        }
    }

    /// The failure a podcast's row holds: a value, or a sentence an earlier version stored.
    static func stored(_ text: String) -> UpdateFailure {
        (try? JSONDecoder().decode(UpdateFailure.self, from: Data(text.utf8))) ?? .unexpected(text)
    }

    /// The text a podcast's row holds for the failure: its value as JSON.
    var storedText: String { failureJSON(self) }
}
