/// A rectangle of cells: where a pane or a line is drawn.
public struct Rect: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The part of this rectangle inside `other`.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(x + width, other.x + other.width)
        let bottom = min(y + height, other.y + other.height)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Row `index` of the rectangle, one cell high.
    public func row(_ index: Int) -> Rect {
        Rect(x: x, y: y + index, width: width, height: index < height ? 1 : 0)
    }

    /// The rectangle without its first `count` rows.
    public func droppingTop(_ count: Int) -> Rect {
        Rect(x: x, y: y + count, width: width, height: height - count)
    }

    /// Side by side columns whose widths are `fractions` of this width (the last takes the rest),
    /// with `gap` cells between them.
    public func columns(_ fractions: [Double], gap: Int = 1) -> [Rect] {
        let usable = width - gap * max(0, fractions.count - 1)
        var left = x
        return fractions.enumerated().map { index, fraction in
            let columnWidth =
                index == fractions.count - 1 ? x + width - left : Int((Double(usable) * fraction).rounded(.down))
            defer { left += columnWidth + gap }
            return Rect(x: left, y: y, width: columnWidth, height: height)
        }
    }
}
