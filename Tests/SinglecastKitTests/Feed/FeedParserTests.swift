import Foundation
import SinglecastKit
import Testing
import TestSupport

/// Parses `Fixtures/feeds/<name>` in one chunk, naming it by its file name.
private func parse(_ name: String, baseURL: URL? = URL(string: "https://example.com/podcast/feed.xml")) throws -> Feed {
    try FeedParser.parse(Fixtures.data("feeds/\(name)"), baseURL: baseURL, source: name)
}

/// Parses `data` handed over `chunkSize` bytes at a time.
private func parse(_ data: Data, chunkSize: Int, source: String) throws -> Feed {
    let parser = FeedParser(baseURL: URL(string: "https://example.com/podcast/feed.xml"), source: source)
    try data.withUnsafeBytes { bytes in
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + chunkSize, bytes.count)]))
        }
    }
    return try parser.finish()
}

private func date(_ iso8601: String) -> Date {
    try! Date(iso8601, strategy: .iso8601)
}

@Suite struct RSSTests {
    @Test func channelAndItemsWithITunes() throws {
        let feed = try parse("rss-itunes.xml")
        #expect(
            feed.podcast
                == Podcast(
                    title: "Swift on Linux",
                    link: URL(string: "https://example.com/show"),
                    description: "Conversations about Swift on servers.",
                    author: "Jane Appleseed",
                    imageURL: URL(string: "https://example.com/art.jpg"),
                    feedURL: URL(string: "https://example.com/podcast/feed.xml"),
                    newFeedURL: URL(string: "https://new.example.com/feed.xml")
                )
        )
        #expect(feed.warnings.isEmpty)
        #expect(
            feed.episodes == [
                Episode(
                    title: "Episode 2: Concurrency",
                    guid: "ep-2",
                    link: "https://example.com/episodes/2",
                    published: date("2024-06-04T07:30:00Z"),
                    duration: 3723,
                    description: "<p>Full <b>show notes</b>.</p>",
                    enclosure: Enclosure(
                        url: "https://cdn.example.com/ep2.mp3?source=rss&n=2",
                        length: 34_567_890,
                        type: "audio/mpeg"
                    ),
                    season: 1,
                    episodeNumber: 2,
                    explicit: true
                ),
                Episode(
                    title: "Episode 1: Hello",
                    guid: "https://example.com/episodes/1",
                    published: date("2024-06-03T08:00:00Z"),
                    duration: 754,
                    description: "Only an iTunes summary.",
                    enclosure: Enclosure(url: "https://cdn.example.com/ep1.m4a", length: 0, type: "audio/x-m4a"),
                    explicit: false
                ),
            ]
        )
    }

    @Test func iTunesUnderItsLegacyNamespace() throws {
        let feed = try parse("itunes-legacy-namespace.xml")
        #expect(feed.podcast.author == "Legacy Author")
        #expect(feed.podcast.imageURL == URL(string: "https://example.com/legacy.jpg"))
        #expect(feed.episodes.map(\.duration) == [2710])
        #expect(feed.episodes.map(\.episodeNumber) == [7])
    }

    @Test func iTunesPrefixNeverDeclared() throws {
        let feed = try parse("itunes-undeclared-prefix.xml")
        #expect(feed.podcast.author == "Undeclared Author")
        #expect(feed.podcast.imageURL == URL(string: "https://example.com/careless.jpg"))
        #expect(feed.episodes.map(\.duration) == [3600])
        #expect(feed.episodes.map(\.season) == [3])
        #expect(feed.episodes.map(\.explicit) == [false])
        #expect(feed.warnings.isEmpty)
    }

    @Test func podcasting20TranscriptAndChapters() throws {
        let episode = try #require(try parse("podcasting20.xml").episodes.first)
        #expect(
            episode.transcripts == [
                Transcript(url: "https://example.com/ep1.vtt", type: "text/vtt"),
                Transcript(url: "https://example.com/ep1.srt", type: "application/srt"),
            ])
        #expect(episode.chaptersURL == "https://example.com/ep1-chapters.json")
    }

    @Test func podcasting20SeveralTranscriptsWithLanguagesKeptInFeedOrder() throws {
        let episodes = try parse("podcasting20-extras.xml").episodes
        #expect(
            episodes[0].transcripts == [
                Transcript(url: "https://example.com/ep1.txt", type: "text/plain", language: "en"),
                Transcript(url: "https://example.com/ep1.vtt", type: "text/vtt", language: "en", rel: "captions"),
                Transcript(url: "https://example.com/ep1.json", type: "application/json", language: "en"),
                Transcript(url: "https://example.com/podcast/transcripts/ep1-de.srt", type: "application/x-subrip", language: "de"),
                Transcript(url: "https://example.com/ep1-de.html", type: "text/html", language: "DE"),
                Transcript(url: "https://example.com/ep1-fr.pdf", type: "application/pdf", language: "fr"),
            ], "the repeated ep1.vtt is listed once")
        #expect(episodes[1].transcripts == [Transcript(url: "https://example.com/ep2.srt")])
    }

    @Test func rss1RDF() throws {
        let feed = try parse("rss1-rdf.xml")
        #expect(feed.podcast.title == "RDF Show")
        #expect(feed.podcast.description == "RSS 1.0")
        #expect(
            feed.episodes == [
                Episode(
                    title: "RDF item", guid: "https://example.com/rdf/1", link: "https://example.com/rdf/1",
                    published: date("2024-05-01T12:00:00Z"))
            ]
        )
    }

    @Test func identityFallsBackToLinkThenEnclosure() throws {
        let feed = try parse("missing-guid.xml")
        #expect(
            feed.episodes.map(\.identity) == [
                "https://example.com/a", "https://example.com/b.mp3", "https://example.com/c.mp3", nil,
            ]
        )
    }
}

@Suite struct AtomTests {
    @Test func entriesWithEnclosures() throws {
        let feed = try parse("atom-enclosures.xml")
        #expect(
            feed.podcast
                == Podcast(
                    title: "Atom Cast",
                    link: URL(string: "https://example.org/"),
                    description: "An Atom podcast",
                    author: "Atom Author",
                    imageURL: URL(string: "https://example.org/logo.png"),
                    feedURL: URL(string: "https://example.com/podcast/feed.xml")
                )
        )
        #expect(
            feed.episodes == [
                Episode(
                    title: "Atom episode 2",
                    guid: "urn:uuid:entry-2",
                    link: "https://example.org/2",
                    published: date("2024-06-02T08:00:00.250Z"),
                    description: "<p>Content of two.</p>",
                    enclosure: Enclosure(url: "https://example.org/2.mp3", length: 1234, type: "audio/mpeg")
                ),
                Episode(
                    title: "Atom episode 1",
                    guid: "urn:uuid:entry-1",
                    link: "https://example.org/1",
                    published: date("2024-06-01T08:00:00Z"),
                    description: "Summary of one.",
                    enclosure: Enclosure(url: "https://example.org/1.ogg", type: "audio/ogg")
                ),
            ]
        )
    }
}

@Suite struct URLTests {
    @Test func relativeURLsResolveAgainstTheFeedURL() throws {
        let feed = try parse("relative-urls.xml")
        #expect(feed.podcast.link == URL(string: "https://example.com/"))
        #expect(feed.podcast.imageURL == URL(string: "https://example.com/podcast/images/art.jpg"))
        #expect(feed.episodes.first?.link == "https://example.com/podcast/episodes/1.html")
        #expect(feed.episodes.first?.enclosure?.url == "https://example.com/media/1.mp3")
    }

    @Test func relativeURLsStayRelativeWithoutABase() throws {
        let feed = try parse("relative-urls.xml", baseURL: nil)
        #expect(feed.episodes.first?.enclosure?.url == "../media/1.mp3")
        #expect(feed.podcast.feedURL == nil)
    }

    @Test func urlsAreKeptAsFoundationWritesThem() throws {
        let feed = try parse("urls-needing-escapes.xml")
        let written = [
            "https://cdn.example.com/a b/ü.mp3", "https://cdn.example.com/x.mp3?a=1&b=%7E~",
            "https://cdn.example.com/bad%zz.mp3", "https://cdn.example.com/[1].mp3#t=10",
        ]
        #expect(feed.episodes.prefix(4).map(\.enclosure?.url) == written.map { URL(string: $0)?.absoluteString })
        #expect(feed.episodes[0].enclosure?.url == "https://cdn.example.com/a%20b/%C3%BC.mp3")
        #expect(feed.episodes[1].enclosure?.url == "https://cdn.example.com/x.mp3?a=1&b=%7E~")
        #expect(feed.episodes[2].enclosure?.url == "https://cdn.example.com/bad%25zz.mp3")
        #expect(feed.episodes[4].link == nil)
    }

    @Test func xmlBaseNestsAndOverridesTheFeedURL() throws {
        let feed = try parse("xml-base.xml")
        #expect(feed.podcast.link == URL(string: "https://base.example.net/podcast/home.html"))
        #expect(feed.episodes.map(\.link) == [
            "https://base.example.net/podcast/season1/one.html",
            "https://base.example.net/podcast/two.html",
        ])
        #expect(feed.episodes.map(\.enclosure?.url) == [
            "https://base.example.net/podcast/season1/one.mp3",
            "https://cdn.example.net/audio/two.mp3",
        ])
    }
}

@Suite struct TextTests {
    @Test func htmlEntitiesDecode() throws {
        let feed = try parse("html-entities.xml")
        #expect(feed.podcast.title == "Caf\u{E9}\u{A0}Talk & Friends")
        #expect(feed.podcast.description == "It\u{2019}s \u{201C}great\u{201D}\u{2026} \u{A9} 2024 \u{2014} \u{20AC}5 \u{2122} \u{2014} <b>")
        #expect(feed.episodes.first?.title == "Na\u{EF}ve \u{DC}ber \u{3D1} \u{2660}")
        #expect(feed.episodes.first?.description == "<p>Markup stays as text</p>")
    }

    @Test func cdataPassesThroughAsText() throws {
        let feed = try parse("cdata.xml")
        #expect(feed.podcast.title == "Tom & Jerry's <Show>")
        #expect(feed.episodes.first?.title == "Part one & <two> and & more")
        #expect(feed.episodes.first?.description == #"<p>Caf&eacute; &amp; <a href="https://example.com/?a=1&b=2">link</a></p>"#)
    }
}

@Suite struct EncodingTests {
    @Test(arguments: [
        ("iso-8859-1.xml", "Caf\u{E9} \u{FC}ber \u{A9} \u{BD}"),
        ("declared-latin1-but-utf8.xml", "Caf\u{E9} \u{FC}ber \u{A9} \u{BD}"),
        ("iso-8859-15.xml", "\u{20AC}5 \u{153}uvre \u{160}"),
        ("windows-1252.xml", "It\u{2019}s \u{201C}great\u{201D} \u{2014} \u{20AC}5 caf\u{E9}"),
        ("utf8-with-cp1252-bytes.xml", "Don\u{2019}t caf\u{E9} \u{2013} na\u{EF}ve and r\u{E9}sum\u{E9} \u{201C}ok\u{201D}"),
        ("utf16le-bom.xml", "Caf\u{E9} \u{65E5}\u{672C} \u{1F3A7}"),
        ("utf16be-bom.xml", "Caf\u{E9} \u{65E5}\u{672C} \u{1F3A7}"),
        ("utf32le-bom.xml", "Caf\u{E9} \u{65E5}\u{672C} \u{1F3A7}"),
        ("euc-jp.xml", "\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{30DD}\u{30C3}\u{30C9}\u{30AD}\u{30E3}\u{30B9}\u{30C8}"),
        ("blank-lines-before-declaration.xml", "After blank lines"),
        ("bom-then-whitespace.xml", "After a BOM and blank lines"),
        ("no-declaration.xml", "Sans d\u{E9}claration"),
    ])
    func titlesReadRight(fixture: String, title: String) throws {
        let feed = try parse(fixture)
        #expect(feed.podcast.title == title)
        #expect(feed.episodes.map(\.title) == [title])
        // Bytes that are not UTF-8 in a document that says it is are repaired.
        #expect(feed.warnings.map(\.kind) == (fixture == "utf8-with-cp1252-bytes.xml" ? [.repaired] : []))
    }

    @Test func controlCharactersAreDroppedNotFatal() throws {
        let feed = try parse("control-characters.xml")
        #expect(feed.podcast.title == "Control Characters")
        #expect(feed.episodes.map(\.title) == ["Backspace and escape, pasted", "Tab\tstays"])
        #expect(feed.episodes.first?.description == "Substitute in a description (and a NUL)")
        #expect(feed.warnings.map(\.kind) == [.repaired])
    }

    @Test func validUTF8NextToCP1252BytesIsKept() throws {
        let feed = try parse("utf8-with-cp1252-bytes.xml")
        #expect(feed.episodes.first?.description == "Valid UTF-8: caf\u{E9} \u{2014} \u{1F3A7}")
    }
}

@Suite struct ChunkingTests {
    static let fixtures = [
        "rss-itunes.xml", "atom-enclosures.xml", "html-entities.xml", "cdata.xml", "xml-base.xml",
        "utf8-with-cp1252-bytes.xml", "windows-1252.xml", "utf16le-bom.xml", "utf32le-bom.xml",
        "bom-then-whitespace.xml", "truncated.xml", "control-characters.xml",
        "recover-undefined-entity.xml", "recover-bare-ampersand.xml", "recover-illegal-character-reference.xml",
        "recover-mismatched-end-tag.xml", "recover-missing-end-tag.xml", "recover-unterminated-cdata.xml",
        "recover-comment-before-declaration.xml", "recover-invalid-utf8.xml", "recover-content-after-root.xml",
        "recover-text-before-root.xml", "comment-after-root.xml", "billion-laughs.xml", "media-rss.xml",
        "fuzz-long-doctype-in-small-chunks.xml", "cut-before-first-item.xml", "cut-in-cdata-before-first-item.xml",
        "cut-inside-tag-before-first-item.xml", "recover-invalid-euc-jp.xml", "recover-invalid-shift-jis.xml",
        "recover-invalid-utf16.xml", "escaped-notes.xml", "recover-iconv-output-not-utf8.xml",
    ]

    @Test(arguments: fixtures)
    func anyChunkingGivesTheSameFeed(fixture: String) throws {
        let data = try Fixtures.data("feeds/\(fixture)")
        let whole = try parse(data, chunkSize: data.count, source: fixture)
        #expect(try parse(data, chunkSize: 1, source: fixture) == whole)
        #expect(try parse(data, chunkSize: 7, source: fixture) == whole)
    }
}

@Suite struct EscapedTextTests {
    /// The markup repair writes references in text as their characters in CDATA sections:
    /// what the parser reads stays what the feed says, escaped or not.
    @Test func escapedTextReadsAsItsCharacters() throws {
        let feed = try parse("escaped-notes.xml")
        #expect(feed.podcast.title == "Escaped & Plain")
        let notes = "<p>Caf\u{E9} &amp; \u{1F3A7} ]]> a\nb\rc &lt;3</p>"
        #expect(feed.episodes.map(\.description) == [notes, notes])
        #expect(feed.warnings.isEmpty)
    }
}

@Suite struct IllFormedTests {
    @Test func cutOffFeedKeepsCompleteEpisodes() throws {
        let feed = try parse("truncated.xml")
        #expect(feed.podcast.title == "Cut Short")
        #expect(feed.episodes.map(\.guid) == ["t-1", "t-2"])
        #expect(feed.warnings == [FeedWarning(kind: .cutOff(inside: "title"), source: "truncated.xml", line: 14)])
    }

    @Test func cutOffBeforeAnyEpisodeKeepsThePodcast() throws {
        let data = Data("<rss><channel><title>Cut</title><item><title>On".utf8)
        let feed = try FeedParser.parse(data, baseURL: nil, source: "cut.xml")
        #expect(feed.podcast.title == "Cut")
        #expect(feed.episodes.isEmpty, "nothing identifies the item cut off")
        #expect(feed.warnings.map(\.kind) == [.cutOff(inside: "title")])
    }

    @Test func cutOffBeforeThePodcastIsNamedIsAnError() {
        let data = Data("<rss><channel><descrip".utf8)
        #expect(throws: FeedError.self) { try FeedParser.parse(data, baseURL: nil, source: "cut.xml") }
    }

    @Test func aFeedCutInsideItsFirstItemKeepsThePodcastAndTheItem() throws {
        let feed = try parse("cut-before-first-item.xml")
        #expect(feed.podcast.title == "Cut Before Any Item")
        #expect(feed.podcast.description == "A feed whose transfer stopped early.")
        #expect(
            feed.episodes == [
                Episode(
                    title: "The only episode", guid: "cb-1",
                    enclosure: Enclosure(url: "https://example.com/cb-1.mp3", length: 1000, type: "audio/mpeg"))
            ])
        #expect(feed.warnings == [FeedWarning(kind: .cutOff(inside: "description"), source: "cut-before-first-item.xml", line: 10)])
    }

    @Test func aCDATASectionRunningToTheEndKeepsTheItemItIsIn() throws {
        let feed = try parse("cut-in-cdata-before-first-item.xml")
        #expect(feed.podcast.title == "Open CDATA To The End")
        #expect(feed.episodes.map(\.guid) == ["oc-1"])
        #expect(feed.episodes.map(\.title) == ["Notes never closed"])
        #expect(feed.episodes.first?.enclosure?.url == "https://example.com/oc-1.mp3")
        #expect(feed.warnings.count == 1)
    }

    @Test func aFeedCutInsideATagKeepsWhatCameBefore() throws {
        let feed = try parse("cut-inside-tag-before-first-item.xml")
        #expect(feed.podcast.title == "Cut Inside A Tag")
        // The enclosure's URL arrived whole (its closing quote too), its length did not.
        #expect(
            feed.episodes == [
                Episode(title: "Enclosure cut off", guid: "ct-1", enclosure: Enclosure(url: "https://example.com/ct-1.mp3"))
            ])
        #expect(feed.warnings.count == 1)
    }

    @Test func anXMLErrorMidFeedCostsNoEpisode() throws {
        let feed = try parse("xml-error-after-items.xml")
        #expect(feed.episodes.map(\.guid) == ["e-1", "e-2", "e-3"])
        #expect(feed.episodes.map(\.title) == ["Fine", "Tom & Jerry", "Never reached"])
        #expect(feed.warnings == [FeedWarning(kind: .repaired, source: "xml-error-after-items.xml", line: 10)])
    }

    @Test func aChannelClosedByTheRootEndTagIsRead() throws {
        let feed = try parse("mismatched-tags.xml")
        #expect(feed.podcast.title == "Mismatched")
        #expect(feed.episodes.isEmpty)
        #expect(feed.warnings == [FeedWarning(kind: .repaired, source: "mismatched-tags.xml", line: 3)])
    }

    @Test(arguments: [
        ("not-a-feed.html", FeedError.notAFeed(source: "not-a-feed.html", document: .html)),
        ("not-a-feed-lowercase-doctype.html", FeedError.notAFeed(source: "not-a-feed-lowercase-doctype.html", document: .html)),
        ("not-a-feed.json", FeedError.notAFeed(source: "not-a-feed.json", document: .json)),
        ("not-a-feed.txt", FeedError.notAFeed(source: "not-a-feed.txt", document: .text(start: "This is just some text."))),
        ("other-root.xml", FeedError.notAFeed(source: "other-root.xml", document: .otherXML(root: "opml"))),
        ("empty.xml", FeedError.empty(source: "empty.xml")),
        ("whitespace-only.xml", FeedError.empty(source: "whitespace-only.xml")),
    ])
    func documentsThatAreNotFeedsThrow(fixture: String, error: FeedError) throws {
        #expect(throws: error) { try parse(fixture) }
    }

    @Test func notAFeedIsReportedBeforeTheEnd() throws {
        let parser = FeedParser(baseURL: nil, source: "page.html")
        let page = Data("<html><body>".utf8)
        #expect(throws: FeedError.self) {
            try page.withUnsafeBytes { try parser.parse($0) }
        }
    }
}

/// Entity declarations are never recorded, so never expanded, and nothing external is loaded:
/// a reference to a declared entity is an undefined entity to libxml2.
@Suite struct HostileInputTests {
    @Test func billionLaughsIsNotExpanded() throws {
        let feed = try parse("billion-laughs.xml")
        // The reference is kept as written: nothing was expanded (checked by what is produced,
        // not by how long it took).
        #expect(feed.episodes.map(\.title) == ["Safe item", "&lol9;"])
        #expect(feed.warnings == [FeedWarning(kind: .repaired, source: "billion-laughs.xml", line: 22)])
    }

    @Test func quadraticBlowUpIsNotExpanded() throws {
        let feed = try parse("quadratic-blowup.xml")
        #expect(feed.episodes.map(\.title) == ["Safe item", "Blow-up"])
        #expect(feed.episodes.last?.description == String(repeating: "&big;", count: 50_000))
    }

    @Test func externalEntityIsNotLoaded() throws {
        let feed = try parse("external-entity.xml")
        #expect(feed.episodes.map(\.title) == ["Safe item", "Steal &xxe;"])
        #expect(feed.warnings == [FeedWarning(kind: .repaired, source: "external-entity.xml", line: 13)])
    }

    @Test func externalDTDIsNotLoaded() throws {
        let feed = try parse("external-dtd.xml")
        #expect(feed.episodes.map(\.title) == ["Item &undefined; here"])
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let firstLine = try #require(passwd.split(separator: "\n").first)
        #expect(!"\(feed)".contains(firstLine))
    }

    @Test func parameterEntitiesAreNotExpanded() throws {
        let feed = try parse("parameter-entities.xml")
        #expect(feed.episodes.map(\.title) == ["Item &leaked;"])
        #expect(feed.warnings == [FeedWarning(kind: .repaired, source: "parameter-entities.xml", line: 4)])
    }
}

/// Ill-formed feeds: every item that can be read is kept, in document order, with one warning
/// naming the line of the first fault.
@Suite struct RecoveryTests {
    private func expectRepaired(_ feed: Feed, _ fixture: String, line: Int) {
        #expect(feed.warnings == [FeedWarning(kind: .repaired, source: fixture, line: line)])
    }

    @Test func undefinedEntitiesStayAsWritten() throws {
        let feed = try parse("recover-undefined-entity.xml")
        #expect(feed.episodes.map(\.title) == ["Before the fault", "Notes &gtgt; more", "After the fault"])
        #expect(feed.episodes[1].description == "See &doesnotexist; and \u{E9}t\u{E9}")
        #expect(feed.episodes[1].enclosure?.url == "https://example.com/ue-2.mp3?a=1&doesnotexist;")
        expectRepaired(feed, "recover-undefined-entity.xml", line: 10)
    }

    @Test func bareAmpersandsStayAsWritten() throws {
        let feed = try parse("recover-bare-ampersand.xml")
        #expect(feed.podcast.title == "Tom & Jerry Show")
        #expect(
            feed.episodes.map(\.title) == [
                "Q&A & more & fine", "A lone & at the end &", "Almost a reference &#12 and &# and &;",
            ])
        #expect(feed.episodes[0].enclosure?.url == "https://example.com/amp-1.mp3?a=1&b=2")
        expectRepaired(feed, "recover-bare-ampersand.xml", line: 4)
    }

    @Test func illegalCharacterReferencesAreDropped() throws {
        let feed = try parse("recover-illegal-character-reference.xml")
        #expect(feed.episodes.map(\.title) == ["Start middle end!", "Legal \u{2019} and \u{1F3A7} stay"])
        expectRepaired(feed, "recover-illegal-character-reference.xml", line: 6)
    }

    @Test func mismatchedEndTagsCloseWhatTheyName() throws {
        let feed = try parse("recover-mismatched-end-tag.xml")
        #expect(feed.episodes.map(\.title) == ["Misspelled end tag", "Stray end tag in the notes", "After them"])
        #expect(feed.episodes.map(\.guid) == ["mm-1", "mm-2", "mm-3"])
        #expect(feed.episodes[1].description == "Some notes here")
        expectRepaired(feed, "recover-mismatched-end-tag.xml", line: 6)
    }

    @Test func missingEndTagsAreSupplied() throws {
        let feed = try parse("recover-missing-end-tag.xml")
        #expect(feed.episodes.map(\.title) == ["Unclosed line break", "Item never closed", "Last item"])
        #expect(feed.episodes.map(\.guid) == ["me-1", "me-2", "me-3"])
        #expect(feed.episodes[0].description == "Line oneLine two")
        expectRepaired(feed, "recover-missing-end-tag.xml", line: 7)
    }

    @Test func anUnterminatedCDATASectionEndsWithItsElement() throws {
        let feed = try parse("recover-unterminated-cdata.xml")
        #expect(feed.episodes.map(\.title) == ["Notes never closed", "Closed & fine"])
        #expect(feed.episodes[0].description == "<p>The notes</p> & no end")
        expectRepaired(feed, "recover-unterminated-cdata.xml", line: 7)
    }

    @Test func aCommentBeforeTheDeclaration() throws {
        let feed = try parse("recover-comment-before-declaration.xml")
        #expect(feed.podcast.title == "Comment First")
        #expect(feed.episodes.map(\.title) == ["Only item"])
        expectRepaired(feed, "recover-comment-before-declaration.xml", line: 3)
    }

    @Test func bytesInvalidInTheEncodingAreReadAsWindows1252() throws {
        let feed = try parse("recover-invalid-utf8.xml")
        #expect(feed.episodes.map(\.title) == ["Before", "Caf\u{E9} \u{FF}\u{FE} and \u{C3} cut", "After"])
        expectRepaired(feed, "recover-invalid-utf8.xml", line: 10)
    }

    /// A declaration libxml2 cannot read leaves the encoding to libxml2, which hands over the
    /// bytes that are not UTF-8 as they are: they become replacement characters, never text
    /// that is not UTF-8.
    @Test func bytesLibxml2HandsOverInvalidBecomeReplacementCharacters() throws {
        let feed = try parse("unknown-encoding-invalid-bytes.xml")
        #expect(feed.podcast.title == "Show \u{FFFD}( \u{FFFD}\u{FFFD}")
        #expect(feed.episodes.map(\.title) == ["Item \u{FFFD}\u{FFFD} \u{FFFD}"])
    }

    /// glibc's iconv hands five-byte sequences on from ISO-IR-193, a name of UTF-8: they are not
    /// UTF-8, so each of their bytes becomes a replacement character.
    @Test func sequencesIconvPassesOnUndecodedBecomeReplacementCharacters() throws {
        let feed = try parse("recover-iconv-output-not-utf8.xml")
        let five = String(repeating: "\u{FFFD}", count: 5)
        #expect(feed.episodes.map(\.title) == ["Before", "Five bytes \(five) then caf\u{E9}", "After"])
        #expect(feed.episodes[1].description == "Some notes \(five)")
        expectRepaired(feed, "recover-iconv-output-not-utf8.xml", line: 10)
    }

    @Test(arguments: [("recover-invalid-euc-jp.xml", "EUC-JP"), ("recover-invalid-shift-jis.xml", "Shift_JIS")])
    func bytesInvalidInADeclaredEncodingBecomeReplacementCharacters(fixture: String, encoding: String) throws {
        let feed = try parse(fixture)
        #expect(feed.podcast.title == "\(encoding)\u{306E}\u{30E9}\u{30B8}\u{30AA}")
        #expect(
            feed.episodes.map(\.title) == [
                "\u{7B2C}\u{4E00}\u{56DE} \u{306F}\u{3058}\u{3081}\u{307E}\u{3057}\u{3066}",
                "\u{7B2C}\u{4E8C}\u{56DE} \u{FFFD} \u{FFFD} \u{3068} \u{65E5}\u{672C}\u{8A9E}",
                "\u{7B2C}\u{4E09}\u{56DE} \u{304A}\u{308F}\u{308A}",
            ])
        expectRepaired(feed, fixture, line: 10)
    }

    @Test func aLoneSurrogateInUTF16BecomesAReplacementCharacter() throws {
        let feed = try parse("recover-invalid-utf16.xml")
        #expect(feed.episodes.map(\.title) == ["Before", "A lone surrogate: \u{FFFD}, then more", "After"])
        expectRepaired(feed, "recover-invalid-utf16.xml", line: 10)
    }

    @Test func contentAfterTheRootIsDropped() throws {
        let feed = try parse("recover-content-after-root.xml")
        #expect(feed.episodes.map(\.guid) == ["tw-1"])
        expectRepaired(feed, "recover-content-after-root.xml", line: 11)
    }

    @Test func textBeforeTheRootIsDropped() throws {
        let feed = try parse("recover-text-before-root.xml")
        #expect(feed.podcast.title == "Text First")
        #expect(feed.episodes.map(\.guid) == ["tf-1"])
        expectRepaired(feed, "recover-text-before-root.xml", line: 1)
    }

    @Test func aCommentAfterTheRootIsNoFault() throws {
        let feed = try parse("comment-after-root.xml")
        #expect(feed.episodes.map(\.guid) == ["tc-1"])
        #expect(feed.warnings.isEmpty)
    }
}

/// What feeds leave out, filled in as a reader would.
@Suite struct FallbackTests {
    @Test func mediaRSSStandsInForAMissingEnclosure() throws {
        let feed = try parse("media-rss.xml")
        #expect(
            feed.episodes.map(\.enclosure) == [
                Enclosure(url: "https://example.com/mr-1.mp3", length: 1000, type: "audio/mpeg"),
                Enclosure(url: "https://example.com/mr-2.m4a", length: 2000, type: "audio/mp4"),
                Enclosure(url: "https://example.com/mr-3.mp3", length: 3000, type: "audio/mpeg"),
                Enclosure(url: "https://example.com/mr-4", length: 4000, type: nil),
                nil,
            ])
        #expect(feed.warnings.isEmpty)
    }

    @Test func episodeTitlesFallBack() throws {
        let feed = try parse("missing-titles.xml")
        #expect(
            feed.episodes.map(\.title) == [
                "From media:title", "test", "2024-07-03", "mt-4", "https://example.com/nothing-but-a-link",
                "From media:title again", "From itunes:title",
            ])
        #expect(feed.podcast.title == "The iTunes Title")
    }

    @Test func podcastTitleFallsBackToTheFeedsName() throws {
        #expect(try parse("podcast-without-title.xml").podcast.title == "feed")
        let fromFile = try FeedParser.parse(
            Fixtures.data("feeds/podcast-without-title.xml"), baseURL: nil, source: "/tmp/My Show.rss")
        #expect(fromFile.podcast.title == "My Show")
        let fromRoot = try parse("podcast-without-title.xml", baseURL: URL(string: "https://feeds.example.net/"))
        #expect(fromRoot.podcast.title == "feeds.example.net")
    }

    @Test func urlAttributesAreTrimmed() throws {
        let feed = try parse("url-attributes-with-whitespace.xml")
        #expect(feed.podcast.imageURL == URL(string: "https://example.com/art.jpg"))
        #expect(
            feed.episodes.map(\.enclosure) == [
                Enclosure(url: "https://example.com/one.mp3", length: 123, type: "audio/mpeg"),
                Enclosure(url: "https://example.com/two.mp3", length: 2, type: "audio/mpeg"),
            ])
    }

    @Test func relativePermalinkGuidsResolveLikeLinks() throws {
        let feed = try parse("relative-permalink-guid.xml")
        #expect(
            feed.episodes.map(\.guid) == [
                "https://example.com/episodes/1", "/episodes/2", "https://other.example.org/show/3.html", "ep-4",
            ])
    }
}
