import Foundation
import TOMLKit

/// The config file as read: each known setting's value with the line it is on, the entries of
/// the open tables (`[ui.keys]`, `[ui.colors]`), and warnings for keys no setting has.
public struct ConfigurationFile: Sendable {
    /// A value with the position of its key in the file.
    public struct Entry: Hashable, Sendable {
        public var value: SettingValue
        public var line: Int?
        public var column: Int?
    }

    public let path: String
    /// The known settings the file sets, by full key.
    public private(set) var values: [String: Entry] = [:]
    /// The entries of each open table, by table and then by their own key.
    public private(set) var openTables: [String: [String: Entry]] = [:]
    public private(set) var warnings: [ConfigurationWarning] = []

    /// `$SINGLECAST_CONFIG`, else `$XDG_CONFIG_HOME/singlecast/config.toml`, else
    /// `~/.config/singlecast/config.toml`.
    public static func path(environment: [String: String]) -> String {
        if let named = environment["SINGLECAST_CONFIG"], !named.isEmpty { return named }
        if let configHome = environment["XDG_CONFIG_HOME"], !configHome.isEmpty {
            return configHome + "/singlecast/config.toml"
        }
        return homeFolder(environment: environment) + "/.config/singlecast/config.toml"
    }

    /// `$HOME`, else the account's home folder.
    static func homeFolder(environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// Reads the file at `path`; nil when there is none (a missing file is no error).
    public static func read(path: String, environment: [String: String]) throws(ConfigurationError) -> ConfigurationFile? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw ConfigurationError(origin: .file(path: path, line: nil, column: nil), key: nil, problem: .unreadable(errno: errno))
        }
        let data: Data
        do {
            data = try FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readToEnd() ?? Data()
        } catch {
            throw ConfigurationError(origin: .file(path: path, line: nil, column: nil), key: nil, problem: .unreadable(errno: EIO))
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path, environment: environment)
    }

    /// Reads `text` as the file at `path`: every value checked against its setting, the first
    /// bad one thrown with its position.
    public static func parse(_ text: String, path: String, environment: [String: String]) throws(ConfigurationError) -> ConfigurationFile {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(
                origin: .file(path: path, line: error.source.begin.line, column: error.source.begin.column), key: nil,
                problem: .syntax(error.description))
        } catch {
            throw ConfigurationError(origin: .file(path: path, line: nil, column: nil), key: nil, problem: .syntax("\(error)"))
        }
        var file = ConfigurationFile(path: path)
        let positions = KeyPositions(text)
        try file.take(root, table: nil, positions: positions, environment: environment)
        return file
    }

    private init(path: String) {
        self.path = path
    }

    private mutating func take(_ table: TOMLTable, table name: String?, positions: KeyPositions, environment: [String: String])
        throws(ConfigurationError)
    {
        for key in table.keys.sorted() {
            guard let value = table[key]?.tomlValue else { continue }
            let full = name.map { $0 + "." + key } ?? key
            let position = positions.position(of: full)
            let origin = ConfigurationError.Origin.file(path: path, line: position?.line, column: position?.column)
            if let name, let kind = Setting.openTables[name] {
                let read = try SettingReader.read(value, as: kind, key: full, origin: origin, environment: environment)
                openTables[name, default: [:]][key] = Entry(value: read, line: position?.line, column: position?.column)
            } else if let setting = Setting.all.first(where: { $0.key == full }) {
                let read = try SettingReader.read(value, as: setting.kind, key: full, origin: origin, environment: environment)
                values[full] = Entry(value: read, line: position?.line, column: position?.column)
            } else if Setting.tables.contains(full), let inner = value.table {
                try take(inner, table: full, positions: positions, environment: environment)
            } else {
                let known = Setting.all.map(\.key) + Array(Setting.tables)
                warnings.append(.unknownKey(full, line: position?.line, nearest: NearestName.find(full, in: known)))
            }
        }
    }
}

/// Where each key of a TOML text is, by full key: found by reading the lines for `[table]`
/// headers and `key =` (TOMLKit reports positions of syntax errors only, not of values).
struct KeyPositions {
    private var positions: [String: (line: Int, column: Int)] = [:]

    init(_ text: String) {
        var table: String?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") {
                let inside = trimmed.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.key(String(inside))
                positions[table ?? ""] = positions[table ?? ""] ?? (index + 1, 1)
                continue
            }
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = Self.key(String(trimmed[..<equals]))
            let full = table.map { $0 + "." + key } ?? key
            let column = line.distance(from: line.startIndex, to: line.firstIndex { $0 != " " && $0 != "\t" } ?? line.startIndex) + 1
            if positions[full] == nil { positions[full] = (index + 1, column) }
        }
    }

    /// A key as written (`sync . server`, `"ui".keys`), as the full key it names.
    private static func key(_ written: String) -> String {
        written.split(separator: ".").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }.joined(separator: ".")
    }

    func position(of key: String) -> (line: Int, column: Int)? {
        positions[key]
    }
}
