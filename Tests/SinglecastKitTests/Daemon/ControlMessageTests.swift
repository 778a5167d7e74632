import Foundation
import Testing

@testable import SinglecastKit

/// The daemon's refusals travel as values; the executable words them.
@Suite struct ControlMessageTests {
    @Test(arguments: [
        ControlFailure.malformedMessage, .messageTooLong(limit: 1_048_576), .unsupportedVersion(99),
        .malformedRequest("no command"), .starting, .jobsOutOfRange(40), .failed("disk I/O error"),
    ])
    func aRefusalCarriesItsKindAndNoWords(failure: ControlFailure) throws {
        let reply = ControlReply.failure(failure)
        let decoded = try ControlCoding.decoder.decode(ControlReply.self, from: ControlCoding.encoder.encode(reply))
        #expect(decoded.ok == false)
        #expect(decoded.failure == failure)
        #expect(decoded.error == nil)
    }

    @Test func aReplyFromAnOlderDaemonHasOnlyWords() throws {
        let decoded = try ControlCoding.decoder.decode(
            ControlReply.self, from: Data(#"{"version":1,"ok":false,"error":"the daemon is starting"}"#.utf8))
        #expect(decoded.failure == nil)
        #expect(decoded.error == "the daemon is starting")
    }
}
