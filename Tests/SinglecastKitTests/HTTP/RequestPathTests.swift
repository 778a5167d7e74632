import Foundation
import NIOHTTP1
import Testing
import TestSupport

@testable import SinglecastKit

/// The one request path of ``HTTPSession/send(_:)``: redirects and credentials, the same for
/// feeds, downloads and sync.
@Suite struct RequestPathTests {
    @Test func aPostKeepsItsMethodThroughA307AndBecomesAGetThrough303() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/target", data: Data("{}".utf8), contentType: "application/json")
        server.redirect(path: "/kept", to: "/target", status: 307)
        server.redirect(path: "/seeOther", to: "/target", status: 303)
        let session = HTTPSession()
        for (path, method) in [("/kept", "POST"), ("/seeOther", "GET")] {
            server.clearRequests()
            let response = try await session.send(
                HTTPSession.Request(.POST, server.url(path), body: Data("[1]".utf8), contentType: "application/json"))
            _ = try await session.collect(response, upTo: 1024)
            #expect(response.status == 200)
            #expect(server.requests(for: "/target").map(\.method) == [method], "\(path)")
            let contentType = server.requests(for: "/target").first?.header("Content-Type")
            #expect(contentType == (method == "POST" ? "application/json" : nil), "\(path)")
        }
        try await session.shutdown()
        try await server.stop()
    }

    /// A redirect without `Location` is the same failure for a feed and for sync.
    @Test func aRedirectWithoutALocationFailsEveryCaller() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/nowhere", data: Data(), faults: [.status(302), .status(302)])
        let session = HTTPSession()
        await #expect(throws: HTTPError(.redirect(.withoutLocation(status: 302)), url: server.url("/nowhere"))) {
            _ = try await session.get(server.url("/nowhere"))
        }
        let sync = SyncClient(
            session: session, server: server.url("/"), credentials: SyncCredentials(user: "u", password: "p"), dialect: .gpodder)
        await #expect(throws: SyncError(.transport(.redirect(.withoutLocation(status: 302)), request: .devices), server: server.url("/"))) {
            _ = try await sync.send(.GET, server.url("/nowhere"), request: .devices)
        }
        try await session.shutdown()
        try await server.stop()
    }

    /// Each hop gets the credentials its URL may have: sync's go to its server only.
    @Test func credentialsAreChosenForEveryHop() async throws {
        let server = try await TestServer.start()
        let other = try await TestServer.start()
        other.serve(path: "/elsewhere", data: Data("[]".utf8), contentType: "application/json")
        server.redirect(path: "/api", to: other.url("/elsewhere").absoluteString, status: 302)
        let session = HTTPSession()
        let sync = SyncClient(
            session: session, server: server.url("/"), credentials: SyncCredentials(user: "u", password: "p"), dialect: .gpodder)
        let answer = try await sync.send(.GET, server.url("/api"), request: .devices)
        #expect(answer.status == 200)
        #expect(server.requests(for: "/api").first?.header("Authorization") != nil)
        #expect(other.requests(for: "/elsewhere").first?.header("Authorization") == nil)
        try await session.shutdown()
        try await server.stop()
        try await other.stop()
    }
}
