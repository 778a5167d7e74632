import Foundation

/// A search that could not be answered, as a value (the executable words it).
public enum SearchError: Error, Equatable, Sendable {
    /// The request failed: HTTP error status, timeout, unreachable host.
    case request(HTTPError)
    /// The answer from `url` is not the JSON the iTunes Search API sends, and how.
    case invalidAnswer(url: URL, problem: AnswerProblem)

    /// How an answer differs from the API's JSON.
    public enum AnswerProblem: Equatable, Sendable {
        /// It is not JSON at all.
        case notJSON
        /// An object lacks a field the API always sends (its path, such as `results`).
        case missingField(String)
        /// A field holds a value of another type, or null (its path, such as `results.0.trackId`).
        case unexpectedValue(at: String)
    }
}
