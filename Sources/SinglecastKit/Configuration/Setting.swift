import Foundation

/// One setting of the config file: its key, the kind of value it takes, its default and the
/// environment variable that sets it, if any. ``all`` is the one list of them.
public struct Setting: Hashable, Sendable {
    /// The full key, with its table: `jobs`, `sync.server`, `update.every`.
    public let key: String
    public let kind: Kind
    /// The value when nothing sets it; nil when its absence means something (no `on-complete`
    /// command, the player found on `PATH`, the sync account the library remembers).
    public let defaultValue: SettingValue?
    /// The variable that sets it, below a flag and above the file.
    public let environmentVariable: String?

    /// What a setting accepts.
    public enum Kind: Hashable, Sendable {
        /// Any string.
        case text
        /// A path; a leading `~` is the home folder.
        case path
        /// A file-name template made of ``FileNameTemplate/placeholders`` and text.
        case fileNameTemplate
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A number in the range (an integer is accepted as one).
        case number(ClosedRange<Double>)
        case boolean
        /// A list of strings.
        case texts
        /// A duration: `90s`, `10m`, `24h`, `2d`, or a number of seconds.
        case duration
        /// The time between timed updates: `hourly`, `daily`, `weekly` or a duration (see ``UpdateSchedule``).
        case interval
        /// One of these words.
        case choice([String])
        /// A number of episodes from 1, or `all`.
        case episodeCount
        /// A key of the terminal UI, or a list of them (`"q"`, `["q", "Q"]`).
        case keys
    }

    init(_ key: String, _ kind: Kind, default defaultValue: SettingValue? = nil, environment: String? = nil) {
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.environmentVariable = environment
    }

    /// The table the key is in (`sync` for `sync.server`), nil for a top-level key.
    public var table: String? {
        key.lastIndex(of: ".").map { String(key[..<$0]) }
    }

    /// The key without its table (`server` for `sync.server`).
    public var name: String {
        key.lastIndex(of: ".").map { String(key[key.index(after: $0)...]) } ?? key
    }

    public static let episodesFolder = Setting("episodes-folder", .path)
    public static let fileName = Setting("file-name", .fileNameTemplate, default: .text(FileNameTemplate.standard.text))
    public static let jobs = Setting(
        "jobs", .integer(DownloadEngine.allowedConcurrentDownloads), default: .integer(DownloadEngine.defaultConcurrentDownloads))
    public static let giveUpAfter = Setting("give-up-after", .duration, environment: "SINGLECAST_GIVE_UP_AFTER")
    public static let player = Setting("player", .path, environment: PlayerExecutable.variable)
    public static let playerOptions = Setting("player-options", .texts, default: .texts([]))
    public static let playerMPRIS = Setting("player-mpris", .boolean, default: .boolean(true))
    public static let speed = Setting("speed", .number(PlaybackRequest.speeds), default: .number(1))
    public static let skipForward = Setting("skip-forward", .integer(1...3600), default: .integer(30))
    public static let skipBack = Setting("skip-back", .integer(1...3600), default: .integer(10))
    public static let keep = Setting("keep", .episodeCount, default: .text("all"))
    public static let auto = Setting("auto", .choice(AutoDownload.allCases.map(\.rawValue)), default: .text(AutoDownload.none.rawValue))
    public static let extras = Setting("extras", .boolean, default: .boolean(false))
    public static let onComplete = Setting("on-complete", .text)
    public static let syncServer = Setting("sync.server", .text)
    public static let syncUser = Setting("sync.user", .text)
    public static let syncDevice = Setting("sync.device", .text)
    public static let syncAPI = Setting("sync.api", .choice(SyncDialect.allCases.map(\.rawValue)))
    public static let updateEvery = Setting("update.every", .interval, default: .text("hourly"))
    public static let updateDownload = Setting("update.download", .boolean, default: .boolean(false))
    public static let updateSync = Setting("update.sync", .boolean, default: .boolean(false))

    /// Every setting, in the order `singlecast config` and a new config file list them.
    public static let all: [Setting] = [
        episodesFolder, fileName, jobs, giveUpAfter, player, playerOptions, playerMPRIS, speed, skipForward, skipBack,
        keep, auto, extras, onComplete,
        syncServer, syncUser, syncDevice, syncAPI,
        updateEvery, updateDownload, updateSync,
    ]

    /// The tables whose keys are free (each interpreted by its user): `[ui.keys]` maps a terminal
    /// UI action to its keys, `[ui.colors]` a part of the UI to a colour.
    public static let openTables: [String: Kind] = ["ui.keys": .keys, "ui.colors": .text]

    /// The tables that hold settings or open tables (`ui` holds only tables).
    static let tables: Set<String> = Set(all.compactMap(\.table) + openTables.keys + ["ui"])
}

/// A setting's value, as the file, a flag or the environment gave it.
public enum SettingValue: Hashable, Sendable {
    case text(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case texts([String])

    public var text: String? { if case .text(let value) = self { value } else { nil } }
    public var integer: Int? { if case .integer(let value) = self { value } else { nil } }
    public var boolean: Bool? { if case .boolean(let value) = self { value } else { nil } }
    public var texts: [String]? { if case .texts(let value) = self { value } else { nil } }
    /// A number, or an integer read as one.
    public var number: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}
