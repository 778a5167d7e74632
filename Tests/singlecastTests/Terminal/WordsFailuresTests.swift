import Foundation
import SinglecastKit
import Testing

@testable import singlecast

/// The sentences for the library's failures: exact words for a few cases of each type, and
/// never a URL's password.
@Suite struct WordsFailuresTests {
    private static let feedURL = URL(string: "https://example.org/feed.xml")!

    @Test func httpFailuresNameTheURLAndHost() {
        let url = Self.feedURL
        #expect(Words.http(HTTPError(.status(404), url: url)) == "https://example.org/feed.xml answered HTTP 404 Not Found")
        #expect(Words.http(HTTPError(.status(599), url: url)) == "https://example.org/feed.xml answered HTTP 599")
        #expect(Words.http(HTTPError(.readTimeout, url: url)) == "https://example.org/feed.xml: timed out waiting for data")
        #expect(
            Words.http(HTTPError(.unreachable(.system(errno: ECONNREFUSED)), url: url))
                == "https://example.org/feed.xml is unreachable: Connection refused")
        #expect(
            Words.http(HTTPError(.unauthorized(refused: false), url: url))
                == "https://example.org/feed.xml needs a user name and password for example.org "
                + "(put them in the URL as https://user:password@example.org/… or in ~/.netrc)")
        #expect(
            Words.http(HTTPError(.unauthorized(refused: true), url: url))
                == "https://example.org/feed.xml: the user name and password for example.org were refused "
                + "(check them in the URL or in ~/.netrc)")
        #expect(
            Words.http(HTTPError(.certificateNotTrusted, url: url)) == "https://example.org/feed.xml: certificate of example.org is not trusted")
        #expect(Words.http(HTTPError(.certificateExpired, url: url)) == "https://example.org/feed.xml: certificate of example.org has expired")
        #expect(Words.http(HTTPError(.certificateWrongHost, url: url)) == "https://example.org/feed.xml: certificate is not valid for example.org")
        #expect(
            Words.http(HTTPError(.tlsHandshakeFailed("WRONG_VERSION_NUMBER"), url: url))
                == "https://example.org/feed.xml: TLS handshake with example.org failed (WRONG_VERSION_NUMBER)")
        #expect(
            Words.http(HTTPError(.bodyTooLarge(10 * 1_048_576), url: url)) == "https://example.org/feed.xml: the response is larger than 10 MiB")
    }

    @Test func everyHTTPFailureHidesThePassword() throws {
        let url = try #require(URL(string: "https://alice:s3cret@example.org/feed.xml"))
        let reasons: [HTTPError.Reason] = [
            .status(404), .connectTimeout, .readTimeout, .unreachable(.other("https://alice:s3cret@example.org refused")),
            .redirect(.tooMany(limit: 20)), .redirect(.withoutLocation(status: 302)), .unsupportedURL, .bodyTooLarge(1_048_576),
            .connectionClosed, .unauthorized(refused: false), .unauthorized(refused: true), .certificateNotTrusted,
            .certificateExpired, .certificateWrongHost, .tlsHandshakeFailed("WRONG_VERSION_NUMBER"),
        ]
        for reason in reasons {
            let message = Words.http(HTTPError(reason, url: url))
            #expect(!message.contains("s3cret"), "\(reason)")
            #expect(message.contains("https://alice:***@example.org/feed.xml"), "\(reason)")
        }
    }

    @Test func networkCausesInTheSystemsWords() {
        #expect(Words.cause(.system(errno: ECONNREFUSED)) == "Connection refused")
        #expect(Words.cause(.nameResolution(code: EAI_NONAME)) == "Name or service not known")
        #expect(Words.cause(.other("reset by https://u:pw@h/")) == "reset by https://u:***@h/")
    }

    @Test func feedFailuresNameTheSourceAndLine() {
        #expect(
            Words.feed(.notAFeed(source: "https://x/feed.xml", document: .html))
                == "https://x/feed.xml is not a podcast feed: the document is HTML (an <html> page), not RSS or Atom")
        #expect(Words.notAFeed(.json) == "the document is JSON, not RSS or Atom")
        #expect(Words.notAFeed(.text(start: "Hello")) == "the document is not XML (it starts with \u{201C}Hello\u{201D})")
        #expect(Words.notAFeed(.otherXML(root: "opml")) == "the root element is <opml>, not <rss>, <rdf:RDF> or Atom's <feed>")
        #expect(Words.feed(.invalidXML(source: "feed.xml", line: 12, message: "oops")) == "feed.xml: XML error at line 12: oops")
        #expect(Words.feed(.empty(source: "feed.xml")) == "feed.xml is empty")
        #expect(
            Words.feed(.unreadableFile(path: "/tmp/feed.xml", detail: "Permission denied")) == "cannot read /tmp/feed.xml: Permission denied")
    }

    @Test func updateFailuresAreTheirHTTPOrFeedWords() {
        #expect(
            Words.failure(UpdateFailure.http(HTTPError(.status(500), url: Self.feedURL)))
                == "https://example.org/feed.xml answered HTTP 500 Internal Server Error")
        #expect(Words.failure(UpdateFailure.feed(.empty(source: "https://example.org/feed.xml"))) == "https://example.org/feed.xml is empty")
        #expect(Words.failure(UpdateFailure.unexpected("disk I/O error")) == "disk I/O error")
    }

    @Test func downloadFailures() throws {
        let url = try #require(URL(string: "https://h/ep.mp3"))
        #expect(
            Words.failure(DownloadError(.incomplete(received: 1000, expected: 2048), url: url))
                == "https://h/ep.mp3 sent 1000 of 2048 bytes before the connection closed")
        #expect(
            Words.failure(DownloadError(.htmlInsteadOfMedia(expectedType: "audio/mpeg"), url: url))
                == "https://h/ep.mp3 sent an HTML page instead of audio/mpeg")
        #expect(
            Words.failure(DownloadError(.htmlInsteadOfMedia(expectedType: nil), url: url))
                == "https://h/ep.mp3 sent an HTML page instead of the episode's audio or video")
        #expect(
            Words.failure(DownloadError(.serverKeepsEnding(at: 1_000_000, of: 2_000_000), url: url))
                == "https://h/ep.mp3: the server keeps ending the transfer at 50 % (1.0 MB of 2.0 MB)")
        #expect(
            Words.failure(DownloadError(.serverKeepsEnding(at: 1_000_000, of: nil), url: url))
                == "https://h/ep.mp3: the server keeps ending the transfer at 1.0 MB")
        #expect(
            Words.failure(DownloadError(.unusableRange(.notSatisfiable(from: 10)), url: url))
                == "\(url) answered 416 to a resume from byte 10")
        #expect(Words.redirect(.withoutLocation(status: 302)) == "HTTP 302 redirect without a usable Location")
        #expect(Words.failure(DownloadError(.noSpace(path: "/x/ep.mp3.part"), url: url)) == "no space left on device while writing /x/ep.mp3.part")
        #expect(
            Words.failure(DownloadError(.fileSystem(operation: .moveIntoPlace, path: "/x/ep.mp3", errno: EACCES), url: url))
                == "could not move into place /x/ep.mp3: Permission denied")
        #expect(
            Words.failure(DownloadError(.fileSystem(operation: .createDirectory, path: "/x/Show", errno: EACCES), url: url))
                == "could not create the folder /x/Show: Permission denied")
        #expect(Words.failure(DownloadError.notAURL("http://[bad/ep.mp3")) == "the enclosure \u{201C}http://[bad/ep.mp3\u{201D} is not a URL")
        #expect(
            Words.failure(DownloadError(.http(HTTPError(.status(404), url: url)), url: url)) == "https://h/ep.mp3 answered HTTP 404 Not Found")
    }

    @Test func aDownloadThatGaveUpSaysAfterHowLong() throws {
        let stored = Data(#"{"kind":"connect-timeout","url":"https://h/ep.mp3","gaveUpAfterSeconds":600}"#.utf8)
        let failure = try JSONDecoder().decode(DownloadError.self, from: stored)
        #expect(Words.failure(failure) == "https://h/ep.mp3: timed out while connecting (gave up after 600 s without data)")
    }

    @Test func extraFailuresNeverShowThePassword() throws {
        let url = "https://user:secret@example.com/ep1.vtt"
        #expect(Words.failure(ExtraError(.notAURL, url: url)) == "\u{201C}https://user:***@example.com/ep1.vtt\u{201D} is not a URL")
        #expect(Words.failure(ExtraError(.htmlPage, url: url)) == "https://user:***@example.com/ep1.vtt sent an HTML page instead of the file")
        #expect(Words.failure(ExtraError(.notChapters, url: url)) == "https://user:***@example.com/ep1.vtt is not a chapters file (JSON)")
        #expect(
            Words.failure(ExtraError(.http(HTTPError(.status(404), url: try #require(URL(string: url)))), url: url))
                == "https://user:***@example.com/ep1.vtt answered HTTP 404 Not Found")
    }

    @Test func searchAndLibraryFailures() throws {
        let url = try #require(URL(string: "https://itunes.apple.com/search?term=x"))
        #expect(
            Words.search(.request(HTTPError(.status(500), url: url)))
                == "search failed: https://itunes.apple.com/search?term=x answered HTTP 500 Internal Server Error")
        #expect(
            Words.search(.invalidAnswer(url: url, problem: .missingField("results")))
                == "search failed: https://itunes.apple.com/search?term=x did not answer with iTunes Search JSON (no \u{201C}results\u{201D} field)")
        #expect(
            Words.search(.invalidAnswer(url: url, problem: .notJSON))
                == "search failed: https://itunes.apple.com/search?term=x did not answer with iTunes Search JSON (not valid JSON)")
        #expect(Words.library(.noSuchSearchResult(number: 4, count: 0)) == "there is no search result 4: no search has been made yet")
        #expect(Words.library(.noSuchSearchResult(number: 4, count: 1)) == "there is no search result 4: the last search has 1 result")
        #expect(Words.library(.noSuchEpisode(number: 9, podcast: "Show", count: 3)) == "there is no episode 9 in Show: it has 3 episodes")
        #expect(
            Words.library(.noSuchPodcast(reference: "https://u:pw@h/feed", candidates: ["@1 A", "@2 B"]))
                == "no podcast matches \u{201C}https://u:***@h/feed\u{201D}; subscriptions: @1 A, @2 B")
        #expect(
            Words.library(.ambiguousPodcast(reference: "talk", candidates: ["@1 Talk", "@2 Talks"]))
                == "\u{201C}talk\u{201D} matches several podcasts: @1 Talk, @2 Talks")
    }

    @Test func daemonFailuresAndRefusals() {
        #expect(
            Words.daemon(.alreadyRunning(library: "/lib", processID: 42)) == "a download daemon is already running for /lib (process 42)")
        #expect(Words.daemon(.socket(path: "/run/s", problem: .closed)) == "control socket /run/s: the daemon closed the connection")
        #expect(
            Words.daemon(.socket(path: "/run/s", problem: .noReply(within: .seconds(30))))
                == "control socket /run/s: no reply within 30.0 seconds")
        #expect(
            Words.daemon(.socket(path: "/run/s", problem: .cannotStart(executable: "/bin/x", errno: ENOENT)))
                == "control socket /run/s: cannot start /bin/x: No such file or directory")
        #expect(Words.daemon(.didNotStart(log: "/lib/daemon.log")) == "the download daemon did not start; see /lib/daemon.log")
        #expect(
            Words.daemon(.refused(ControlFailure(kind: "jobs-out-of-range", number: 40)))
                == "the download daemon refused: jobs must be between 1 and 32, not 40")
        #expect(
            Words.controlFailure(ControlFailure(kind: "unsupported-version", number: 99))
                == "unsupported protocol version 99 (this daemon speaks 1)")
        #expect(Words.controlFailure(ControlFailure(kind: "failed", detail: nil)) == "no reason given")
        #expect(Words.controlFailure(ControlFailure(kind: "from-the-future", detail: "later")) == "later")
        #expect(Words.controlFailure(ControlFailure(kind: "from-the-future")) == "from-the-future")
    }

    @Test func playerAndOPMLFailures() {
        #expect(
            Words.player(.playerNotFound)
                == "mpv was not found on PATH: install it (sudo apt install mpv), or set SINGLECAST_PLAYER to a player's path")
        #expect(Words.player(.couldNotStart(path: "/usr/bin/mpv", errno: EACCES)) == "could not start /usr/bin/mpv: Permission denied")
        #expect(Words.player(.exitedBeforeReady(path: "/w.sh", status: 3)) == "/w.sh exited (status 3) before it could be driven")
        #expect(Words.player(.speedOutOfRange(9)) == "speed 9.0 is outside 0.25…4.0")
        #expect(Words.opml(.unreadable(source: "subs.opml", errno: EACCES)) == "cannot read subs.opml: Permission denied")
    }

    /// A command that ends with one of the library's failures prints its words; other errors
    /// are left to ArgumentParser.
    @Test func theWordsOfAnErrorACommandEndsWith() {
        #expect(Words.error(LibraryError.noCurrentPodcast) == "no podcast is selected yet: list one with its feed first, or name it")
        #expect(Words.error(ListeningError.nothingToContinue)?.hasPrefix("no episode is being listened to") == true)
        #expect(Words.error(HTTPError(.status(404), url: Self.feedURL)) == "https://example.org/feed.xml answered HTTP 404 Not Found")
        #expect(Words.error(CocoaError(.fileNoSuchFile)) == nil)
    }
}
