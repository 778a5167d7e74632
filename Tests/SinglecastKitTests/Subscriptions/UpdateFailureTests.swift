import Foundation
import Testing

@testable import SinglecastKit

/// A subscription's failed update is kept as a value, a kind and its details, and read back whole.
@Suite struct UpdateFailureTests {
    static let url = URL(string: "https://h/feed.xml")!

    static let cases: [(UpdateFailure, String)] = [
        (.http(HTTPError(.status(404), url: url)), "http-status"),
        (.http(HTTPError(.unreachable(.system(errno: ECONNREFUSED)), url: url)), "unreachable"),
        (.http(HTTPError(.unreachable(.nameResolution(code: EAI_NONAME)), url: url)), "host-not-found"),
        (.http(HTTPError(.certificateExpired, url: url)), "certificate-expired"),
        (.feed(.empty(source: url.absoluteString)), "empty-feed"),
        (.feed(.notAFeed(source: url.absoluteString, document: .html)), "not-a-feed"),
        (.feed(.notAFeed(source: url.absoluteString, document: .text(start: "Hello"))), "not-a-feed"),
        (.feed(.notAFeed(source: url.absoluteString, document: .otherXML(root: "opml"))), "not-a-feed"),
        (.feed(.invalidXML(source: url.absoluteString, line: 12, message: "expected '>'")), "invalid-xml"),
        (.feed(.unreadableFile(path: "/x/feed.xml", detail: "Permission denied")), "unreadable-file"),
        (.unexpected("the database is locked"), "unexpected"),
    ]

    @Test(arguments: cases)
    func everyKindIsReadBackWhole(failure: UpdateFailure, kind: String) throws {
        #expect(failure.kind == kind)
        let data = try JSONEncoder().encode(failure)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["kind"] as? String == kind)
        #expect(try JSONDecoder().decode(UpdateFailure.self, from: data) == failure)
        #expect(UpdateFailure.stored(failure.storedText) == failure)
    }

    @Test func anErrorIsClassifiedByItsType() {
        #expect(UpdateFailure(HTTPError(.status(500), url: Self.url)) == .http(HTTPError(.status(500), url: Self.url)))
        #expect(UpdateFailure(FeedError.empty(source: "f")).kind == "empty-feed")
        #expect(UpdateFailure(CocoaError(.fileReadNoPermission)).kind == "unexpected")
    }

    @Test func aSentenceAnEarlierVersionStoredReadsAsUnexpected() {
        #expect(UpdateFailure.stored("https://h/feed.xml answered HTTP 404 Not Found")
            == .unexpected("https://h/feed.xml answered HTTP 404 Not Found"))
        // A value whose detail was a sentence.
        #expect(UpdateFailure.stored(#"{"kind":"not-a-feed","source":"https://h/feed.xml","detail":"the document is JSON, not RSS or Atom"}"#)
            == .unexpected("the document is JSON, not RSS or Atom"))
    }
}
