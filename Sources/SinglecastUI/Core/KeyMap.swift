import SinglecastKit

/// Which key does what: each action's keys, as `[ui.keys]` in the config file may rebind them.
/// The update function reads a key through ``translate(_:)``, which turns it into the key the
/// action has by default, so that its handling stays one `switch` over the default keys.
public struct KeyMap: Sendable, Equatable {
    /// What a key can do, named as `[ui.keys]` names it.
    public enum Action: String, CaseIterable, Sendable {
        case quit, help
        case viewPodcasts = "view-podcasts", viewNew = "view-new", viewQueue = "view-queue", viewDownloads = "view-downloads"
        case viewSearch = "view-search"
        case up, down, pageUp = "page-up", pageDown = "page-down", first, last
        case previousPane = "previous-pane", nextPane = "next-pane"
        case open, clearFilter = "clear-filter", filter
        case pause, forward, back, faster, slower, sleepTimer = "sleep-timer"
        case download, delete, played, url, refreshAll = "refresh-all", refresh, add, unsubscribe
        case enqueue, nextInQueue = "next-in-queue", clearQueue = "clear-queue", moveUp = "move-up", moveDown = "move-down"
    }

    /// Each action's keys, its first the one the update function handles.
    public static let defaults: [Action: [Key]] = [
        .quit: [.character("q")], .help: [.character("h"), .character("?")],
        .viewPodcasts: [.character("1")], .viewNew: [.character("2")], .viewQueue: [.character("3")],
        .viewDownloads: [.character("4")],
        .viewSearch: [.character("5")],
        .up: [.up, .character("k")], .down: [.down, .character("j")], .pageUp: [.pageUp], .pageDown: [.pageDown],
        .first: [.home, .character("g")], .last: [.end, .character("G")],
        .previousPane: [.left, .backTab], .nextPane: [.right, .tab],
        .open: [.enter], .clearFilter: [.escape], .filter: [.character("/")],
        .pause: [.character("p")], .forward: [.character("f")], .back: [.character("b")],
        .faster: [.character("]")], .slower: [.character("[")], .sleepTimer: [.character("t")],
        .download: [.character("s")], .delete: [.character("x")], .played: [.character("m")], .url: [.character("u")],
        .refreshAll: [.character("r")], .refresh: [.character("R")], .add: [.character("a")], .unsubscribe: [.character("d")],
        .enqueue: [.character(" ")], .nextInQueue: [.character("n")], .clearQueue: [.character("c")],
        .moveUp: [.character("K")], .moveDown: [.character("J")],
    ]

    /// The standard keys.
    public static let standard = KeyMap(bindings: defaults)

    /// Each action's keys.
    public let bindings: [Action: [Key]]
    private let actions: [Key: Action]
    private let defaultKeys: Set<Key>

    private init(bindings: [Action: [Key]]) {
        self.bindings = bindings
        var actions: [Key: Action] = [:]
        for (action, keys) in bindings {
            for key in keys { actions[key] = action }
        }
        self.actions = actions
        defaultKeys = Set(Self.defaults.values.joined())
    }

    /// The standard keys with `overrides` (action name → key names) in place of their
    /// actions' keys. An unknown action or key name, or a key left bound to two actions, is a failure.
    public init(overrides: [String: [String]]) throws(SettingsTableFailure) {
        var bindings = Self.defaults
        for (name, keyNames) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let action = Action(rawValue: name) else {
                throw SettingsTableFailure(
                    name: name, problem: .unknownName(name, nearest: NearestName.find(name, in: Action.allCases.map(\.rawValue))))
            }
            var keys: [Key] = []
            for keyName in keyNames {
                guard let key = Key(name: keyName) else { throw SettingsTableFailure(name: name, problem: .unknownKeyName(keyName)) }
                keys.append(key)
            }
            bindings[action] = keys
        }
        var owners: [Key: Action] = [:]
        for action in Action.allCases {
            for key in bindings[action] ?? [] {
                if let other = owners[key] {
                    let culprit = overrides[action.rawValue] != nil ? action : other
                    throw SettingsTableFailure(
                        name: culprit.rawValue,
                        problem: .keyBoundTwice(key: key.name, actions: [other.rawValue, action.rawValue].sorted()))
                }
                owners[key] = action
            }
        }
        self.init(bindings: bindings)
    }

    /// The key the update function handles for `key`: the default key of the action `key` is
    /// bound to; `key` itself when no action has it and it is no action's default (keys outside
    /// the table); nil when it is a default key whose action was bound elsewhere.
    func translate(_ key: Key) -> Key? {
        if let action = actions[key] { return Self.defaults[action]?.first }
        return defaultKeys.contains(key) ? nil : key
    }
}

extension Key {
    /// The key a name in `[ui.keys]` means: one character (`"q"`, `"?"`), `space`, or a named
    /// key (`up`, `page-down`, `enter`, `escape`, `tab`, `back-tab`, `backspace`, `home`, `end`).
    public init?(name: String) {
        if name.count == 1, let character = name.first {
            self = .character(character)
            return
        }
        guard let key = Self.named[name.lowercased()] else { return nil }
        self = key
    }

    /// How `[ui.keys]` names this key.
    public var name: String {
        if case .character(" ") = self { return "space" }
        if case .character(let character) = self { return String(character) }
        return Self.named.first { $0.value == self }?.key ?? "?"
    }

    private static let named: [String: Key] = [
        "space": .character(" "), "up": .up, "down": .down, "left": .left, "right": .right,
        "page-up": .pageUp, "page-down": .pageDown, "home": .home, "end": .end, "enter": .enter,
        "escape": .escape, "tab": .tab, "back-tab": .backTab, "backspace": .backspace,
    ]
}

/// Why `[ui.keys]` or `[ui.colors]` was refused, with the key of the entry that says it.
public struct SettingsTableFailure: Error, Equatable, Sendable {
    public var name: String
    public var problem: ConfigurationError.Problem
}
