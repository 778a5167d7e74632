import Foundation
import SinglecastKit
import SinglecastUI

/// The sentences about settings and the config file.
extension Words {
    /// `config.toml:3:1: episodes-folder: expected a string, found an integer`, or for a
    /// variable or a flag `SINGLECAST_GIVE_UP_AFTER must be a duration such as 90s, 10m or 24h, not “-5m”.`
    static func configuration(_ error: ConfigurationError) -> String {
        switch error.origin {
        case .file(let path, let line, let column):
            let place = [path, line.map(String.init), column.map(String.init)].compactMap { $0 }.joined(separator: ":")
            let key = error.key.map { "\($0): " } ?? ""
            return "\(place): \(key)\(problem(error.problem))"
        case .environment(let name), .flag(let name):
            guard case .badValue(let kind, let found) = error.problem else { return "\(name): \(problem(error.problem))" }
            return "\(name) must be \(detail(of: kind)), not \u{201C}\(value(found))\u{201D}."
        }
    }

    /// What is wrong, after the key.
    static func problem(_ problem: ConfigurationError.Problem) -> String {
        switch problem {
        case .unreadable(let code): "cannot be read: \(String(cString: strerror(code)))"
        case .syntax(let description): "not TOML: \(description)"
        case .wrongType(let kind, let found): "expected \(type(of: kind)), found \(type(found))"
        case .badValue(let kind, let found): "expected \(detail(of: kind)), found \(tomlValue(found))"
        case .badTemplate(let templateProblem): template(templateProblem)
        case .unknownName(let name, let nearest):
            "\u{201C}\(name)\u{201D} is not known" + (nearest.map { " (did you mean \u{201C}\($0)\u{201D}?)" } ?? "")
        case .unknownKeyName(let key):
            "\u{201C}\(key)\u{201D} is no key (a character, space, up, down, left, right, page-up, page-down, home, end, enter, escape, tab, back-tab or backspace)"
        case .keyBoundTwice(let key, let actions):
            "the key \(key) is bound to both \(actions.joined(separator: " and ")): give one of them other keys"
        }
    }

    /// The type a kind takes: `a string`, `a whole number`.
    static func type(of kind: Setting.Kind) -> String {
        switch kind {
        case .text, .path, .fileNameTemplate, .choice, .interval: "a string"
        case .integer: "a whole number"
        case .number: "a number"
        case .boolean: "true or false"
        case .texts: "a list of strings"
        case .duration: "a duration (a string such as \"10m\", or seconds)"
        case .episodeCount: "a number of episodes, or \"all\""
        case .keys: "a key or a list of keys"
        }
    }

    /// What a kind takes in full: `a whole number from 1 to 32`.
    static func detail(of kind: Setting.Kind) -> String {
        switch kind {
        case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .number(let range): "a number from \(number(range.lowerBound)) to \(number(range.upperBound))"
        case .path: "a path"
        case .duration: "a duration such as 90s, 10m or 24h"
        case .interval: "hourly, daily, weekly, or a duration such as 30m, 6h or 2d"
        case .choice(let words): "one of " + words.joined(separator: ", ")
        case .episodeCount: "a number of episodes from 1, or \"all\""
        default: type(of: kind)
        }
    }

    static func type(_ type: ConfigurationError.ValueType) -> String {
        switch type {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array: "an array"
        case .table: "a table"
        case .date: "a date"
        }
    }

    /// A value as TOML writes it: `"10m"`, `3`, `["--volume=50"]`.
    static func value(_ value: SettingValue) -> String {
        switch value {
        case .text(let text): text
        case .integer(let number): String(number)
        case .number(let number): Self.number(number)
        case .boolean(let flag): String(flag)
        case .texts(let texts): "[" + texts.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        }
    }

    private static func number(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }

    static func template(_ problem: FileNameTemplate.Problem) -> String {
        let placeholders = FileNameTemplate.Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
        return switch problem {
        case .unknownPlaceholder(let name): "{\(name)} is no placeholder (\(placeholders))"
        case .unbalancedBrace: "a { without its } (or the reverse)"
        case .emptyPart: "an empty part between slashes"
        case .episodePlaceholderInFolder(let placeholder):
            "{\(placeholder.rawValue)} names a folder: only {podcast} may, so that a podcast's files share one"
        }
    }

    /// `warning: config.toml:4: unknown key "episode-folder" (did you mean "episodes-folder"?)`.
    static func configurationWarning(_ warning: ConfigurationWarning, path: String) -> String {
        switch warning {
        case .unknownKey(let key, let line, let nearest):
            let place = line.map { "\(path):\($0)" } ?? path
            return "warning: \(place): unknown key \"\(key)\"" + (nearest.map { " (did you mean \"\($0)\"?)" } ?? "")
        }
    }

    /// `flag --jobs`, `environment SINGLECAST_PLAYER`, `file ~/.config/singlecast/config.toml:3`, `default`.
    static func source(_ source: Settings.Source) -> String {
        switch source {
        case .flag(let name): "flag \(name)"
        case .environment(let name): "environment \(name)"
        case .file(let path, let line): "file \(path)" + (line.map { ":\($0)" } ?? "")
        case .defaultValue: "default"
        }
    }

    /// `The update timer (singlecast-update.timer) is enabled.`, and how to enable one that is not.
    static func updateTimer(_ state: UpdateTimer.State) -> String {
        let enable = "systemctl --user enable --now \(UpdateTimer.unit)"
        return switch state {
        case .enabled: "The update timer (\(UpdateTimer.unit)) is enabled."
        case .disabled: "The update timer (\(UpdateTimer.unit)) is not enabled: \(enable)"
        case .notInstalled: "The update timer (\(UpdateTimer.unit)) is not installed: make install, then \(enable)"
        case .unknown: "Whether the update timer (\(UpdateTimer.unit)) is enabled is not known: systemctl --user did not answer."
        }
    }

    /// `FILE: TARGET is another file's` or `FILE: cannot be linked as TARGET: …`.
    static func moveOutcome(_ outcome: FileMover.Outcome) -> String {
        switch outcome {
        case .moved(let from, let to): "\(from) -> \(to)"
        case .clash(let file, let target): "\(file): \(target) is another file's (it stays where it is)"
        case .failed(let file, let target, let code): "\(file): cannot be moved to \(target): \(String(cString: strerror(code)))"
        }
    }

    /// What an unset setting without a default means.
    static func unsetMeaning(_ setting: Setting) -> String {
        switch setting {
        case .giveUpAfter: "(10m for download, 24h for the daemon)"
        case .player: "(mpv on PATH)"
        case .onComplete: "(none)"
        case .syncServer, .syncUser, .syncDevice, .syncAPI: "(what `singlecast sync` remembers)"
        default: "(none)"
        }
    }

    /// One line on what each setting does, for the file `config --init` writes.
    static func settingHelp(_ setting: Setting) -> String {
        switch setting {
        case .episodesFolder: "Where downloads go (~ is your home folder); default: Episodes in the library folder."
        case .fileName:
            "Where in it a download goes: {podcast}, {title}, {date}, {guid-hash}; the extension is added."
        case .jobs: "How many downloads run at once (--jobs)."
        case .giveUpAfter: "How long a download waits for the network without a byte (--give-up-after, $SINGLECAST_GIVE_UP_AFTER)."
        case .player: "The player: mpv, or a program that execs it ($SINGLECAST_PLAYER); default: mpv on PATH."
        case .playerOptions: "Extra options for mpv, such as [\"--volume=70\"]."
        case .playerMPRIS: "Whether mpv shows in the desktop's media controls when mpv-mpris is installed (false: --load-scripts=no)."
        case .speed: "The speed of a podcast that has none of its own, 0.25 to 4 (play --speed sets one)."
        case .skipForward: "How far f jumps forward in the terminal UI, in seconds."
        case .skipBack: "How far b jumps back in the terminal UI, in seconds."
        case .keep: "A new subscription keeps the files of this many most recent episodes, or \"all\" (subscribe --keep)."
        case .auto: "What `update --download` fetches of a new subscription: none or new (subscribe --auto)."
        case .extras: "Whether a new subscription saves transcripts and chapters (subscribe --extras)."
        case .onComplete: "A shell command the daemon runs for each finished episode, its path as $1 (daemon --on-complete)."
        case .syncServer: "The gpodder sync server (sync --server). The password never goes here: ~/.netrc."
        case .syncUser: "The sync account's user name (sync --user)."
        case .syncDevice: "This device's id on the server (sync --device)."
        case .syncAPI: "The server's API: gpodder or nextcloud (sync --api)."
        case .updateEvery: "How often the systemd timer updates: hourly, daily, weekly, or 30m, 6h, 2d (at most every 15m)."
        case .updateDownload: "Whether the timed update downloads the new episodes (update --download)."
        case .updateSync: "Whether the timed update syncs (update --sync)."
        default: ""
        }
    }

    /// The file `singlecast config --init` writes: every setting at its default, commented out.
    static func initialConfigurationFile() -> String {
        var lines = ["# Singlecast's settings. A flag wins over the environment, which wins over this file.",
                     "# Uncomment a line to change a setting; `singlecast config` shows what is in force.", ""]
        var table: String?
        for setting in Setting.all {
            if setting.table != table {
                table = setting.table
                lines += ["", "[\(table ?? "")]"]
            }
            lines.append("# " + settingHelp(setting))
            let shown = setting.defaultValue.map(tomlValue) ?? "\"\""
            lines.append("# \(setting.name) = \(shown)")
        }
        lines += ["", "[ui.keys]", "# Each action of the terminal UI and its keys (a character, space, up, page-down, enter…)."]
        for action in KeyMap.Action.allCases {
            let keys = (KeyMap.defaults[action] ?? []).map { "\"\($0.name)\"" }
            lines.append("# \(action.rawValue) = [\(keys.joined(separator: ", "))]")
        }
        lines += ["", "[ui.colors]", "# \(UIColors.names.joined(separator: ", "))"]
        for part in UIColors.Part.allCases {
            lines.append("# \(part.rawValue) = \"\(UIColors.standard.colors[part] ?? "default")\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A value as TOML writes it, strings quoted.
    static func tomlValue(_ value: SettingValue) -> String {
        switch value {
        case .text(let text): "\"\(text)\""
        default: Self.value(value)
        }
    }
}
