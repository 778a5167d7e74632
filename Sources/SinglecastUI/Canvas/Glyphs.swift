/// The symbols the UI draws, in Unicode or, on a terminal whose locale is not UTF-8, in ASCII.
public struct Glyphs: Equatable, Sendable {
    public var playing: String
    public var paused: String
    public var new: String
    public var downloading: String
    public var updating: String
    public var failed: String
    public var separator: String
    public var barDone: String
    public var barLeft: String
    /// The arrow keys, as the help and the hints name them.
    public var arrows: Arrows

    public struct Arrows: Equatable, Sendable {
        public var up, down, left, right: String
    }

    public static let unicode = Glyphs(
        playing: "▶", paused: "⏸", new: "●", downloading: "↓", updating: "⟳", failed: "!", separator: "│", barDone: "━", barLeft: "─",
        arrows: Arrows(up: "↑", down: "↓", left: "←", right: "→"))
    public static let ascii = Glyphs(
        playing: ">", paused: "=", new: "*", downloading: "v", updating: "~", failed: "!", separator: "|", barDone: "#", barLeft: "-",
        arrows: Arrows(up: "Up", down: "Down", left: "Left", right: "Right"))
}
