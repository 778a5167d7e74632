import Foundation

/// Every setting's value and where it came from, resolved in one place: a command's flag wins
/// over the environment, which wins over the config file, which wins over the default (the
/// layering of apple/swift-configuration's providers, over Singlecast's own few sources).
public struct Settings: Sendable {
    /// Where a setting's value came from.
    public enum Source: Hashable, Sendable {
        /// A flag of the command, as typed (`--jobs`).
        case flag(String)
        /// An environment variable, by name.
        case environment(String)
        /// The config file, at this line when it is known.
        case file(path: String, line: Int?)
        /// Nothing set it.
        case defaultValue
    }

    /// A setting's value (nil when unset and without a default) and its source.
    public struct Resolved: Hashable, Sendable {
        public var value: SettingValue?
        public var source: Source
    }

    /// The config file's path, whether or not it exists.
    public let path: String
    /// The file as read; nil when there is none.
    public let file: ConfigurationFile?
    private let resolved: [Setting: Resolved]

    /// Resolves every setting from `flags` (each with its name as typed), `environment` and
    /// `file`. A flag or variable whose value the setting does not take is thrown.
    public static func resolve(
        file: ConfigurationFile?, path: String, environment: [String: String],
        flags: [Setting: (name: String, value: SettingValue)] = [:]
    ) throws(ConfigurationError) -> Settings {
        var resolved: [Setting: Resolved] = [:]
        for setting in Setting.all {
            if let flag = flags[setting] {
                let value = try SettingReader.check(
                    flag.value, as: setting.kind, key: setting.key, origin: .flag(flag.name), environment: environment)
                resolved[setting] = Resolved(value: value, source: .flag(flag.name))
            } else if let variable = setting.environmentVariable, let text = environment[variable], !text.isEmpty {
                let value = try SettingReader.read(
                    text: text, as: setting.kind, key: setting.key, origin: .environment(variable), environment: environment)
                resolved[setting] = Resolved(value: value, source: .environment(variable))
            } else if let entry = file?.values[setting.key] {
                resolved[setting] = Resolved(value: entry.value, source: .file(path: path, line: entry.line))
            } else {
                resolved[setting] = Resolved(value: setting.defaultValue, source: .defaultValue)
            }
        }
        return Settings(path: path, file: file, resolved: resolved)
    }

    /// Reads the file `environment` names (see ``ConfigurationFile/path(environment:)``) and
    /// resolves every setting without flags.
    public static func load(environment: [String: String]) throws(ConfigurationError) -> Settings {
        let path = ConfigurationFile.path(environment: environment)
        return try resolve(file: ConfigurationFile.read(path: path, environment: environment), path: path, environment: environment)
    }

    /// The same configuration with `flags` above everything else.
    public func with(flags: [Setting: (name: String, value: SettingValue)], environment: [String: String]) throws(ConfigurationError)
        -> Settings
    {
        try Self.resolve(file: file, path: path, environment: environment, flags: flags)
    }

    public subscript(setting: Setting) -> Resolved {
        resolved[setting] ?? Resolved(value: setting.defaultValue, source: .defaultValue)
    }

    /// The entries of an open table (``Setting/openTables``), by their keys.
    public func openTable(_ name: String) -> [String: ConfigurationFile.Entry] {
        file?.openTables[name] ?? [:]
    }

    // MARK: - Typed values

    /// How many downloads run at once.
    public var jobs: Int { self[.jobs].value?.integer ?? DownloadEngine.defaultConcurrentDownloads }

    /// How long a download waits for the network without a byte; nil leaves it to the command.
    public var giveUpAfter: Duration? { self[.giveUpAfter].value?.text.flatMap(DurationText.parse) }

    /// Where downloads go: `episodes-folder`, else `Episodes` in the library folder.
    public func episodesFolder(libraryDirectory: URL) -> EpisodesFolder {
        let root = self[.episodesFolder].value?.text.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let template = self[.fileName].value?.text.flatMap { try? FileNameTemplate($0) } ?? .standard
        return EpisodesFolder(
            root: root ?? EpisodesFolder.defaultRoot(libraryDirectory: libraryDirectory), template: template)
    }

    /// The extra options given to mpv.
    public var playerOptions: [String] { self[.playerOptions].value?.texts ?? [] }

    /// Whether mpv may load its MPRIS script (the desktop's media keys and controls).
    public var playerMPRIS: Bool { self[.playerMPRIS].value?.boolean ?? true }

    /// The speed an episode plays at when neither `--speed` nor its podcast says otherwise.
    public var speed: Double { self[.speed].value?.number ?? 1 }

    /// When timed updates run (`[update] every`).
    public var updateSchedule: UpdateSchedule {
        self[.updateEvery].value?.text.flatMap(UpdateSchedule.init(every:)) ?? .hourly
    }

    /// A new subscription's retention.
    public var keep: Retention {
        self[.keep].value?.text.flatMap(Int.init).map(Retention.mostRecent) ?? .all
    }

    /// A new subscription's automatic downloads.
    public var auto: AutoDownload { self[.auto].value?.text.flatMap(AutoDownload.init(rawValue:)) ?? .none }
}
