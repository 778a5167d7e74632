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

    /// A mistyped command gets the nearest one, and `help` about a command that does not exist
    /// names it; both are usage errors.
    @Test func unknownCommandsAreNamedWithTheNearestOne() async throws {
        let cli = try CLI()
        let mistyped = try await cli.run(["downlaod", "1"])
        #expect(mistyped.status == 64)
        #expect(mistyped.stderr == "Error: \u{201C}downlaod\u{201D} is not a command; did you mean \u{201C}download\u{201D}?\n")
        let unknown = try await cli.run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "Error: \u{201C}frobnicate\u{201D} is not a command; see 'singlecast --help'\n")
        let help = try await cli.run(["help", "foo"])
        #expect(help.status == 64)
        #expect(help.stderr.contains("there is no command \u{201C}foo\u{201D}"))
        #expect(help.stdout.isEmpty)
        let known = try await cli.run(["help", "download"])
        #expect(known.status == 0)
        #expect(known.stdout.contains("USAGE: singlecast download"))
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
