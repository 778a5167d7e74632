import CNcursesw
import SinglecastKit

/// The colours of the UI's parts, as `[ui.colors]` in the config file may change them.
public struct UIColors: Sendable, Equatable {
    /// What can be coloured: `accent` (the selected pane's title, the now-playing mark) and
    /// `warning` (failures).
    public enum Part: String, CaseIterable, Sendable {
        case accent, warning
    }

    /// The colours a part can have: the terminal's eight, and its own foreground.
    public static let names = ["default", "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Each part's colour name.
    public let colors: [Part: String]

    /// Cyan accents, red warnings.
    public static let standard = UIColors(colors: [.accent: "cyan", .warning: "red"])

    private init(colors: [Part: String]) {
        self.colors = colors
    }

    /// The standard colours with `overrides` (part → colour name); an unknown part or colour is a failure.
    public init(overrides: [String: String]) throws(SettingsTableFailure) {
        var colors = Self.standard.colors
        for (name, color) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let part = Part(rawValue: name) else {
                throw SettingsTableFailure(
                    name: name, problem: .unknownName(name, nearest: NearestName.find(name, in: Part.allCases.map(\.rawValue))))
            }
            guard Self.names.contains(color.lowercased()) else {
                throw SettingsTableFailure(name: name, problem: .badValue(expected: .choice(Self.names), found: .text(color)))
            }
            colors[part] = color.lowercased()
        }
        self.init(colors: colors)
    }

    /// The curses colour number of `part` (-1, the terminal's own, for `default`).
    func curses(_ part: Part) -> Int16 {
        let index = Self.names.firstIndex(of: colors[part] ?? "default") ?? 0
        return Int16(index) - 1
    }
}
