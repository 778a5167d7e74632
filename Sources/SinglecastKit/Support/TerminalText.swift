/// Text from feeds made fit for a terminal cell grid: control characters removed, widths
/// measured in display cells as terminals measure them, and cuts marked with `…`.
///
/// Both front ends (the command line's tables and the terminal UI) measure and cut with these,
/// so a column starts at the same screen column on every row whatever the titles hold.
public enum TerminalText {
    /// `text` with every control character (C0, DEL and the C1 range U+0080–U+009F, which an
    /// 8-bit terminal reads as ESC sequences) removed; tabs and line breaks become spaces, so a
    /// feed's text can never move the cursor, clear the screen or set the window title.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\t" || scalar == "\n" || scalar == "\r" {
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
        var total = 0
        for scalar in text.unicodeScalars { total += width(of: scalar) }
        return total
    }

    /// `text` cut to at most `cells` display cells, ending in `…` when anything was cut; a
    /// wide character that would straddle the limit is left out whole.
    public static func truncated(_ text: String, toWidth cells: Int) -> String {
        guard cells > 0 else { return "" }
        if width(text) <= cells { return text }
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let cellsOfScalar = width(of: scalar)
            if used + cellsOfScalar > cells - 1 { break }
            kept.append(scalar)
            used += cellsOfScalar
        }
        return String(kept) + "…"
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

    /// East Asian Wide and Fullwidth characters (Unicode's EastAsianWidth.txt, `W` and `F`),
    /// besides the emoji that `isEmojiPresentation` finds.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
