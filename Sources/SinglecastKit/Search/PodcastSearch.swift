import Foundation

/// A client of the iTunes Search API for podcasts.
public struct PodcastSearch: Sendable {
    /// The public API; `SINGLECAST_ITUNES_URL` overrides it (tests, offline use).
    public static let defaultBaseURL = URL(string: "https://itunes.apple.com")!

    private let session: HTTPSession
    private let baseURL: URL

    public init(session: HTTPSession, baseURL: URL = PodcastSearch.defaultBaseURL) {
        self.session = session
        self.baseURL = baseURL
    }

    /// The URL a search for `term` is sent to.
    public func url(term: String, limit: Int, country: String?) -> URL {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("search"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "term", value: term),
            URLQueryItem(name: "media", value: "podcast"),
            URLQueryItem(name: "entity", value: "podcast"),
            URLQueryItem(name: "limit", value: String(limit)),
        ]
        if let country {
            components.queryItems?.append(URLQueryItem(name: "country", value: country))
        }
        // URLComponents leaves "+" alone, which the API would read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?
            .replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// Searches for shows matching `term`; an empty array when nothing matches.
    public func search(term: String, limit: Int = 20, country: String? = nil) async throws -> [SearchResult] {
        let url = url(term: term, limit: limit, country: country)
        let body: Data
        do {
            let response = try await session.get(url)
            guard (200..<300).contains(response.status) else {
                throw HTTPError(.status(response.status), url: url)
            }
            body = try await session.collect(response, upTo: 16 * 1_048_576)
        } catch let error as HTTPError {
            throw SearchError.request(error)
        }
        do {
            return try JSONDecoder().decode(ITunesResponse.self, from: body).searchResults()
        } catch {
            throw SearchError.invalidAnswer(url: url, problem: Self.problem(error))
        }
    }

    private static func problem(_ error: any Error) -> SearchError.AnswerProblem {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return .missingField((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return .unexpectedValue(at: context.codingPath.map(\.stringValue).joined(separator: "."))
        default: return .notJSON
        }
    }
}
