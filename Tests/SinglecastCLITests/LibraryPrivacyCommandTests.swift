import Foundation
import Testing
import TestSupport

@Suite struct LibraryPrivacyCommandTests {
    static func mode(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test func anOpenLibraryIsTightenedOnceWithOneLineSayingSo() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        #expect(try await cli.run(["podcasts"]).status == 0)
        let database = cli.home.appendingPathComponent("library.sqlite")
        #expect(Self.mode(cli.home) == 0o700)
        #expect(Self.mode(database) == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli.home.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database.path)
        let tightened = try await cli.run(["podcasts"])
        #expect(tightened.status == 0)
        #expect(
            tightened.stderr
                == "made private to you (it holds private feeds' addresses and the sync account): \(cli.home.path), \(database.path)\n")
        #expect(Self.mode(cli.home) == 0o700)
        #expect(Self.mode(database) == 0o600)
        #expect(try await cli.run(["podcasts"]).stderr.isEmpty)
    }
}
