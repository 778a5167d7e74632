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
            while true {
                let index = ByteSearch.firstIndex(
                    of: UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\\"), orBelow: 0x20,
                    in: UnsafeRawBufferPointer(bytes), from: run)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                guard index < bytes.count else { break }
                let byte = bytes[index]
                run = index + 1
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
        }
        out.append(UInt8(ascii: "\""))
    }
}
