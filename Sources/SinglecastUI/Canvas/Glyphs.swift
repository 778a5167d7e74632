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

    public static let unicode = Glyphs(
        playing: "▶", paused: "⏸", new: "●", downloading: "↓", updating: "⟳", failed: "!", separator: "│", barDone: "━", barLeft: "─")
    public static let ascii = Glyphs(
        playing: ">", paused: "=", new: "*", downloading: "v", updating: "~", failed: "!", separator: "|", barDone: "#", barLeft: "-")
}
