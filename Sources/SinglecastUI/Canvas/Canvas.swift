import SinglecastKit

/// How a cell is drawn besides its character. Colours are roles, not colours: the terminal
/// side maps them to the terminal's palette, or to nothing without colour.
public struct CellStyle: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = CellStyle(rawValue: 1 << 0)
    public static let reverse = CellStyle(rawValue: 1 << 1)
    public static let underline = CellStyle(rawValue: 1 << 2)
    public static let dim = CellStyle(rawValue: 1 << 3)
    /// Something to notice: the focused pane's title, a new episode's mark.
    public static let accent = CellStyle(rawValue: 1 << 4)
    /// Something that went wrong: a failed update, an error line.
    public static let warning = CellStyle(rawValue: 1 << 5)
}

/// One cell of the grid: the text drawn in it (one character with its combining marks; empty
/// for the second half of a wide character) and its style.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: CellStyle

    public static let blank = Cell(text: " ", style: [])
    /// The right half of a wide character: the terminal draws nothing there.
    static let continuation = Cell(text: "", style: [])
}

/// A grid of cells in memory, as a frame of the terminal UI: the view draws into it, tests read
/// its lines, and the terminal side writes the rows that differ from the last frame.
///
/// Widths are display cells as ``TerminalText`` measures them; control characters never enter
/// it, whatever the caller passes.
public struct Canvas: Equatable, Sendable {
    public let width: Int
    public let height: Int
    private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The whole area of the canvas.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Writes `text` from column `x` of row `y`, at most `limit` cells wide (to the canvas's
    /// edge when nil), and returns how many cells it took. A wide character that would not fit
    /// whole is left out; zero-width scalars join the character before them.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, limit: Int? = nil, style: CellStyle = []) -> Int {
        guard y >= 0, y < height, x >= 0, x < width else { return 0 }
        let end = min(width, x + max(0, limit ?? width))
        var column = x
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
            let cellsOfScalar = TerminalText.width(of: scalar)
            if cellsOfScalar == 0 {
                if column > x { cells[y * width + column - 1].text.unicodeScalars.append(scalar) }
                continue
            }
            guard column + cellsOfScalar <= end else { break }
            cells[y * width + column] = Cell(text: String(scalar), style: style)
            if cellsOfScalar == 2 { cells[y * width + column + 1] = .continuation }
            column += cellsOfScalar
        }
        return column - x
    }

    /// Adds `style` to every cell of `area` (a selected row's highlight).
    public mutating func addStyle(_ style: CellStyle, to area: Rect) {
        let clipped = area.intersection(bounds)
        for y in clipped.y..<clipped.y + clipped.height {
            for x in clipped.x..<clipped.x + clipped.width {
                cells[y * width + x].style.formUnion(style)
            }
        }
    }

    /// Row `y` as text, with the trailing blanks kept (tests compare whole lines).
    public func line(_ y: Int) -> String {
        (0..<width).map { cells[y * width + $0].text }.joined()
    }

    /// Every row as text.
    public var lines: [String] { (0..<height).map(line) }

    /// The rows that differ from `previous` (all of them when the sizes differ).
    public func changedRows(since previous: Canvas?) -> [Int] {
        guard let previous, previous.width == width, previous.height == height else { return Array(0..<height) }
        return (0..<height).filter { y in
            cells[y * width..<(y + 1) * width] != previous.cells[y * width..<(y + 1) * width]
        }
    }
}
