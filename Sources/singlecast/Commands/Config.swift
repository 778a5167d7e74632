import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show every setting, its value and where it came from (a flag, the environment, the config file, the default).",
            discussion: """
                The config file is $SINGLECAST_CONFIG, else $XDG_CONFIG_HOME/singlecast/config.toml, else \
                ~/.config/singlecast/config.toml (TOML; a missing file is no error). A flag wins over the \
                environment, which wins over the file. A file that cannot be used stops every command \
                with exit 78.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the settings as JSON.")
        var json = false

        @Flag(name: .customLong("init"), help: "Write a config file with every setting at its default, commented out (never over one that exists).")
        var initialize = false

        @Flag(help: "Print the config file's path.")
        var path = false

        @Option(name: .customLong("get"), help: ArgumentHelp("Print one setting's value alone (update.every, jobs, …).", valueName: "key"))
        var key: String?

        func validate() throws {
            if [initialize, path, key != nil].filter({ $0 }).count > 1 {
                throw ValidationError("--init, --path and --get go alone.")
            }
            if let key, !Setting.all.contains(where: { $0.key == key }) {
                let nearest = NearestName.find(key, in: Setting.all.map(\.key)).map { " (did you mean \u{201C}\($0)\u{201D}?)" } ?? ""
                throw ValidationError("\u{201C}\(key)\u{201D} is no setting\(nearest).")
            }
        }

        func run() async throws {
            let environment = global.environment
            let file = ConfigurationFile.path(environment: environment)
            if path {
                print(file)
            } else if initialize {
                try Self.writeInitialFile(at: file)
                print("wrote \(file)")
            } else if let key, let setting = Setting.all.first(where: { $0.key == key }) {
                let value = try LoadedConfiguration.current(environment: environment)[setting].value
                print(value.map(Words.value) ?? "")
            } else {
                try show(try LoadedConfiguration.current(environment: environment), timer: await UpdateTimer.state(environment: environment))
            }
        }

        /// Writes ``Words/initialConfigurationFile()`` at `path`, creating its folder; a file
        /// already there is left alone and named in the failure.
        static func writeInitialFile(at path: String) throws {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let code = errno
                throw CommandFailure(
                    message: code == EEXIST
                        ? "\(path) exists: it is left as it is (remove it first to start again)"
                        : "cannot write \(path): \(String(cString: strerror(code)))")
            }
            let written = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try written.write(contentsOf: Data(Words.initialConfigurationFile().utf8))
        }

        private func show(_ configuration: Settings, timer: UpdateTimer.State) throws {
            let library = global.libraryDirectory
            var rows: [SettingJSON] = Setting.all.map { setting in
                let resolved = configuration[setting]
                var shown = resolved.value.map(Words.value) ?? Words.unsetMeaning(setting)
                if setting == .episodesFolder, resolved.value == nil {
                    shown = EpisodesFolder.defaultRoot(libraryDirectory: library).path
                }
                return SettingJSON(key: setting.key, value: resolved.value, shown: shown, source: resolved.source)
            }
            for table in Setting.openTables.keys.sorted() {
                for (name, entry) in configuration.openTable(table).sorted(by: { $0.key < $1.key }) {
                    rows.append(
                        SettingJSON(
                            key: "\(table).\(name)", value: entry.value, shown: Words.value(entry.value),
                            source: .file(path: configuration.path, line: entry.line)))
                }
            }
            if json {
                try printJSON(
                    ConfigJSON(file: configuration.path, exists: configuration.file != nil, updateTimer: timer.rawValue, settings: rows))
                return
            }
            var table = TextTable(headers: ["Setting", "Value", "Source"])
            table.shrinking = [1, 2]
            table.rows = rows.map { [$0.key, $0.shown, Words.source($0.source)] }
            print(table.render(width: TTY.outputWidth))
            print(Words.updateTimer(timer))
        }
    }
}

/// The `--json` shape of `config`.
struct ConfigJSON: Encodable {
    var file: String
    var exists: Bool
    /// `enabled`, `disabled`, `not-installed` or `unknown`.
    var updateTimer: String
    var settings: [SettingJSON]
}

/// One setting in `config --json`: its value as TOML types it (null when unset) and its source.
struct SettingJSON: Encodable {
    var key: String
    var value: SettingValue?
    /// What the table shows.
    var shown: String
    var source: Settings.Source

    enum CodingKeys: String, CodingKey {
        case key, value, source, name, line, path
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        switch value {
        case .text(let text): try container.encode(text, forKey: .value)
        case .integer(let number): try container.encode(number, forKey: .value)
        case .number(let number): try container.encode(number, forKey: .value)
        case .boolean(let flag): try container.encode(flag, forKey: .value)
        case .texts(let texts): try container.encode(texts, forKey: .value)
        case nil: try container.encodeNil(forKey: .value)
        }
        switch source {
        case .flag(let name):
            try container.encode("flag", forKey: .source)
            try container.encode(name, forKey: .name)
        case .environment(let name):
            try container.encode("environment", forKey: .source)
            try container.encode(name, forKey: .name)
        case .file(let path, let line):
            try container.encode("file", forKey: .source)
            try container.encode(path, forKey: .path)
            try container.encodeIfPresent(line, forKey: .line)
        case .defaultValue: try container.encode("default", forKey: .source)
        }
    }
}
