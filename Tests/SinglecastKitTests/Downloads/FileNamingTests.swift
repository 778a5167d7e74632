import Foundation
import Testing

@testable import SinglecastKit

@Suite("FileNaming")
struct FileNamingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var title: String
        var url: String
        var type: String?
        var expected: String
        var testDescription: String { "\(title.debugDescription) \(url)" }
    }

    static let cases: [Case] = [
        Case(title: "Episode 1: The Start", url: "https://h/ep1.mp3", type: "audio/mpeg", expected: "Episode 1: The Start.mp3"),
        Case(title: "Notes with <em>markup</em>", url: "https://h/a.mp3", type: nil, expected: "Notes with markup.mp3"),
        Case(title: "<b>Bold</b> <br/>and <!-- a comment -->more", url: "https://h/a.mp3", type: nil, expected: "Bold and more.mp3"),
        Case(title: "1 < 2 and 3 > 2", url: "https://h/a.mp3", type: nil, expected: "1 < 2 and 3 > 2.mp3"),
        Case(title: "<em>", url: "https://h/show/ep7.mp3", type: nil, expected: "ep7.mp3"),
        Case(title: "AC/DC live", url: "https://h/a.m4a", type: nil, expected: "AC-DC live.m4a"),
        Case(title: "  lots \t of\n\nspace  ", url: "https://h/a.mp3", type: nil, expected: "lots of space.mp3"),
        Case(title: "nul\u{0}and\u{7}bell", url: "https://h/a.mp3", type: nil, expected: "nul and bell.mp3"),
        Case(title: "-rf *", url: "https://h/a.mp3", type: nil, expected: "rf *.mp3"),
        Case(title: "..hidden", url: "https://h/a.mp3", type: nil, expected: "hidden.mp3"),
        Case(title: ".", url: "https://h/show/ep42.mp3", type: nil, expected: "ep42.mp3"),
        Case(title: "..", url: "https://h/show/ep42.mp3", type: nil, expected: "ep42.mp3"),
        Case(title: "", url: "https://h/show/ep42.mp3?utm_source=x&id=9", type: nil, expected: "ep42.mp3"),
        Case(title: " \n ", url: "https://h/", type: "audio/mpeg", expected: "episode.mp3"),
        Case(title: "Tracked", url: "https://h/ep.mp3?x=1.m4a&utm=a/b", type: nil, expected: "Tracked.mp3"),
        Case(title: "From type", url: "https://h/download.php?id=3", type: "audio/x-m4a", expected: "From type.m4a"),
        Case(title: "Type params", url: "https://h/get", type: "audio/ogg; codecs=opus", expected: "Type params.ogg"),
        Case(title: "No extension", url: "https://h/get?id=3", type: nil, expected: "No extension"),
        Case(title: "Unknown type", url: "https://h/get", type: "application/octet-stream", expected: "Unknown type"),
        Case(title: "Already named.mp3", url: "https://h/x.MP3", type: nil, expected: "Already named.mp3"),
        Case(title: "Ünïcödé — 日本語", url: "https://h/a.opus", type: nil, expected: "Ünïcödé — 日本語.opus"),
        Case(title: "Video", url: "https://h/v.mp4", type: "video/mp4", expected: "Video.mp4"),
    ]

    @Test(arguments: cases)
    func safeName(_ c: Case) {
        #expect(FileNaming.safeName(forTitle: c.title, url: URL(string: c.url)!, announcedType: c.type) == c.expected)
    }

    @Test func longTitlesAreCutBetweenWholeCharactersWithinTheLimit() {
        let url = URL(string: "https://h/a.mp3")!
        for title in [String(repeating: "a", count: 500), String(repeating: "é", count: 300),
                      String(repeating: "日", count: 150), String(repeating: "👩‍👩‍👧", count: 40)] {
            let name = FileNaming.safeName(forTitle: title, url: url, announcedType: nil)
            #expect(name.utf8.count <= FileNaming.maximumNameBytes)
            #expect(name.utf8.count > FileNaming.maximumNameBytes - 30)
            #expect(name.hasSuffix(".mp3"))
            #expect(title.hasPrefix(String(name.dropLast(4))))
        }
    }

    @Test func neverUnsafe() {
        let url = URL(string: "https://h/")!
        for title in ["/", "//", "./..", "\u{1}\u{2}", "- -", "...", "-", "a/../b", "\u{202E}evil"] {
            let name = FileNaming.safeName(forTitle: title, url: url, announcedType: nil)
            #expect(!name.isEmpty && name != "." && name != "..")
            #expect(!name.contains("/") && !name.contains("\u{0}"))
            #expect(!name.hasPrefix("-") && !name.hasPrefix("."))
        }
    }

    @Test(arguments: [
        ("audio/mpeg", "mp3"), ("AUDIO/MPEG; charset=x", "mp3"), ("audio/mp4", "m4a"), ("audio/x-m4a", "m4a"),
        ("audio/aac", "aac"), ("audio/ogg", "ogg"), ("audio/opus", "opus"), ("video/mp4", "mp4"),
        ("audio/wav", "wav"), ("audio/flac", "flac"), ("video/quicktime", "mov"),
    ])
    func extensionForType(type: String, ext: String) {
        #expect(FileNaming.fileExtension(forMIMEType: type) == ext)
    }

    @Test func unknownTypesHaveNoExtension() {
        #expect(FileNaming.fileExtension(forMIMEType: "text/html") == nil)
        #expect(FileNaming.fileExtension(forMIMEType: "") == nil)
    }

    @Test(arguments: [
        ("ep.mp3", "mp3"), ("EP.M4A", "m4a"), ("Ep. 12 The Start", nil), ("Version 2.0", nil),
        ("episode", nil), (".mp3", nil), ("a.opus", "opus"), ("Title.chapters.json", nil), ("Title.mp3.part", nil),
    ] as [(String, String?)])
    func mediaExtension(name: String, ext: String?) {
        #expect(FileNaming.mediaExtension(of: name) == ext)
        #expect(FileNaming.stem(of: name) == (ext == nil ? name : String(name.dropLast(ext!.count + 1))))
    }

    @Test func theClashTagIsStableAndDiffersPerURL() {
        // FNV-1a, not Swift's seeded Hasher: the same in every run.
        #expect(FileNaming.clashTag(forEnclosureURL: "") == " [cbf29c]")
        #expect(FileNaming.clashTag(forEnclosureURL: "http://h/1.mp3") == FileNaming.clashTag(forEnclosureURL: "http://h/1.mp3"))
        #expect(FileNaming.clashTag(forEnclosureURL: "http://h/1.mp3") != FileNaming.clashTag(forEnclosureURL: "http://h/2.mp3"))
    }
}
