import Foundation

/// A search that could not be answered, as a value (the executable words it).
public enum SearchError: Error, Equatable, Sendable {
    /// The request failed: HTTP error status, timeout, unreachable host.
    case request(HTTPError)
    /// The answer from `url` is not the JSON the iTunes Search API sends.
    case invalidAnswer(url: URL, detail: String)
}
