import Foundation
import TOMLKit

/// Turns what the file, the environment or a flag gives into a setting's value, checked
/// against the setting's kind: the one place a kind's rules live.
enum SettingReader {
    /// A value of the file.
    static func read(
        _ value: TOMLValue, as kind: Setting.Kind, key: String, origin: ConfigurationError.Origin,
        environment: [String: String]
    ) throws(ConfigurationError) -> SettingValue {
        let given: SettingValue
        switch value.type {
        case .string: given = .text(value.string ?? "")
        case .int: given = .integer(value.int ?? 0)
        case .double: given = .number(value.double ?? 0)
        case .bool: given = .boolean(value.bool ?? false)
        case .array:
            let items = value.array.map { Array($0) } ?? []
            let texts = items.compactMap { $0.string }
            guard texts.count == items.count, [.texts, .keys].contains(kind) else {
                throw ConfigurationError(origin: origin, key: key, problem: .wrongType(expected: kind, found: .array))
            }
            given = .texts(texts)
        case .table: throw ConfigurationError(origin: origin, key: key, problem: .wrongType(expected: kind, found: .table))
        case .date, .time, .dateTime:
            throw ConfigurationError(origin: origin, key: key, problem: .wrongType(expected: kind, found: .date))
        }
        return try check(given, as: kind, key: key, origin: origin, environment: environment)
    }

    /// A value the environment or a flag gives as text.
    static func read(
        text: String, as kind: Setting.Kind, key: String, origin: ConfigurationError.Origin, environment: [String: String]
    ) throws(ConfigurationError) -> SettingValue {
        let given: SettingValue
        switch kind {
        case .integer: given = Int(text).map(SettingValue.integer) ?? .text(text)
        case .number: given = Double(text).map(SettingValue.number) ?? .text(text)
        case .boolean: given = ["true": true, "false": false][text.lowercased()].map(SettingValue.boolean) ?? .text(text)
        default: given = .text(text)
        }
        return try check(given, as: kind, key: key, origin: origin, environment: environment)
    }

    /// `given` as `kind` takes it, normalised (a path's `~` expanded, a duration in seconds as
    /// text, a single key as a list); a wrong type or a value out of bounds is thrown.
    static func check(
        _ given: SettingValue, as kind: Setting.Kind, key: String, origin: ConfigurationError.Origin,
        environment: [String: String]
    ) throws(ConfigurationError) -> SettingValue {
        func bad() -> ConfigurationError { ConfigurationError(origin: origin, key: key, problem: .badValue(expected: kind, found: given)) }
        switch (kind, given) {
        case (.text, .text): return given
        case (.path, .text(let path)):
            guard !path.isEmpty else { throw bad() }
            return .text(expandingTilde(path, environment: environment))
        case (.fileNameTemplate, .text(let text)):
            do {
                _ = try FileNameTemplate(text)
            } catch {
                throw ConfigurationError(origin: origin, key: key, problem: .badTemplate(error))
            }
            return given
        case (.integer(let range), .integer(let number)):
            guard range.contains(number) else { throw bad() }
            return given
        case (.number(let range), .integer), (.number(let range), .number):
            guard let number = given.number, range.contains(number) else { throw bad() }
            return .number(number)
        case (.boolean, .boolean), (.texts, .texts): return given
        case (.keys, .text(let key)): return .texts([key])
        case (.keys, .texts): return given
        case (.duration, .text(let text)):
            guard DurationText.parse(text) != nil else { throw bad() }
            return given
        case (.duration, .integer(let seconds)):
            guard seconds > 0 else { throw bad() }
            return .text(String(seconds))
        case (.interval, .text(let text)):
            guard UpdateSchedule(every: text) != nil else { throw bad() }
            return given
        case (.choice(let words), .text(let word)):
            guard words.contains(word) else { throw bad() }
            return given
        case (.episodeCount, .text(let text)):
            guard text == "all" || (Int(text) ?? 0) >= 1 else { throw bad() }
            return given
        case (.episodeCount, .integer(let count)):
            guard count >= 1 else { throw bad() }
            return .text(String(count))
        default:
            throw ConfigurationError(origin: origin, key: key, problem: .wrongType(expected: kind, found: given.valueType))
        }
    }

    /// `~` and `~/…` as the home folder.
    static func expandingTilde(_ path: String, environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return ConfigurationFile.homeFolder(environment: environment) + path.dropFirst()
    }
}

extension SettingValue {
    /// The type the file wrote it as.
    var valueType: ConfigurationError.ValueType {
        switch self {
        case .text: .string
        case .integer: .integer
        case .number: .float
        case .boolean: .boolean
        case .texts: .array
        }
    }
}
