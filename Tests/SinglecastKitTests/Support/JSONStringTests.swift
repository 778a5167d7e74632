import Foundation
import Testing

@testable import SinglecastKit

@Suite struct JSONStringTests {
    /// Every control character, quotes, backslashes and text beyond ASCII read back as they were.
    @Test func whatItWritesReadsBack() throws {
        let text = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self) + #"a "quoted" \ path/é — 🎧"#
        var out: [UInt8] = []
        JSONString.append(text, to: &out)
        #expect(try JSONDecoder().decode(String.self, from: Data(out)) == text)
        #expect(!out.contains(where: { $0 < 0x20 }))
    }

    @Test func shortEscapesWhereJSONHasThem() {
        var out: [UInt8] = []
        JSONString.append("a\nb\t\u{1}\"\\", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""a\nb\t\u0001\"\\""#)
    }
}
