import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

/// Each TLS case against a local HTTPS server whose certificates are made for the test.
@Suite struct TLSTests {
    @Test func trustsTheCertificatesOfSSLCertFile() async throws {
        try await withServer(.trusted) { server, certificates in
            let response = try await get(server.url("/feed.xml"), environment: ["SSL_CERT_FILE": certificates.caFile])
            #expect(try response.get() == 200)
        }
    }

    @Test func trustsTheCertificatesOfSSLCertDir() async throws {
        try await withServer(.trusted) { server, certificates in
            let response = try await get(server.url("/feed.xml"), environment: ["SSL_CERT_DIR": certificates.caDirectory])
            #expect(try response.get() == 200)
        }
    }

    @Test(arguments: [TestCertificates.Kind.trusted, .selfSigned])
    func aCertificateFromAnUnknownAuthorityIsNotTrusted(kind: TestCertificates.Kind) async throws {
        try await withServer(kind) { server, _ in
            let error = try await failure(server.url("/feed.xml"), environment: [:])
            #expect(error.reason == .certificateNotTrusted)
            #expect(!error.isTransient)
        }
    }

    @Test func anExpiredCertificateSaysSo() async throws {
        try await withServer(.expired) { server, certificates in
            let error = try await failure(server.url("/feed.xml"), environment: ["SSL_CERT_FILE": certificates.caFile])
            #expect(error.reason == .certificateExpired)
            #expect(!error.isTransient)
        }
    }

    @Test func aCertificateForAnotherNameIsNotValidForTheHost() async throws {
        try await withServer(.wrongHost) { server, certificates in
            let url = try #require(URL(string: "https://localhost:\(server.port)/feed.xml"))
            let error = try await failure(url, environment: ["SSL_CERT_FILE": certificates.caFile])
            #expect(error.reason == .certificateWrongHost)
            #expect(!error.isTransient)
        }
    }

    @Test func aServerThatSpeaksNoTLSFailsTheHandshake() async throws {
        let server = try await TestServer.start()
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/feed.xml"))
        let outcome = await Result { try await failure(url, environment: [:]) }
        try await server.stop()
        let error = try outcome.get()
        guard case .tlsHandshakeFailed = error.reason else {
            Issue.record("expected a failed handshake, got \(error.reason)")
            return
        }
        #expect(error.reason == .tlsHandshakeFailed("WRONG_VERSION_NUMBER"))
        #expect(error.isTransient)
    }

    // MARK: - Helpers

    private func withServer(
        _ kind: TestCertificates.Kind, _ body: (TestServer, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TestServer.start(tls: try certificates.serverContext(kind))
        server.serve(path: "/feed.xml", data: Data("<rss/>".utf8))
        let outcome = await Result { try await body(server, certificates) }
        try await server.stop()
        try outcome.get()
    }

    /// The status of a GET, or its error.
    private func get(_ url: URL, environment: [String: String]) async throws -> Result<Int, any Error> {
        var configuration = HTTPSession.Configuration()
        configuration.environment = environment
        let session = HTTPSession(configuration: configuration)
        let outcome = await Result { try await session.get(url).status }
        try await session.shutdown()
        return outcome
    }

    private func failure(_ url: URL, environment: [String: String]) async throws -> HTTPError {
        let outcome = try await get(url, environment: environment)
        return try #require(outcome.failure as? HTTPError, "\(outcome)")
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
