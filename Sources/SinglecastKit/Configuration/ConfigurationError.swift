/// A setting that could not be read: from the config file (with where), the environment or a flag.
public struct ConfigurationError: Error, Hashable, Sendable {
    /// Where the bad value came from.
    public var origin: Origin
    /// The setting's full key (`sync.server`, `ui.keys.quit`); nil for a file that cannot be read or parsed.
    public var key: String?
    public var problem: Problem

    public init(origin: Origin, key: String?, problem: Problem) {
        self.origin = origin
        self.key = key
        self.problem = problem
    }

    /// Where a bad value came from.
    public enum Origin: Hashable, Sendable {
        /// The config file, at this line and column when they are known.
        case file(path: String, line: Int?, column: Int?)
        case environment(String)
        /// A command's flag, such as `--give-up-after`.
        case flag(String)
    }

    /// What is wrong.
    public enum Problem: Hashable, Sendable {
        /// The file exists but cannot be read (`errno`).
        case unreadable(errno: Int32)
        /// The file is not TOML; the parser's own description.
        case syntax(String)
        /// A value of the wrong type: `expected a string, found an integer`.
        case wrongType(expected: Setting.Kind, found: ValueType)
        /// A value of the right type that the setting does not take (a number out of range, an
        /// unknown word, a duration that is none).
        case badValue(expected: Setting.Kind, found: SettingValue)
        /// A `file-name` template that cannot be used.
        case badTemplate(FileNameTemplate.Problem)
        /// An open table's key names nothing its user knows: no action of the UI in `[ui.keys]`,
        /// no part of it in `[ui.colors]` (with the nearest name, when one is close).
        case unknownName(String, nearest: String?)
        /// `[ui.keys]` gives a key that is no key name.
        case unknownKeyName(String)
        /// `[ui.keys]` binds one key to two actions.
        case keyBoundTwice(key: String, actions: [String])
    }

    /// The type of a value as the file wrote it.
    public enum ValueType: Hashable, Sendable {
        case string, integer, float, boolean, array, table, date
    }
}

/// Something in the config file that does no harm but is probably a mistake.
public enum ConfigurationWarning: Hashable, Sendable {
    /// A key no setting has, at this line when it is known, with the nearest known key when one is close.
    case unknownKey(String, line: Int?, nearest: String?)
}
