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
}
