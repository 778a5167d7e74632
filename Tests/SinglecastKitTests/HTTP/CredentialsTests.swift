import Foundation
import Testing

@testable import SinglecastKit

@Suite struct CredentialsTests {
    @Test(arguments: [
        ("https://user:secret@host/feed.xml", "https://user:***@host/feed.xml"),
        ("https://user@host/feed.xml", "https://user@host/feed.xml"),
        ("https://host/feed.xml?a=b@c", "https://host/feed.xml?a=b@c"),
        ("http://u:p%40ss@host:8080/x", "http://u:***@host:8080/x"),
        ("https://u:a@b@host/x", "https://u:***@host/x"),
        ("fetching https://a:1@one/x then http://b:2@two/y.", "fetching https://a:***@one/x then http://b:***@two/y."),
        ("no URL here: user:pass@host", "no URL here: user:pass@host"),
    ])
    func redactsPasswords(text: String, shown: String) {
        #expect(text.redactingURLPasswords == shown)
    }

    @Test func redactsAURL() throws {
        let url = try #require(URL(string: "https://user:secret@example.org/feed.xml"))
        #expect(url.redacted == "https://user:***@example.org/feed.xml")
    }

    @Test func readsNetrcAsCurlDoes() {
        let netrc = Netrc(
            """
            # a comment
            machine example.org login alice password "p a\\"ss"
            machine other.org
              login bob
              account ignored
              password hunter2
            macdef init
            cd /pub
            quit

            machine example.org login carol password c4
            default login anonymous password guest
            """)
        #expect(netrc.credentials(host: "EXAMPLE.org", login: nil) == Credentials(user: "alice", password: "p a\"ss"))
        #expect(netrc.credentials(host: "example.org", login: "carol") == Credentials(user: "carol", password: "c4"))
        #expect(netrc.credentials(host: "other.org", login: nil) == Credentials(user: "bob", password: "hunter2"))
        #expect(netrc.credentials(host: "elsewhere.net", login: nil) == Credentials(user: "anonymous", password: "guest"))
        #expect(netrc.credentials(host: "elsewhere.net", login: "dave") == nil)
        #expect(Netrc("machine a.org login x").credentials(host: "b.org", login: nil) == nil)
    }

    @Test func credentialsComeFromTheURLBeforeNetrc() throws {
        let netrc = FileManager.default.temporaryDirectory.appendingPathComponent("netrc-\(UUID().uuidString)")
        try "machine host login n password fromnetrc\n".write(to: netrc, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: netrc) }
        func credentials(_ url: String) -> Credentials? {
            Credentials.forRequest(to: URL(string: url)!, netrcPath: netrc.path)
        }
        #expect(credentials("https://u:p%40ss@host/") == Credentials(user: "u", password: "p@ss"))
        #expect(credentials("https://host/") == Credentials(user: "n", password: "fromnetrc"))
        #expect(credentials("https://n@host/") == Credentials(user: "n", password: "fromnetrc"))
        #expect(credentials("https://other/") == nil)
        #expect(Credentials(user: "Aladdin", password: "open sesame").authorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func originsDifferInSchemeHostOrPort() throws {
        let url = try #require(URL(string: "https://u:p@Host/a"))
        #expect(url.origin == URL(string: "https://host:443/b")!.origin)
        #expect(url.origin != URL(string: "http://host/a")!.origin)
        #expect(url.origin != URL(string: "https://host:8443/a")!.origin)
        #expect(url.origin != URL(string: "https://other/a")!.origin)
        #expect(url.removingUserInfo.absoluteString == "https://Host/a")
        #expect(URL(string: "https://host/b")!.carryingUserInfo(from: url).absoluteString == "https://u:p@host/b")
        #expect(URL(string: "https://other/b")!.carryingUserInfo(from: url).absoluteString == "https://other/b")
    }
}
