import Foundation

/// A JSON value as mpv's IPC protocol carries it.
enum MpvValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([MpvValue])
    case object([String: MpvValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([MpvValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: MpvValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    var double: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var bool: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    subscript(key: String) -> MpvValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}

/// One line mpv sends on its IPC socket (see mpv's `DOCS/man/ipc.rst`): the reply to a
/// command, a property change of an observed property, or another event.
enum MpvMessage: Sendable, Equatable {
    /// `{"request_id": N, "error": "success", "data": …}`.
    case reply(requestID: Int, error: String, data: MpvValue?)
    /// `{"event": "property-change", "name": …, "data": …}`; `data` is absent while the
    /// property is unavailable (no file loaded).
    case propertyChange(name: String, value: MpvValue?)
    /// `{"event": "end-file", "reason": "eof" | "stop" | "quit" | "error" | "redirect", "file_error": …}`.
    case endFile(reason: String, fileError: String?)
    /// `{"event": "log-message", "level": …, "prefix": …, "text": …}`.
    case log(level: String, prefix: String, text: String)
    /// Any other event by name: `playback-restart`, `seek`, `shutdown`, `start-file`, `idle`, …
    case event(String)

    /// Reads one line; nil for a line that is not a JSON object mpv would send.
    init?(line: some DataProtocol) {
        guard let value = try? JSONDecoder().decode(MpvValue.self, from: Data(line)),
            case .object(let object) = value
        else { return nil }
        if let event = object["event"]?.string {
            switch event {
            case "property-change":
                guard let name = object["name"]?.string else { return nil }
                self = .propertyChange(name: name, value: object["data"])
            case "end-file":
                self = .endFile(reason: object["reason"]?.string ?? "", fileError: object["file_error"]?.string)
            case "log-message":
                self = .log(
                    level: object["level"]?.string ?? "", prefix: object["prefix"]?.string ?? "",
                    text: object["text"]?.string ?? "")
            default:
                self = .event(event)
            }
        } else if let id = object["request_id"]?.double, let error = object["error"]?.string {
            self = .reply(requestID: Int(id), error: error, data: object["data"])
        } else {
            return nil
        }
    }

    /// A command as the line that sends it (newline included).
    static func commandLine(_ arguments: [MpvValue], requestID: Int?) -> Data {
        commandLine(.array(arguments), requestID: requestID)
    }

    /// A command, its arguments in a list or named in an object, as the line that sends it.
    static func commandLine(_ command: MpvValue, requestID: Int?) -> Data {
        var object: [String: MpvValue] = ["command": command]
        if let requestID { object["request_id"] = .number(Double(requestID)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = (try? encoder.encode(MpvValue.object(object))) ?? Data()
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
