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

    /// Each byte that needs an escape is found wherever it stands, before, inside or after a
    /// run of eight plain bytes.
    @Test(arguments: ["\"", "\\", "\n", "\u{1}", "\u{1F}"])
    func escapesAreFoundAtEveryPosition(_ special: String) throws {
        for position in 0..<20 {
            let text = String(repeating: "a", count: position) + special + String(repeating: "é", count: 9) + special
            var out: [UInt8] = []
            JSONString.append(text, to: &out)
            #expect(try JSONDecoder().decode(String.self, from: Data(out)) == text, "at \(position)")
            #expect(!out.contains(where: { $0 < 0x20 }))
            let escapeLength = ["\"": 2, "\\": 2, "\n": 2, "\u{1}": 6, "\u{1F}": 6][special]!
            #expect(out.count == 2 + text.utf8.count + 2 * (escapeLength - 1), "each of the two escaped once, at \(position)")
        }
    }

    @Test func shortEscapesWhereJSONHasThem() {
        var out: [UInt8] = []
        JSONString.append("a\nb\t\u{1}\"\\", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""a\nb\t\u0001\"\\""#)
    }
}
