import SinglecastKit

/// A plain text table: columns padded to their widest cell in display cells (a wide character
/// takes two, a combining mark none), some aligned right, with no control character in any
/// cell. Given a terminal's width it fits it: its `shrinking` columns give up cells first.
struct TextTable {
    /// The header line; none for lines that need no header (live progress).
    var headers: [String]?
    var rightAligned: Set<Int> = []
    /// The columns cut with `…` when the table is wider than its width, in this order, each
    /// down to ``narrowest`` cells: titles first, then paths.
    var shrinking: [Int] = []
    /// The columns cut at their start, so that a path keeps its file name.
    var keepingEnd: Set<Int> = []
    var rows: [[String]] = []

    /// The fewest cells a shrinking column is cut to: a title cut shorter says nothing.
    static let narrowest = 10

    /// The table's lines; with a `width` (a terminal's), none wider than it: the shrinking
    /// columns are cut, and should that not be enough the lines themselves. Without one (a
    /// pipe, a file) every value is whole.
    func render(width: Int?) -> String {
        // Each cell sanitized and measured once, so that a 20,000-row listing stays quick.
        let cells = ((headers.map { [$0] } ?? []) + rows).map { row in
            row.map { cell in
                let text = TerminalText.sanitized(cell)
                return (text: text, width: TerminalText.width(text))
            }
        }
        guard let columnCount = cells.first?.count else { return "" }
        var widths = (0..<columnCount).map { column in cells.map { $0[column].width }.max() ?? 0 }
        if let width { widths = fitted(widths, to: width) }
        let isRightAligned = (0..<columnCount).map(rightAligned.contains)
        let isKeepingEnd = (0..<columnCount).map(keepingEnd.contains)
        // Lines are put together in UTF-8 bytes, which `episodes` of 20,000 items takes 14 %
        // less time for than appending to a `String` a cell at a time (`Benchmarks/README.md`).
        var text: [UInt8] = []
        var line: [UInt8] = []
        for (index, row) in cells.enumerated() {
            line.removeAll(keepingCapacity: true)
            var lineWidth = 0
            for (column, cell) in row.enumerated() {
                if column > 0 {
                    line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2))
                    lineWidth += 2
                }
                var (cut, cutWidth) = cell
                if cutWidth > widths[column] {
                    cut = TerminalText.truncated(cut, toWidth: widths[column], keepingEnd: isKeepingEnd[column])
                    cutWidth = TerminalText.width(cut)
                }
                let padding = repeatElement(UInt8(ascii: " "), count: widths[column] - cutWidth)
                if isRightAligned[column] {
                    line.append(contentsOf: padding)
                    line.append(contentsOf: cut.utf8)
                    lineWidth += widths[column]
                } else if column < row.count - 1 {
                    line.append(contentsOf: cut.utf8)
                    line.append(contentsOf: padding)
                    lineWidth += widths[column]
                } else {
                    line.append(contentsOf: cut.utf8)
                    lineWidth += cutWidth
                }
            }
            while line.last == UInt8(ascii: " ") { line.removeLast() }
            if index > 0 { text.append(UInt8(ascii: "\n")) }
            if let width, lineWidth > width {
                text.append(contentsOf: TerminalText.truncated(String(decoding: line, as: UTF8.self), toWidth: width).utf8)
            } else {
                text.append(contentsOf: line)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `widths` with cells taken from the shrinking columns, in order, until the table fits.
    private func fitted(_ widths: [Int], to width: Int) -> [Int] {
        var widths = widths
        var excess = widths.reduce(2 * (widths.count - 1), +) - width
        for column in shrinking where excess > 0 {
            let taken = min(excess, max(0, widths[column] - Self.narrowest))
            widths[column] -= taken
            excess -= taken
        }
        return widths
    }
}
