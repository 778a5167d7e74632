import Foundation
import Testing
import TestSupport

/// What the root command answers by itself.
@Suite struct RootCommandTests {
    @Test func versionPrintsTheVersion() async throws {
        let cli = try CLI()
        let result = try await cli.run(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1.0\n")
        #expect(result.stderr.isEmpty)
        cli.removeHome()
    }

    /// The library is opened while the arguments are read (``EarlyLibrary``); a command refused
    /// by its arguments closes it again, leaving no log beside the database.
    @Test func aCommandRefusedByItsArgumentsLeavesTheLibraryClosed() async throws {
        let cli = try CLI()
        #expect(try await cli.run(["podcasts"]).status == 0)  // makes the library
        let refused = try await cli.run(["episodes", "--no-such-option"])
        #expect(refused.status == 64, "\(refused.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
        #expect(files.filter { $0.hasPrefix("library.sqlite") } == ["library.sqlite"])
        cli.removeHome()
    }
}
