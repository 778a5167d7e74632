import SinglecastKit

/// A column of a list: its width in cells (nil: what the fixed ones leave), its alignment,
/// and the style of its text.
struct Column {
    var width: Int?
    var alignRight = false
    var style: CellStyle = []

    static func fixed(_ width: Int, alignRight: Bool = false, style: CellStyle = []) -> Column {
        Column(width: width, alignRight: alignRight, style: style)
    }

    static let flexible = Column(width: nil)
}

extension Canvas {
    /// Draws `texts` in `columns` across `row`, one cell between columns, each cut with `…`
    /// to its width in display cells, so that a column starts at the same screen column on
    /// every row.
    /// A column of width 0 is left out (one that does not fit).
    mutating func putColumns(_ texts: [String], _ columns: [Column], in row: Rect, style: CellStyle = []) {
        let shown = columns.filter { $0.width != 0 }
        let fixed = shown.compactMap(\.width).reduce(0, +) + max(0, shown.count - 1)
        let flexible = max(0, row.width - fixed)
        var x = row.x
        for (text, column) in zip(texts, columns) where column.width != 0 {
            let width = min(column.width ?? flexible, row.x + row.width - x)
            guard width > 0 else { break }
            put(TerminalText.fitted(text, toWidth: width, alignRight: column.alignRight), x: x, y: row.y, limit: width,
                style: style.union(column.style))
            x += width + 1
        }
    }
}

/// Text cut into lines of at most `width` display cells, at spaces where it can.
func wrapped(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    var line = ""
    var lineWidth = 0
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        var word = String(word)
        var wordWidth = TerminalText.width(word)
        if lineWidth > 0 && lineWidth + 1 + wordWidth > width {
            lines.append(line)
            line = ""
            lineWidth = 0
        }
        while wordWidth > width {
            // A word longer than a line is cut where the line ends.
            var head = ""
            var headWidth = 0
            for scalar in word.unicodeScalars {
                let cells = TerminalText.width(of: scalar)
                if headWidth + cells > width { break }
                head.unicodeScalars.append(scalar)
                headWidth += cells
            }
            if headWidth == 0 { break }
            if lineWidth > 0 { lines.append(line) }
            lines.append(head)
            line = ""
            lineWidth = 0
            word = String(word.unicodeScalars.dropFirst(head.unicodeScalars.count))
            wordWidth = TerminalText.width(word)
        }
        if wordWidth == 0 { continue }
        line += (lineWidth > 0 ? " " : "") + word
        lineWidth += (lineWidth > 0 ? 1 : 0) + wordWidth
    }
    if lineWidth > 0 { lines.append(line) }
    return lines
}
