import Foundation
import Testing
import TestSupport

/// A local server with the search API, a show feed and its media, for CLI tests.
struct LoopbackShow {
    /// The media sizes of the feed's three episodes, in feed order.
    static let mediaSizes: [String: Int64] = ["three.mp3": 300_000, "two.mp3": 200_000, "one.mp3": 100_000]

    let server: TestServer
    let cli: CLI

    static func start(environment: [String: String] = [:]) async throws -> LoopbackShow {
        let server = try await TestServer.start()
        let host = "127.0.0.1:\(server.port)"
        let feed = try String(contentsOf: Fixtures.url("cli/show.xml"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER", with: host)
        server.serve(path: "/feeds/show.xml", data: Data(feed.utf8), contentType: "application/rss+xml")
        let search = try String(contentsOf: Fixtures.url("itunes/search-accidental-tech.json"), encoding: .utf8)
            .replacingOccurrences(of: "SERVER/feeds/rss-itunes.xml", with: "\(host)/feeds/show.xml")
        server.serve(path: "/search", data: Data(search.utf8), contentType: "text/javascript; charset=utf-8")
        for (name, size) in mediaSizes {
            server.serve(path: "/media/\(name)", generatedSize: size, contentType: "audio/mpeg", etag: "\"\(name)-v1\"")
        }
        var environment = environment
        environment["SINGLECAST_ITUNES_URL"] = server.baseURL.absoluteString
        return LoopbackShow(server: server, cli: try CLI(environment: environment))
    }

    var feedURL: String { server.url("/feeds/show.xml").absoluteString }

    /// The show's folder in `Episodes`.
    var folder: URL { cli.episodesDirectory.appendingPathComponent("Loopback Radio", isDirectory: true) }

    /// Lists the show, then starts `singlecast download 3` (Episode One, served slowly: 1 MB/s
    /// of `size` bytes) in the background and waits until its partial file has grown.
    /// Returns the process and the partial file.
    func startSlowDownloadOfEpisodeOne(size: Int64, outputName: String = "run") async throws -> (Process, URL) {
        server.serve(path: "/media/one.mp3", generatedSize: size, contentType: "audio/mpeg", bytesPerSecond: 1_000_000)
        #expect(try await cli.run(["episodes", feedURL]).status == 0)
        let part = folder.appendingPathComponent("Episode One.mp3.part")
        let process = try cli.start(["download", "3"], outputName: outputName)
        try await waitUntil { fileSize(part) > 100_000 }
        return (process, part)
    }

    /// The states of every download, as `singlecast downloads --json` lists them.
    func downloadStates() async throws -> [String] {
        let result = try await cli.run(["downloads", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return list.map { $0["state"] as? String ?? "" }
    }

    /// Stops the server and removes the library folder.
    func stop() async throws {
        try await server.stop()
        cli.removeHome()
    }
}

/// The size of a file, 0 when there is none.
func fileSize(_ url: URL) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
}
