import Foundation
import Testing
import TestSupport

/// What the listings print from feeds, the search API and OPML files: never a control character
/// (the 8-bit CSI U+009B among them, which an 8-bit terminal reads as ESC [), and columns
/// measured in display cells.
@Suite(.timeLimit(.minutes(3))) struct TerminalTextCommandTests {
    static let csi = "\u{9B}"

    /// A local server with feeds and their audio, and a library of its own.
    struct World {
        let server: TestServer
        let cli: CLI

        /// With `/evil.xml`, whose podcast and episodes have the 8-bit CSI in their titles (the
        /// second episode has no audio), and a search answer leading to it.
        static func start() async throws -> World {
            let server = try await TestServer.start()
            let world = World(server: server, cli: try CLI(environment: ["SINGLECAST_ITUNES_URL": server.baseURL.absoluteString]))
            world.serveFeed("/evil.xml", title: "Evil \(csi)2J Show", items: ["Evil \(csi)2J Episode", "Evil \(csi)H Notes"], audio: 1)
            let search = """
                {"resultCount": 1, "results": [{"collectionId": 1, "collectionName": "Evil \\u009b2J Show", \
                "artistName": "\\u009bH Artist", "feedUrl": "\(world.url("/evil.xml"))", "trackCount": 2, \
                "primaryGenreName": "\\u009b31m Genre"}]}
                """
            server.serve(path: "/search", data: Data(search.utf8), contentType: "text/javascript; charset=utf-8")
            return world
        }

        func url(_ path: String) -> String { server.url(path).absoluteString }

        /// A feed with one episode per title, a day apart from `newest` (a day of June 2024)
        /// back, the first `audio` of them with an enclosure.
        func serveFeed(_ path: String, title: String, items: [String], audio: Int, newest: Int = 28) {
            let entries = items.enumerated().map { index, item in
                let enclosure = index < audio ? "<enclosure url=\"\(url(path)).\(index).mp3\" length=\"2000\" type=\"audio/mpeg\"/>" : ""
                server.serve(path: "\(path).\(index).mp3", generatedSize: 2000, contentType: "audio/mpeg")
                return "<item><title>\(item)</title><guid>\(path)-\(index)</guid><pubDate>\(newest - index) Jun 2024 08:00:00 GMT</pubDate>\(enclosure)</item>"
            }
            let feed = """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>\(title)</title>
                \(entries.joined(separator: "\n"))
                </channel></rss>
                """
            server.serve(path: path, data: Data(feed.utf8), contentType: "application/rss+xml")
        }

        /// What `arguments` printed on standard output; they must succeed and print no control
        /// character on either stream.
        func printed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
            let result = try await cli.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(!(result.stdout + result.stderr).contains(csi), "\(arguments)", sourceLocation: sourceLocation)
            return result.stdout
        }

        func stop() async throws {
            try await server.stop()
            cli.removeHome()
        }
    }

    @Test func episodesPrintsNoControlCharacter() async throws {
        let world = try await World.start()
        let listed = try await world.printed(["episodes", world.url("/evil.xml")])
        #expect(listed.hasPrefix("Evil 2J Show\n") && listed.contains("Evil 2J Episode"), "\(listed)")
        try await world.stop()
    }

    @Test func podcastsAndSubscribePrintNoControlCharacter() async throws {
        let world = try await World.start()
        #expect(try await world.printed(["subscribe", world.url("/evil.xml")]) == "subscribed: Evil 2J Show (2 episodes)\n")
        #expect(try await world.printed(["podcasts"]).contains("@1  Evil 2J Show"))
        try await world.stop()
    }

    @Test func newPrintsNoControlCharacter() async throws {
        let world = try await World.start()
        _ = try await world.printed(["subscribe", world.url("/evil.xml")])
        #expect(try await world.printed(["new"]).contains("Evil 2J Show  -      Evil 2J Episode"))
        try await world.stop()
    }

    @Test func searchPrintsNoControlCharacter() async throws {
        let world = try await World.start()
        #expect(try await world.printed(["search", "evil"]).contains("1  Evil 2J Show  H Artist"))
        try await world.stop()
    }

    @Test func downloadLinesAndDownloadsPrintNoControlCharacter() async throws {
        let world = try await World.start()
        _ = try await world.printed(["episodes", world.url("/evil.xml")])
        let download = try await world.printed(["download", "1"])
        #expect(download.contains("queued: Evil 2J Show: Evil 2J Episode\ndownloading: Evil 2J Show: Evil 2J Episode\n") && download.contains("done: "))
        #expect(try await world.printed(["downloads"]).contains("Evil 2J Show: Evil 2J Episode"))
        try await world.stop()
    }

    @Test func errorsAndWarningsPrintNoControlCharacter() async throws {
        let world = try await World.start()
        _ = try await world.printed(["episodes", world.url("/evil.xml")])
        let noAudio = try await world.cli.run(["download", "2"])
        #expect(noAudio.status == 1)
        #expect(noAudio.stderr.contains("(Evil H Notes)") && !noAudio.stderr.contains(Self.csi), "\(noAudio.stderr)")

        let opml = world.cli.home.appendingPathComponent("evil.opml")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0"><head><title>Mine</title></head><body>
            <outline type="rss" text="Evil \(Self.csi)2J" xmlUrl="\(world.url("/evil.xml"))"/>
            <outline type="rss" text="Evil \(Self.csi)2J again" xmlUrl="\(world.url("/evil.xml"))"/>
            </body></opml>
            """.write(to: opml, atomically: true, encoding: .utf8)
        let imported = try await world.cli.run(["import", opml.path])
        #expect(imported.status == 0)
        #expect(imported.stderr.contains("(Evil 2J again)") && !imported.stderr.contains(Self.csi), "\(imported.stderr)")
        try await world.stop()
    }

    /// "Hand Show 日本語ポッドキャスト" takes 30 cells and 19 characters: the columns after its
    /// title start where the header's do, on its row and on the others.
    @Test func podcastsAndNewMeasureTitlesInDisplayCells() async throws {
        let world = try await World.start()
        world.serveFeed("/wide.xml", title: "Hand Show 日本語ポッドキャスト", items: ["Wide one"], audio: 1)
        world.serveFeed("/plain.xml", title: "Plain Show", items: ["Plain one", "Plain old"], audio: 2, newest: 27)
        _ = try await world.printed(["subscribe", world.url("/wide.xml"), world.url("/plain.xml")])
        let spaces = { (count: Int) in String(repeating: " ", count: count) }

        let podcasts = try await world.printed(["podcasts"]).split(separator: "\n").map(String.init)
        #expect(podcasts[0].hasPrefix(" #  Title\(spaces(25))  Episodes  New"), "\(podcasts)")
        #expect(podcasts[1].hasPrefix("@1  Hand Show 日本語ポッドキャスト         1    1"), "\(podcasts)")
        #expect(podcasts[2].hasPrefix("@2  Plain Show\(spaces(20))         2    1"), "\(podcasts)")

        let new = try await world.printed(["new"]).split(separator: "\n").map(String.init)
        #expect(new[0] == "#  Date        Podcast\(spaces(23))  State  Title", "\(new)")
        #expect(new[1] == "1  2024-06-28  Hand Show 日本語ポッドキャスト  -      Wide one", "\(new)")
        #expect(new[2] == "2  2024-06-27  Plain Show\(spaces(20))  -      Plain one", "\(new)")
        try await world.stop()
    }
}
