/// Tells which URL strings in a feed need no work: an absolute URL whose text `URL` keeps as
/// it is is taken as written (most of a feed's links and enclosures), saving `URL`'s parse.
enum PlainURL {
    /// Whether `string` is an absolute URL whose text `URL` would keep as it is: a scheme, then
    /// only characters a URL may hold unescaped (no `[`, `]` or `#`, which are legal in some
    /// places only), and `%` only before two hex digits.
    static func isAbsolute(_ string: String) -> Bool {
        guard hasScheme(string) else { return false }
        var string = string
        return string.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                        return false
                    }
                    index += 3
                } else {
                    guard isPlainByte(bytes[index]) else { return false }
                    index += 1
                }
            }
            return true
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Whether a URL may hold the byte unescaped anywhere: letters, digits, and RFC 3986's
    /// unreserved and reserved punctuation but for `[`, `]` and `#` (`-._~:/?@!$&'()*+,;=`),
    /// as one bit per ASCII byte, which costs less than reading an array of 256 flags with the
    /// string's iterator (figures in `Benchmarks/README.md`).
    static func isPlainByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0..<64: (0xAFFF_FFD2_0000_0000 as UInt64) >> byte & 1 == 1
        case 64..<128: (0x47FF_FFFE_87FF_FFFF as UInt64) >> (byte - 64) & 1 == 1
        default: false
        }
    }

    /// Whether a URL string starts with a scheme (`https:`), so needs no base.
    static func hasScheme(_ string: String) -> Bool {
        var offset = 0
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: ":"): return offset > 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if offset == 0 { return false }
            default: return false
            }
            offset += 1
        }
        return false
    }
}
