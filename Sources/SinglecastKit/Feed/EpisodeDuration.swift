/// Parses `<itunes:duration>`.
public enum EpisodeDuration {
    /// The duration in whole seconds (fractions dropped) of `"S"`, `"M:S"` or `"H:M:S"`,
    /// each part made of digits, the last one optionally with a decimal fraction
    /// (`"1:02:03.5"`, `"90.5"`); nil for anything else.
    public static func parse(_ s: String) -> Int? {
        var seconds = 0
        var parts = 0
        var digits = 0  // in the current part
        var part = 0
        var inFraction = false
        for byte in s.utf8.trimmingASCIIWhitespace() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !inFraction else { continue }
                digits += 1
                guard digits <= 9 else { return nil }  // far from overflow
                part = part * 10 + Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: ":") where !inFraction && digits > 0 && parts < 2:
                seconds = seconds * 60 + part
                parts += 1
                (part, digits) = (0, 0)
            case UInt8(ascii: ".") where !inFraction && digits > 0:
                inFraction = true
            default:
                return nil
            }
        }
        guard digits > 0, !(inFraction && s.utf8.trimmingASCIIWhitespace().last == UInt8(ascii: ".")) else {
            return nil
        }
        return seconds * 60 + part
    }
}

extension Collection where Element == UInt8, SubSequence: BidirectionalCollection {
    /// The bytes without leading and trailing spaces, tabs and line breaks.
    func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
        let trimmedStart = self[...].drop(while: isSpace)
        guard let last = trimmedStart.lastIndex(where: { !isSpace($0) }) else { return trimmedStart[trimmedStart.endIndex...] }
        return trimmedStart[...last]
    }
}
