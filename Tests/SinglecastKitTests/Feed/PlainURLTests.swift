import Testing

@testable import SinglecastKit

/// The feed reader's shortcut for URLs that need no resolving (what `URL` would keep as written is
/// checked against Foundation in `URLTests`).
@Suite struct PlainURLTests {
    @Test func plainURLBytesAreLettersDigitsAndTheUnbracketedPunctuation() {
        let punctuation = Set("-._~:/?@!$&'()*+,;=".utf8)
        for byte in UInt8.min...UInt8.max {
            let isLetterOrDigit = (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
            #expect(PlainURL.isPlainByte(byte) == (isLetterOrDigit || punctuation.contains(byte)), "\(byte)")
        }
    }

    @Test(arguments: [
        ("https://cdn.example.com/x.mp3?a=1&b=%7E~", true), ("mailto:someone@example.com", true),
        ("https://cdn.example.com/%7", false), ("https://cdn.example.com/%", false), ("https://x/%zz", false),
        ("https://cdn.example.com/[1].mp3", false), ("https://x/a#t", false), ("https://x/a b", false),
        ("https://x/\u{FC}", false), ("media/1.mp3", false), ("1https://x", false),
    ])
    func plainAbsoluteURLs(text: String, isPlain: Bool) {
        #expect(PlainURL.isAbsolute(text) == isPlain)
    }
}
