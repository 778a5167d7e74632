import Testing

@testable import SinglecastKit

/// Runs `chunks` through a filter as one document and returns what libxml2 would read.
private func filtered(_ chunks: [[UInt8]]) throws -> (text: String, output: FeedInputFilter.Output?) {
    var filter = FeedInputFilter()
    var bytes: [UInt8] = []
    var output: FeedInputFilter.Output?
    for (index, chunk) in chunks.enumerated() {
        try chunk.withUnsafeBytes { chunk in
            try filter.process(chunk, isFinal: index == chunks.count - 1) { piece, kind, _ in
                bytes += piece
                output = kind
            }
        }
    }
    return (String(decoding: bytes, as: UTF8.self), output)
}

private let rss = Array("<rss>".utf8)

@Suite struct FeedInputFilterTests {
    @Test(arguments: [
        // A valid sequence split by a chunk boundary.
        ([rss + [0x63, 0x61, 0x66, 0xC3], [0xA9]], "<rss>caf\u{E9}"),
        ([rss + [0xE2], [0x80], [0x99, 0x73]], "<rss>\u{2019}s"),
        ([rss + [0xF0, 0x9F], [0x8E, 0xA7]], "<rss>\u{1F3A7}"),
        // Windows-1252 bytes, alone, at a boundary, and at the very end.
        ([rss + [0x92, 0x73]], "<rss>\u{2019}s"),
        ([rss + [0xC3], [0x78]], "<rss>\u{C3}x"),
        ([rss + [0xE2, 0x80], []], "<rss>\u{E2}\u{20AC}"),
        ([rss + [0xE9]], "<rss>\u{E9}"),
        // Surrogates and overlong forms are not UTF-8.
        ([rss + [0xED, 0xA0, 0x80]], "<rss>\u{ED}\u{A0}\u{20AC}"),
        ([rss + [0xC0, 0xAF]], "<rss>\u{C0}\u{AF}"),
    ])
    func repairsUTF8(chunks: [[UInt8]], expected: String) throws {
        #expect(try filtered(chunks) == (expected, .utf8))
    }

    @Test func dropsTheControlCharactersXMLForbids() throws {
        // Tab, line feed and carriage return stay; in the fast path and after a repair.
        let plain: [UInt8] = rss + Array("a\u{0B}b\tc\nd\re\u{00}f".utf8)
        #expect(try filtered([plain]) == ("<rss>ab\tc\nd\ref", .utf8))
        #expect(try filtered([rss + [0x92, 0x1B, 0x41]]) == ("<rss>\u{2019}A", .utf8))
    }

    @Test func stripsWhitespaceAndByteOrderMarkBeforeTheDeclaration() throws {
        let document: [UInt8] = [0xEF, 0xBB, 0xBF, 0x0A, 0x20] + Array("<?xml version=\"1.0\"?><rss/>".utf8)
        #expect(try filtered([document]).text == "<?xml version=\"1.0\"?><rss/>")
        #expect(try filtered(document.map { [$0] } + [[]]).text == "<?xml version=\"1.0\"?><rss/>")
    }

    @Test func convertsDeclaredSingleByteEncodings() throws {
        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss>".utf8) + [0xE9, 0x80]
        #expect(try filtered([latin1]) == ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss>\u{E9}\u{20AC}", .utf8))
        #expect(try filtered([latin1 + [0x08, 0x41]]).text.hasSuffix("<rss>\u{E9}\u{20AC}A"))
        // Valid UTF-8 in a document declared single-byte is read as UTF-8.
        #expect(try filtered([latin1 + [0xC3, 0xA9]]).text.hasSuffix("<rss>\u{E9}\u{20AC}\u{E9}"))
        let latin9: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-15\"?><rss>".utf8) + [0xA4, 0x20]
        #expect(try filtered([latin9]).text.hasSuffix("<rss>\u{20AC} "))
    }

    @Test func convertsUTF16ToUTF8() throws {
        let utf16: [UInt8] = [0xFF, 0xFE] + "<rss/>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        var filter = FeedInputFilter()
        var kinds: [FeedInputFilter.Output] = []
        var bytes: [UInt8] = []
        try utf16.withUnsafeBytes { chunk in
            try filter.process(chunk, isFinal: true) { piece, kind, _ in
                bytes += piece
                kinds.append(kind)
            }
        }
        #expect(bytes == Array("<rss/>".utf8))
        #expect(kinds == [.utf8])
    }

    /// The fast scan finds the first fault where a plain byte-by-byte reading of the definition
    /// does, in texts that mix ASCII runs, line feeds, valid sequences of every length and
    /// faults of every kind, cut anywhere.
    @Test func findsTheFirstProblemWhereAByteByByteReadingDoes() {
        let pieces: [[UInt8]] = [
            Array("plain text <tag> ".utf8), Array("abcdefghijklmnopq".utf8), [0x0A], [0x09], [0x0D], [0x20],
            Array("\u{E9}".utf8), Array("\u{201C}".utf8), Array("\u{20AC}".utf8), Array("\u{1F3A7}".utf8),
            Array("\u{FFFD}".utf8), [0x00], [0x01], [0x1F], [0x7F], [0xC0, 0x80], [0xC2], [0xE2, 0x80], [0xF0, 0x9F],
            [0x80], [0xFF], [0xED, 0xA0, 0x80], [0xE0, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC3, 0x41],
        ]
        func byteByByte(_ bytes: [UInt8]) -> Int {
            var index = 0
            while index < bytes.count {
                if bytes[index] < 0x80 {
                    if UTF8Sequence.isForbiddenControl(bytes[index]) { return index }
                    index += 1
                } else if case .valid(let length) = UTF8Sequence.classify(bytes, at: index) {
                    index += length
                } else {
                    return index
                }
            }
            return index
        }
        var random = SeededRandom(seed: 19)
        for _ in 0..<20_000 {
            var text: [UInt8] = []
            for _ in 0..<random.below(24) { text += pieces[random.below(pieces.count)] }
            let found = text.withUnsafeBytes { UTF8Sequence.firstProblem(in: $0) }
            #expect(found == byteByByte(text), "\(text)")
        }
    }
}
