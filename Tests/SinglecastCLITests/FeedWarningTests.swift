import Foundation
import Testing
import TestSupport

/// A repaired feed: its episodes on standard output, one warning on standard error.
@Suite struct FeedWarningTests {
    @Test func aRepairedFeedGetsOneWarningAndValidJSON() async throws {
        let cli = try CLI()
        let path = Fixtures.url("feeds/recover-undefined-entity.xml").path
        let result = try await cli.run(["episodes", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "warning: \(path) was repaired (not well-formed XML; first fault at line 10)\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let titles = (object["episodes"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
        #expect(titles == ["Before the fault", "Notes &gtgt; more", "After the fault"])
        cli.removeHome()
    }

    @Test func aCutOffFeedSaysWhereItEnds() async throws {
        let cli = try CLI()
        let path = Fixtures.url("feeds/truncated.xml").path
        let result = try await cli.run(["episodes", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "warning: \(path) ends early at line 14 (inside <title>); what came before it was kept\n")
        cli.removeHome()
    }

    @Test func aFeedCutBeforeItsFirstCompleteItemIsListed() async throws {
        let cli = try CLI()
        let path = Fixtures.url("feeds/cut-before-first-item.xml").path
        let result = try await cli.run(["episodes", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "warning: \(path) ends early at line 10 (inside <description>); what came before it was kept\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Cut Before Any Item")
        #expect((object["episodes"] as? [[String: Any]])?.compactMap { $0["guid"] as? String } == ["cb-1"])
        cli.removeHome()
    }

    @Test(arguments: ["recover-invalid-euc-jp.xml", "recover-invalid-shift-jis.xml", "recover-invalid-utf16.xml"])
    func bytesInvalidInTheDeclaredEncodingGetOneWarningAndNothingFromLibXML2(fixture: String) async throws {
        let cli = try CLI()
        let path = Fixtures.url("feeds/\(fixture)").path
        let result = try await cli.run(["episodes", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "warning: \(path) was repaired (not well-formed XML; first fault at line 10)\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let titles = (object["episodes"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
        #expect(titles?.count == 3)
        #expect(titles?.dropFirst().first?.contains("\u{FFFD}") == true)
        cli.removeHome()
    }

    @Test func aDocumentThatIsNotAFeedIsStillAnError() async throws {
        let cli = try CLI()
        let path = Fixtures.url("feeds/not-a-feed.json").path
        let result = try await cli.run(["episodes", path, "--json"])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: \(path) is not a podcast feed: the document is JSON, not RSS or Atom\n")
        #expect(result.stdout.isEmpty)
        cli.removeHome()
    }
}
