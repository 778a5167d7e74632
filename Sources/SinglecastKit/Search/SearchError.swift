import Foundation

/// A search that could not be answered.
public enum SearchError: LocalizedError, Equatable, Sendable {
    /// The request failed: HTTP error status, timeout, unreachable host.
    case request(HTTPError)
    /// The answer from `url` is not the JSON the iTunes Search API sends.
    case invalidAnswer(url: URL, detail: String)

    public var errorDescription: String? {
        switch self {
        case .request(let error):
            return "search failed: \(error.localizedDescription)"
        case .invalidAnswer(let url, let detail):
            return "search failed: \(url.redacted) did not answer with iTunes Search JSON (\(detail))"
        }
    }
}
