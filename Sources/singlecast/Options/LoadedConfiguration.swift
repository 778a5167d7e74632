import ArgumentParser
import Foundation
import SinglecastKit
import SinglecastUI
import Synchronization

/// The config file, read once a process before a command runs: a bad file stops the command
/// before it does anything (exit 78, EX_CONFIG), an unknown key is a warning.
enum LoadedConfiguration {
    /// EX_CONFIG of `sysexits.h`: the configuration is wrong.
    static let badConfigurationStatus: Int32 = 78

    private static let loaded = Mutex<Settings?>(nil)

    /// The configuration, read (and its warnings printed) on first use. A file that cannot be
    /// used is thrown as a ``CommandFailure`` ending in exit 78.
    static func current(environment: [String: String]) throws -> Settings {
        if let configuration = loaded.withLock({ $0 }) { return configuration }
        let configuration: Settings
        do {
            configuration = try Settings.load(environment: environment)
            _ = try uiTables(configuration)
        } catch {
            printError("Error: \(Words.configuration(error))")
            // A variable's bad value is a usage error, as a flag's is; the file's is EX_CONFIG.
            guard case .file = error.origin else { throw ExitCode.validationFailure }
            throw ExitCode(badConfigurationStatus)
        }
        for warning in configuration.file?.warnings ?? [] {
            printError(Words.configurationWarning(warning, path: configuration.path))
        }
        loaded.withLock { $0 = configuration }
        return configuration
    }

    /// The key map and colours of `[ui.keys]` and `[ui.colors]`; a bad entry is thrown with its place in the file.
    static func uiTables(_ configuration: Settings) throws(ConfigurationError) -> (KeyMap, UIColors) {
        let keyMap = try table("ui.keys", of: configuration) { entries throws(SettingsTableFailure) in
            try KeyMap(overrides: entries.mapValues { $0.value.texts ?? [] })
        }
        let colors = try table("ui.colors", of: configuration) { entries throws(SettingsTableFailure) in
            try UIColors(overrides: entries.mapValues { $0.value.text ?? "" })
        }
        return (keyMap, colors)
    }

    private static func table<Value>(
        _ name: String, of configuration: Settings,
        _ make: ([String: ConfigurationFile.Entry]) throws(SettingsTableFailure) -> Value
    ) throws(ConfigurationError) -> Value {
        let entries = configuration.openTable(name)
        do {
            return try make(entries)
        } catch {
            let entry = entries[error.name]
            throw ConfigurationError(
                origin: .file(path: configuration.path, line: entry?.line, column: entry?.column), key: "\(name).\(error.name)",
                problem: error.problem)
        }
    }
}
