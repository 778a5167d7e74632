import Foundation
import NIOCore
import Testing

@testable import SinglecastKit

/// What is retried, and why, is decided on typed causes, never on the words of an error.
@Suite struct NetworkCauseTests {
    static let url = URL(string: "http://h/ep.mp3")!

    static func retryReason(_ error: any Error) -> RetryReason? {
        (FileTransfer.translate(error, url: url) as? DownloadError)?.retryReason
    }

    @Test func anIOErrorKeepsItsErrnoToTheDecision() {
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connect")
        #expect(HTTPError.wrapping(refused, url: Self.url) as? HTTPError
            == HTTPError(.unreachable(.system(errno: ECONNREFUSED)), url: Self.url))
        #expect(Self.retryReason(refused) == .connectionRefused)
        #expect(Self.retryReason(IOError(errnoCode: ECONNRESET, reason: "read")) == .connectionLost)
        #expect(Self.retryReason(IOError(errnoCode: ENETUNREACH, reason: "connect")) == .unreachable)
        #expect(Self.retryReason(IOError(errnoCode: ETIMEDOUT, reason: "connect")) == .connectTimeout)
    }

    @Test func aClosedChannelIsAClosedConnection() {
        #expect(HTTPError.wrapping(ChannelError.eof, url: Self.url) as? HTTPError == HTTPError(.connectionClosed, url: Self.url))
        #expect(Self.retryReason(ChannelError.ioOnClosedChannel) == .connectionLost)
    }

    /// Words are never read back: an error whose text says "refused" or "getaddrinfo" decides nothing.
    @Test func wordsDecideNothing() {
        struct Worded: Error, CustomStringConvertible {
            var description: String { "getaddrinfo: connection refused, reset, dns" }
        }
        #expect(Self.retryReason(Worded()) == .unreachable)
        #expect(RetryReason(.other("Connection refused")) == .unreachable)
    }

    @Test func aFailedLookupIsAHostNotFound() {
        #expect(RetryReason(.nameResolution(code: EAI_NONAME)) == .hostNotFound)
        #expect(RetryReason(.nameResolution(code: EAI_AGAIN)) == .hostNotFound)
    }
}
