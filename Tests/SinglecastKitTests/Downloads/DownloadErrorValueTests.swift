import Foundation
import GRDB
import Testing

@testable import SinglecastKit

/// A download's failure is stored and sent as a value, a kind and its details, and read back whole.
@Suite struct DownloadErrorValueTests {
    static let url = URL(string: "http://h/ep.mp3")!

    static func http(_ reason: HTTPError.Reason) -> DownloadError.Reason {
        .http(HTTPError(reason, url: url))
    }

    static let cases: [(DownloadError.Reason, String)] = [
        (.notAURL, "not-a-url"),
        (http(.status(404)), "http-status"),
        (http(.connectTimeout), "connect-timeout"),
        (http(.readTimeout), "read-timeout"),
        (http(.unreachable(.system(errno: ECONNREFUSED))), "unreachable"),
        (http(.unreachable(.nameResolution(code: EAI_NONAME))), "host-not-found"),
        (http(.unreachable(.other("something odd"))), "unreachable"),
        (http(.redirect(.tooMany(limit: 20))), "redirect"),
        (http(.redirect(.withoutLocation(status: 302))), "redirect"),
        (http(.unsupportedURL), "unsupported-url"),
        (http(.bodyTooLarge(1_048_576)), "body-too-large"),
        (http(.connectionClosed), "connection-closed"),
        (http(.unauthorized(refused: true)), "unauthorized"),
        (http(.certificateNotTrusted), "certificate-not-trusted"),
        (http(.certificateExpired), "certificate-expired"),
        (http(.certificateWrongHost), "certificate-wrong-host"),
        (http(.tlsHandshakeFailed("WRONG_VERSION_NUMBER")), "tls-handshake-failed"),
        (.htmlInsteadOfMedia(expectedType: "audio/mpeg"), "html-instead-of-media"),
        (.htmlInsteadOfMedia(expectedType: nil), "html-instead-of-media"),
        (.incomplete(received: 10, expected: 20), "incomplete"),
        (.oversized(received: 30, expected: 20), "oversized"),
        (.unusableRange(.notSatisfiable(from: 10)), "unusable-range"),
        (.unusableRange(.startsElsewhere(from: 10)), "unusable-range"),
        (.serverKeepsEnding(at: 10_000_000, of: 20_000_000), "server-keeps-ending"),
        (.serverKeepsEnding(at: 5, of: nil), "server-keeps-ending"),
        (.noSpace(path: "/x/ep.mp3.part"), "no-space"),
        (.fileSystem(operation: .moveIntoPlace, path: "/x/ep.mp3", errno: EEXIST), "file-system"),
        (.unexpected("the database is locked"), "unexpected"),
    ]

    @Test(arguments: cases)
    func everyKindIsReadBackWhole(reason: DownloadError.Reason, kind: String) throws {
        var error = DownloadError(reason, url: Self.url, retryAfter: .seconds(30))
        error.gaveUpAfter = .seconds(600)
        #expect(error.kind == kind)
        let data = try JSONEncoder().encode(error)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["kind"] as? String == kind)
        #expect(try JSONDecoder().decode(DownloadError.self, from: data) == error)
    }

    @Test func theDetailsAreMachineReadable() throws {
        let error = DownloadError(.serverKeepsEnding(at: 10_000_000, of: 20_000_000), url: Self.url)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(error)) as? [String: Any])
        #expect(object["at"] as? Int == 10_000_000)
        #expect(object["total"] as? Int == 20_000_000)
        #expect(object["url"] as? String == "http://h/ep.mp3")
        let refused = DownloadError(Self.http(.unreachable(.system(errno: ECONNREFUSED))), url: Self.url)
        let details = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(refused)) as? [String: Any])
        #expect(details["errno"] as? Int == Int(ECONNREFUSED))
    }

    @Test func aKindThisBuildDoesNotKnowReadsAsUnexpected() throws {
        let data = Data(#"{"kind":"from-the-future","url":"http://h/ep.mp3","detail":"later"}"#.utf8)
        let error = try JSONDecoder().decode(DownloadError.self, from: data)
        #expect(error.reason == .unexpected("later"))
    }

    @Test func theLibraryStoresTheValueAndReadsOldSentencesAsUnexpected() async throws {
        let show = try await ClaimedShow.make(titles: ["Failed"])
        defer { show.remove() }
        let claimed = show.downloads["Failed"]!
        let failure = DownloadError(Self.http(.status(410)), url: Self.url)
        let failed = try #require(try await show.buffer.recordFailed(id: claimed.id, failure: failure))
        #expect(try await show.library.download(id: claimed.id)?.failure == failure)
        #expect(failed.failure?.httpStatus == 410)

        // A row an earlier version wrote holds a sentence.
        try await show.library.withDownloadStore { store in
            try store.db.execute(sql: "UPDATE download SET failure = NULL, message = 'it broke' WHERE id = ?", arguments: [claimed.id])
        }
        let old = try #require(try await show.library.download(id: claimed.id)?.failure)
        #expect(old.reason == .unexpected("it broke"))
        #expect(old.kind == "unexpected")
    }
}
