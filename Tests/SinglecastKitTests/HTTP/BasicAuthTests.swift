import Foundation
import Logging
import Synchronization
import Testing
import TestSupport

@testable import SinglecastKit

@Suite struct BasicAuthTests {
    /// `Basic` for alice:s3cret
    static let alice = "Basic YWxpY2U6czNjcmV0"

    @Test func sendsTheURLsUserInfoAndNotTheUserInfoItself() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/feed.xml", data: Data("<rss/>".utf8))
        let url = try #require(URL(string: "http://alice:s3cret@127.0.0.1:\(server.port)/feed.xml"))
        let response = try await get(url)
        try await server.stop()
        #expect(try response.get().status == 200)
        let request = try #require(server.requests(for: "/feed.xml").first)
        #expect(request.header("Authorization") == Self.alice)
        #expect(request.uri == "/feed.xml")
        #expect(request.header("Host") == "127.0.0.1:\(server.port)")
    }

    @Test func sendsTheNetrcEntryOfTheHost() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/feed.xml", data: Data("<rss/>".utf8))
        let netrc = try temporaryFile("machine 127.0.0.1\n  login alice\n  password \"s3cret\"\n")
        defer { try? FileManager.default.removeItem(atPath: netrc) }
        let response = try await get(server.url("/feed.xml"), environment: ["NETRC": netrc])
        try await server.stop()
        #expect(try response.get().status == 200)
        #expect(server.requests(for: "/feed.xml").first?.header("Authorization") == Self.alice)
    }

    @Test func keepsCredentialsOnTheirOriginAcrossRedirects() async throws {
        let first = try await TestServer.start()
        let second = try await TestServer.start()
        first.redirect(path: "/feed.xml", to: "/moved.xml", status: 301)
        first.redirect(path: "/moved.xml", to: second.url("/elsewhere.xml").absoluteString, status: 302)
        second.serve(path: "/elsewhere.xml", data: Data("<rss/>".utf8))
        let url = try #require(URL(string: "http://alice:s3cret@127.0.0.1:\(first.port)/feed.xml"))
        let response = try await get(url)
        try await first.stop()
        try await second.stop()
        let answered = try response.get()
        #expect(answered.status == 200)
        #expect(first.requests(for: "/feed.xml").first?.header("Authorization") == Self.alice)
        #expect(first.requests(for: "/moved.xml").first?.header("Authorization") == Self.alice)
        let forwarded = try #require(second.requests(for: "/elsewhere.xml").first)
        #expect(forwarded.header("Authorization") == nil)
        #expect(answered.permanentURL.absoluteString == "http://alice:s3cret@127.0.0.1:\(first.port)/moved.xml")
        #expect(answered.finalURL == second.url("/elsewhere.xml"))
    }

    @Test func a401WithoutCredentialsAsksForThem() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/feed.xml", data: Data(), faults: [.status(401)])
        let response = try await get(server.url("/feed.xml"), environment: [:])
        try await server.stop()
        let error = try #require(response.failure as? HTTPError)
        #expect(error.reason == .unauthorized(refused: false))
        #expect(!error.isTransient)
    }

    @Test func a401WithCredentialsSaysTheyWereRefusedWithoutShowingThePassword() async throws {
        let server = try await TestServer.start()
        server.serve(path: "/feed.xml", data: Data(), faults: [.status(401)])
        let log = CapturedLog()
        let url = try #require(URL(string: "http://alice:s3cret@127.0.0.1:\(server.port)/feed.xml"))
        let response = try await get(url, log: log)
        try await server.stop()
        let error = try #require(response.failure as? HTTPError)
        #expect(error.reason == .unauthorized(refused: true))
        let lines = log.lines.withLock { $0 }
        #expect(lines.contains { $0.contains("http://alice:***@127.0.0.1:\(server.port)/feed.xml") })
        #expect(!lines.contains { $0.contains("s3cret") })
    }

    @Test func anEnclosureBehindA401FailsForGoodWithoutShowingThePassword() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/ep.mp3", data: Data("x".utf8), contentType: "audio/mpeg", faults: [.status(401)])
            let url = try #require(URL(string: "http://alice:s3cret@127.0.0.1:\(h.server.port)/ep.mp3"))
            let error = await #expect(throws: DownloadError.self) {
                _ = try await h.transfer.download(url, to: h.destination(), announcedType: "audio/mpeg")
            }
            #expect(error?.reason == .http(HTTPError(.unauthorized(refused: true), url: url)))
            #expect(error?.isTransient == false)
            #expect(h.server.requests(for: "/ep.mp3").map { $0.header("Authorization") } == [Self.alice])
        }
    }

    // MARK: - Helpers

    private func get(
        _ url: URL, environment: [String: String] = [:], log: CapturedLog = CapturedLog()
    ) async throws -> Result<HTTPSession.Response, any Error> {
        var configuration = HTTPSession.Configuration()
        configuration.environment = environment
        configuration.logger = Logger(label: "test") { _ in CapturingLogHandler(log: log) }
        let session = HTTPSession(configuration: configuration)
        let result: Result<HTTPSession.Response, any Error>
        do {
            let response = try await session.get(url)
            _ = try await session.collect(response, upTo: 1 << 20)
            result = .success(response)
        } catch {
            result = .failure(error)
        }
        try await session.shutdown()
        return result
    }

    private func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netrc-\(UUID().uuidString)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The lines logged through a ``CapturingLogHandler``: message then metadata.
final class CapturedLog: Sendable {
    let lines = Mutex<[String]>([])
}

struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = "\(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })"
        log.lines.withLock { $0.append(line) }
    }
}
