/// Writes JSON strings: the one escaper of the library's JSON (a sync's uploads) and the
/// command line's (`episodes --json`).
public enum JSONString {
    /// Appends `value` as a JSON string: `"` and `\` escaped, control characters as `\n`,
    /// `\t`… or `\u00XX`.
    public static func append(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { bytes in
            // The bytes between two escapes go in one copy.
            var run = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time while none needs an escape: a listing's show notes are
                // long runs of plain text.
                if index + 8 <= bytes.count,
                    !needsEscape(UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else {
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                index += 1
                run = index
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0x0F)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is `"`, `\` or a control character (each test
    /// flags a byte's high bit: a byte below 0x20, or one equal to `"` or `\` once XORed to 0).
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ limit: UInt8, _ word: UInt64) -> Bool { (word &- ones &* UInt64(limit)) & ~word & highBits != 0 }
        return hasByteBelow(0x20, word) || hasByteBelow(1, word ^ (ones &* 0x22)) || hasByteBelow(1, word ^ (ones &* 0x5C))
    }
}
