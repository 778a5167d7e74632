import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

/// The fault-injecting server the download tests rely on answers ranges like a real one.
@Suite("TestServer", .timeLimit(.minutes(1)))
struct TestServerTests {
    static let content = TransferHarness.sample(10_000)

    private func fetch(_ h: TransferHarness, _ path: String, headers: [(String, String)] = []) async throws
        -> (status: Int, headers: [String: String], body: Data)
    {
        let response = try await h.session.get(h.server.url(path), headers: headers)
        let body = try await h.session.collect(response, upTo: 1 << 20)
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name.lowercased()] = value }
        return (response.status, fields, body)
    }

    @Test func answersRangesAnd416() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/a.mp3", data: Self.content, contentType: "audio/mpeg", etag: "\"e\"")
            let whole = try await fetch(h, "/a.mp3")
            #expect(whole.status == 200)
            #expect(whole.headers["content-length"] == "10000")
            #expect(whole.headers["etag"] == "\"e\"")
            #expect(whole.body == Self.content)

            let closed = try await fetch(h, "/a.mp3", headers: [("Range", "bytes=10-19")])
            #expect(closed.status == 206)
            #expect(closed.headers["content-range"] == "bytes 10-19/10000")
            #expect(closed.body == Self.content[10..<20])

            let open = try await fetch(h, "/a.mp3", headers: [("Range", "bytes=9990-"), ("If-Range", "\"e\"")])
            #expect(open.status == 206)
            #expect(open.body == Self.content[9990...])

            let stale = try await fetch(h, "/a.mp3", headers: [("Range", "bytes=9990-"), ("If-Range", "\"old\"")])
            #expect(stale.status == 200)
            #expect(stale.body == Self.content)

            let beyond = try await fetch(h, "/a.mp3", headers: [("Range", "bytes=10000-")])
            #expect(beyond.status == 416)
            #expect(beyond.headers["content-range"] == "bytes */10000")

            #expect(h.server.requests(for: "/a.mp3").map(\.range) == [
                nil, "bytes=10-19", "bytes=9990-", "bytes=9990-", "bytes=10000-",
            ])
        }
    }

    @Test func faultsAreConsumedInOrder() async throws {
        try await TransferHarness.run { h in
            h.server.serve(
                path: "/a.mp3", data: Self.content, contentType: "audio/mpeg",
                faults: [.status(503, retryAfter: 2), .notFound, .htmlPage])
            let first = try await fetch(h, "/a.mp3")
            #expect(first.status == 503)
            #expect(first.headers["retry-after"] == "2")
            #expect(try await fetch(h, "/a.mp3").status == 404)
            let html = try await fetch(h, "/a.mp3")
            #expect(html.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(try await fetch(h, "/a.mp3").body == Self.content)
        }
    }

    @Test func servesFilesFromADirectory() async throws {
        try await TransferHarness.run { h in
            let folder = h.directory.appendingPathComponent("site")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.content.write(to: folder.appendingPathComponent("ep.mp3"))
            h.server.serve(directory: folder, at: "/files")
            let ranged = try await fetch(h, "/files/ep.mp3", headers: [("Range", "bytes=100-")])
            #expect(ranged.status == 206)
            #expect(ranged.headers["content-type"] == "audio/mpeg")
            #expect(ranged.body == Self.content[100...])
            #expect(try await fetch(h, "/files/../site/ep.mp3").status == 404)
            #expect(try await fetch(h, "/files/missing.mp3").status == 404)
        }
    }

    @Test func throttlesBodies() async throws {
        try await TransferHarness.run { h in
            h.server.serve(path: "/slow", generatedSize: 100_000, bytesPerSecond: 200_000)
            let clock = ContinuousClock()
            let started = clock.now
            let result = try await fetch(h, "/slow")
            #expect(clock.now - started >= .milliseconds(400))
            #expect(result.body == TestServer.generatedBytes(offset: 0, count: 100_000))
        }
    }
}
