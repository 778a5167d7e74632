/// A key as the UI understands it, whatever the terminal sent.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace
    /// Ctrl-C: raw mode delivers it as a key, not as a signal.
    case interrupt
}
