/// The keys the view names (the tabs, the hints, the help) as the key map binds them, so that
/// what it shows follows `[ui.keys]`.
struct KeyLabels {
    let keyMap: KeyMap
    let glyphs: Glyphs

    init(_ state: UIState) {
        keyMap = state.keyMap
        glyphs = state.glyphs
    }

    /// The first key of each action, joined by `/` (`f/b`); empty when none has a key.
    func first(_ actions: KeyMap.Action...) -> String {
        actions.compactMap { keyMap.bindings[$0]?.first.map(label) }.joined(separator: "/")
    }

    /// Every key of the actions: their first keys joined by `/`, then their second keys (`↑/↓ k/j`).
    func all(_ actions: [KeyMap.Action]) -> String {
        let keys = actions.map { keyMap.bindings[$0] ?? [] }
        let depth = keys.map(\.count).max() ?? 0
        return (0..<depth).map { rank in
            keys.compactMap { $0.indices.contains(rank) ? label($0[rank]) : nil }.joined(separator: "/")
        }.joined(separator: " ")
    }

    /// How a key is written: itself for a character, else its name on the keyboard.
    func label(_ key: Key) -> String {
        switch key {
        case .character(" "): "Space"
        case .character(let character): String(character)
        case .up: glyphs.arrows.up
        case .down: glyphs.arrows.down
        case .left: glyphs.arrows.left
        case .right: glyphs.arrows.right
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .backspace: "Backspace"
        case .interrupt: "Ctrl-C"
        }
    }
}
