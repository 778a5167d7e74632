import Foundation
import Testing
import TestSupport

@Suite struct MoveFilesCommandTests {
    /// The show with episodes 1 and 3 downloaded in the standard layout, and the config file
    /// then naming another folder and template.
    static func downloadedThenRelaidOut() async throws -> (LoopbackShow, URL) {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        #expect(try await show.cli.run(["download", "1", "3", "--with-extras"]).status == 0)
        let elsewhere = show.cli.home.appendingPathComponent("Podcasts", isDirectory: true)
        try show.cli.writeConfig("episodes-folder = \"\(elsewhere.path)\"\nfile-name = \"{podcast}/{date} {title}\"\n")
        return (show, elsewhere.appendingPathComponent("Loopback Radio", isDirectory: true))
    }

    static func files(_ show: LoopbackShow) async throws -> [String] {
        let result = try await show.cli.run(["downloads", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return list.compactMap { $0["file"] as? String }.sorted()
    }

    @Test func downloadedFilesMoveIntoTheNewLayoutAndTheLibraryFollows() async throws {
        let (show, folder) = try await Self.downloadedThenRelaidOut()
        let one = folder.appendingPathComponent("2024-07-01 Episode One.mp3")
        let three = folder.appendingPathComponent("2024-07-03 Episode Three: Café & Résumé.mp3")
        let result = try await show.cli.run(["move-files"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("moved: \(show.folder.appendingPathComponent("Episode One.mp3").path) -> \(one.path)"))
        #expect(try await Self.files(show) == [one.path, three.path])
        #expect(FileManager.default.fileExists(atPath: one.path) && FileManager.default.fileExists(atPath: three.path))
        #expect(!FileManager.default.fileExists(atPath: show.folder.appendingPathComponent("Episode One.mp3").path))
        // Nothing is left to move, and the files are still known as downloaded.
        let again = try await show.cli.run(["move-files"])
        #expect(again.status == 0 && again.stdout.isEmpty)
        #expect(try await show.cli.run(["download", "3"]).stdout == "already downloaded: \(one.path)\n")
        try await show.stop()
    }

    @Test func aNameAnotherFileHasIsNeverReplaced() async throws {
        let (show, folder) = try await Self.downloadedThenRelaidOut()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stranger = folder.appendingPathComponent("2024-07-01 Episode One.mp3")
        try Data("not yours".utf8).write(to: stranger)
        let result = try await show.cli.run(["move-files"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: stranger) == Data("not yours".utf8))
        // The episode gets the tagged name instead.
        let files = try await Self.files(show)
        #expect(files.count == 2 && !files.contains(stranger.path))
        #expect(files.allSatisfy { $0.hasPrefix(folder.path) })
        try await show.stop()
    }

    @Test func aRunInterruptedMidMoveIsFinishedByTheNext() async throws {
        let (show, folder) = try await Self.downloadedThenRelaidOut()
        // As a run killed after linking the new name, before the library learned it.
        let old = show.folder.appendingPathComponent("Episode One.mp3")
        let new = folder.appendingPathComponent("2024-07-01 Episode One.mp3")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(link(old.path, new.path) == 0)
        let id = try #require(try await Self.ids(show)[old.path])
        try "\(id)\n\(old.path)\n\(new.path)\n".write(
            to: show.cli.home.appendingPathComponent("move-files.journal"), atomically: true, encoding: .utf8)
        let result = try await show.cli.run(["move-files"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(try await Self.files(show).contains(new.path))
        #expect(!FileManager.default.fileExists(atPath: show.cli.home.appendingPathComponent("move-files.journal").path))
        try await show.stop()
    }

    /// The show downloaded in the library (under /tmp, ext4 here) and the config file naming a
    /// folder on /dev/shm (tmpfs): a file system of its own, checked, else the test fails.
    static func downloadedThenSentToAnotherFileSystem() async throws -> (LoopbackShow, URL, URL) {
        let show = try await LoopbackShow.start()
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        #expect(try await show.cli.run(["download", "1", "3", "--with-extras"]).status == 0)
        let elsewhere = URL(fileURLWithPath: "/dev/shm/singlecast-move-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        var here = stat()
        var there = stat()
        try #require(stat(show.cli.home.path, &here) == 0 && stat(elsewhere.path, &there) == 0)
        try #require(here.st_dev != there.st_dev, "\(show.cli.home.path) and \(elsewhere.path) are on one file system")
        try show.cli.writeConfig("episodes-folder = \"\(elsewhere.path)\"\n")
        return (show, elsewhere, elsewhere.appendingPathComponent("Loopback Radio", isDirectory: true))
    }

    @Test func filesMoveToAnotherFileSystemWholeAndTheLibraryFollows() async throws {
        let (show, root, folder) = try await Self.downloadedThenSentToAnotherFileSystem()
        defer { try? FileManager.default.removeItem(at: root) }
        let old = show.folder.appendingPathComponent("Episode One.mp3")
        let new = folder.appendingPathComponent("Episode One.mp3")
        let bytes = try Data(contentsOf: old)
        let mode = try FileManager.default.attributesOfItem(atPath: old.path)[.posixPermissions] as? Int
        let result = try await show.cli.run(["move-files"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("moved: \(old.path) -> \(new.path)"))
        #expect(try Data(contentsOf: new) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: new.path)[.posixPermissions] as? Int == mode)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(try await Self.files(show) == [new.path, folder.appendingPathComponent("Episode Three: Café & Résumé.mp3").path])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains { $0.hasSuffix(".moving") }, "\(left)")
        #expect(try await show.cli.run(["download", "3"]).stdout == "already downloaded: \(new.path)\n")
        try await show.stop()
    }

    @Test func aCopyToAnotherFileSystemCutShortIsMadeAgainAndNothingIsLost() async throws {
        let (show, root, folder) = try await Self.downloadedThenSentToAnotherFileSystem()
        defer { try? FileManager.default.removeItem(at: root) }
        // As a run killed while copying: the journal names the move, half a copy beside the new name.
        let old = show.folder.appendingPathComponent("Episode One.mp3")
        let new = folder.appendingPathComponent("Episode One.mp3")
        let bytes = try Data(contentsOf: old)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: new.path + ".moving"))
        let id = try #require(try await Self.ids(show)[old.path])
        try "\(id)\n\(old.path)\n\(new.path)\n".write(
            to: show.cli.home.appendingPathComponent("move-files.journal"), atomically: true, encoding: .utf8)
        // Until the next run, the library still has the whole file where it was.
        #expect(try await Self.files(show).contains(old.path))
        let result = try await show.cli.run(["move-files"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: new) == bytes)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(!FileManager.default.fileExists(atPath: new.path + ".moving"))
        #expect(try await Self.files(show).contains(new.path))
        try await show.stop()
    }

    static func ids(_ show: LoopbackShow) async throws -> [String: Int] {
        let result = try await show.cli.run(["downloads", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.compactMap { item in
            (item["file"] as? String).flatMap { file in (item["id"] as? Int).map { (file, $0) } }
        })
    }
}
