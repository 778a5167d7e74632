/// Text from feeds made fit for a terminal cell grid: control characters removed, widths
/// measured in display cells as terminals measure them, and cuts marked with `…`.
///
/// Both front ends (the command line's tables and the terminal UI) measure and cut with these,
/// so a column starts at the same screen column on every row whatever the titles hold.
public enum TerminalText {
    /// `text` with every control character (C0, DEL and the C1 range U+0080–U+009F, which an
    /// 8-bit terminal reads as ESC sequences) removed; tabs and line breaks become spaces, so a
    /// feed's text can never move the cursor, clear the screen or set the window title. With
    /// `keepingLineBreaks`, `\n` stays: for whole lines of output, whose breaks are the writer's.
    public static func sanitized(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard containsControl(text, besidesLineBreaks: keepingLineBreaks) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" && keepingLineBreaks {
                scalars.append(scalar)
            } else if scalar == "\t" || scalar == "\n" || scalar == "\r" {
                scalars.append(" ")
            } else if !isControl(scalar) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The number of terminal cells `text` takes: wide East Asian characters and emoji count
    /// two, combining marks and zero-width characters none, controls none.
    public static func width(_ text: String) -> Int {
        var copy = text
        // Printable ASCII, most of any listing, takes a cell a byte.
        let isPrintableASCII = copy.withUTF8 { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        if isPrintableASCII { return text.utf8.count }
        var total = 0
        for scalar in text.unicodeScalars { total += width(of: scalar) }
        return total
    }

    /// `text` cut to at most `cells` display cells, ending in `…` when anything was cut; a
    /// wide character that would straddle the limit is left out whole. With `keepingEnd`, the
    /// start goes instead and `…` begins the text (a path keeps its file name).
    public static func truncated(_ text: String, toWidth cells: Int, keepingEnd: Bool = false) -> String {
        guard cells > 0 else { return "" }
        if width(text) <= cells { return text }
        let scalars = text.unicodeScalars
        var used = 0
        if keepingEnd {
            var start = scalars.endIndex
            while start > scalars.startIndex {
                let before = scalars.index(before: start)
                used += width(of: scalars[before])
                if used > cells - 1 { break }
                start = before
            }
            return "…" + String(scalars[start...])
        }
        var end = scalars.startIndex
        while end < scalars.endIndex {
            used += width(of: scalars[end])
            if used > cells - 1 { break }
            end = scalars.index(after: end)
        }
        return String(scalars[..<end]) + "…"
    }

    /// `text` cut to `cells` and padded with spaces to exactly that width (on the right, or on
    /// the left when `alignRight`).
    public static func fitted(_ text: String, toWidth cells: Int, alignRight: Bool = false) -> String {
        let cut = truncated(text, toWidth: cells)
        let padding = String(repeating: " ", count: max(0, cells - width(cut)))
        return alignRight ? padding + cut : cut + padding
    }

    /// The cells one scalar takes, as `wcwidth` counts them in a UTF-8 locale.
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) || value == 0x200B { return 0 }  // Hangul medial vowels and final consonants, zero-width space
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `text` holds a control character, read in UTF-8 bytes (a C1 control is 0xC2
    /// then 0x80–0x9F) so that a whole listing's text is checked quickly.
    private static func containsControl(_ text: String, besidesLineBreaks: Bool) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in
            var previous: UInt8 = 0
            for byte in bytes {
                if byte < 0x20 && !(besidesLineBreaks && byte == 0x0A) || byte == 0x7F || previous == 0xC2 && byte <= 0x9F {
                    return true
                }
                previous = byte
            }
            return false
        }
    }

    /// East Asian Wide and Fullwidth characters (Unicode's EastAsianWidth.txt, `W` and `F`),
    /// besides the emoji that `isEmojiPresentation` finds.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
