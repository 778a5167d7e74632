import Foundation

/// Reads one episode action object of an answer, the shape servers send (`{"podcast": "…",
/// "episode": "…", "action": "play", "timestamp": "…", "position": 120, …}`), straight from
/// its bytes, as ``SyncWire/ReceivedAction/init(from:)`` would read it.
///
/// Hand-written because `JSONDecoder` took a large share of the CPU time of a sync receiving
/// many actions (`Benchmarks/sync.py`; figures in `Benchmarks/README.md`). It reads
/// only what is certain to mean the same to both: an object of string keys without escapes
/// whose values are strings, integers of at most 15 digits, `null`, `true` or `false`, each
/// known key once. Anything else (a fraction, an exponent, a nested value, a repeated key,
/// bytes that are not UTF-8, malformed JSON) answers ``Outcome/unsure``, and the caller hands
/// the whole batch to `JSONDecoder` as before, so leniency and failures stay the decoder's.
enum ActionReader {
    enum Outcome: Equatable {
        case action(SyncWire.ReceivedAction)
        /// Read, and left out as the decoder leaves it out (``SyncWire/Lenient``).
        case skipped
        /// Not read: decide with `JSONDecoder`.
        case unsure
    }

    fileprivate enum Value {
        /// A string of ASCII without escapes: its bytes, where they lie (no string is made of
        /// a value that is never used, or that is read as a time or an action type).
        case ascii(UnsafeBufferPointer<UInt8>)
        /// Any other string.
        case string(String)
        case integer(Int)
        case null
        case boolean

        var text: String? {
            switch self {
            case .ascii(let bytes): String(decoding: bytes, as: UTF8.self)
            case .string(let text): text
            default: nil
            }
        }
    }

    /// The podcast URL of the action read last: the actions of one podcast (most of an answer)
    /// share one string, made once.
    struct LastPodcast {
        private var bytes: [UInt8] = []
        private var url = ""

        init() {}

        fileprivate mutating func url(_ value: Value) -> String? {
            guard case .ascii(let raw) = value, !raw.isEmpty else { return value.text }
            let same = bytes.count == raw.count && bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 }
            if !same {
                bytes = Array(raw)
                url = String(decoding: raw, as: UTF8.self)
            }
            return url
        }
    }

    private struct Unsure: Error {}

    static func read(_ bytes: UnsafeBufferPointer<UInt8>, podcast: inout LastPodcast) -> Outcome {
        var reader = Cursor(bytes: bytes)
        guard let fields = try? reader.object(), reader.endsAfterSpace() else { return .unsure }
        return outcome(fields, podcast: &podcast)
    }

    /// Reads the object that starts at `start` (its `{`), when it ends within `bytes`: what
    /// it is, and the index after its `}`. Nil when it does not end there, or is not read
    /// (``Outcome/unsure``).
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, objectAt start: Int, podcast: inout LastPodcast) -> (
        outcome: Outcome, end: Int
    )? {
        var reader = Cursor(bytes: bytes, index: start)
        guard let fields = try? reader.object() else { return nil }
        return (outcome(fields, podcast: &podcast), reader.index)
    }

    /// The fields of the action's known keys, by key.
    private struct Fields {
        var podcast: Value?
        var episode: Value?
        var guid: Value?
        var action: Value?
        var timestamp: Value?
        var started: Value?
        var position: Value?
        var total: Value?
    }

    private static func outcome(_ fields: Fields, podcast last: inout LastPodcast) -> Outcome {
        guard let podcastValue = fields.podcast, let podcast = last.url(podcastValue), let episode = fields.episode?.text,
            !podcast.isEmpty, !episode.isEmpty, let type = fields.action, let kind = kind(type)
        else { return .skipped }
        let timestamp: Double
        switch fields.timestamp {
        case .ascii(let bytes):
            guard let seconds = SyncWire.seconds(fromTimestamp: bytes) else { return .skipped }
            timestamp = seconds
        case .string(let text):
            guard let seconds = SyncWire.seconds(fromTimestamp: text) else { return .skipped }
            timestamp = seconds
        case .integer(let value):
            timestamp = Double(value)
        default:
            return .skipped
        }
        let guid = fields.guid?.text
        func integer(_ value: Value?) -> Int? {
            if case .integer(let number) = value { return number }
            return value?.text.flatMap(SyncWire.integer(fromText:))
        }
        let position = integer(fields.position)
        if kind == .play && position == nil { return .skipped }
        return .action(
            SyncWire.ReceivedAction(
                podcastURL: podcast, episodeURL: episode, guid: guid, kind: kind, timestamp: timestamp,
                started: integer(fields.started), position: position, total: integer(fields.total)))
    }

    /// The action type a value names, in any case (as `EpisodeAction.Kind(rawValue: type.lowercased())`).
    private static func kind(_ value: Value) -> EpisodeAction.Kind? {
        guard case .ascii(let bytes) = value else { return value.text.flatMap { EpisodeAction.Kind(rawValue: $0.lowercased()) } }
        for kind in EpisodeAction.Kind.allCases {
            var name = kind.rawValue
            let matches = name.withUTF8 { name in
                name.count == bytes.count && zip(name, bytes).allSatisfy { $0 == $1 | 0x20 }
            }
            if matches { return kind }
        }
        return nil
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, index: Int = 0) {
            self.bytes = bytes
            self.index = index
        }

        /// Skips white space; whether that reaches the end.
        mutating func endsAfterSpace() -> Bool {
            skipSpace()
            return index == bytes.count
        }

        mutating func object() throws(Unsure) -> Fields {
            var fields = Fields()
            skipSpace()
            try expect(UInt8(ascii: "{"))
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    try expect(UInt8(ascii: "\""))
                    let key = try rawKey()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    skipSpace()
                    let value = try value()
                    try keep(value, key: key, in: &fields)
                    skipSpace()
                    let next = peek()
                    index += 1
                    if next == UInt8(ascii: "}") { break }
                    guard next == UInt8(ascii: ",") else { throw Unsure() }
                    skipSpace()
                }
            }
            return fields
        }

        private func keep(_ value: Value, key: UnsafeBufferPointer<UInt8>, in fields: inout Fields) throws(Unsure) {
            func set(_ field: inout Value?) throws(Unsure) {
                guard field == nil else { throw Unsure() }
                field = value
            }
            func `is`(_ name: StaticString) -> Bool {
                key.count == name.utf8CodeUnitCount && memcmp(key.baseAddress!, name.utf8Start, key.count) == 0
            }
            switch key.count {
            case 4 where `is`("guid"): try set(&fields.guid)
            case 5 where `is`("total"): try set(&fields.total)
            case 6 where `is`("action"): try set(&fields.action)
            case 7 where `is`("podcast"): try set(&fields.podcast)
            case 7 where `is`("episode"): try set(&fields.episode)
            case 7 where `is`("started"): try set(&fields.started)
            case 8 where `is`("position"): try set(&fields.position)
            case 9 where `is`("timestamp"): try set(&fields.timestamp)
            default: break
            }
        }

        /// The bytes as text; nil when they are not UTF-8. (`String(validating:as:)` looked up
        /// generic metadata on every call, a tenth of the reading.)
        private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            let text = String(decoding: bytes, as: UTF8.self)
            if bytes.allSatisfy({ $0 < 0x80 }) { return text }  // ASCII: nothing to repair
            // Bytes that are not UTF-8 come out repaired, so differ from the text's own.
            var copy = text
            return copy.withUTF8 { utf8 in
                utf8.count == bytes.count && memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            } ? text : nil
        }

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func expect(_ byte: UInt8) throws(Unsure) {
            guard peek() == byte else { throw Unsure() }
            index += 1
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        /// A key's bytes, after its opening quote; a key with an escape is not read.
        private mutating func rawKey() throws(Unsure) -> UnsafeBufferPointer<UInt8> {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
                }
                guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { throw Unsure() }
                index += 1
            }
            throw Unsure()
        }

        private mutating func value() throws(Unsure) -> Value {
            guard let first = peek() else { throw Unsure() }
            switch first {
            case UInt8(ascii: "\""):
                index += 1
                return try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .integer(try integer())
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "t"):
                try literal("true")
                return .boolean
            case UInt8(ascii: "f"):
                try literal("false")
                return .boolean
            default:
                throw Unsure()
            }
        }

        private mutating func literal(_ word: StaticString) throws(Unsure) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count,
                UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                    UnsafeBufferPointer(start: word.utf8Start, count: count))
            else { throw Unsure() }
            index += count
        }

        /// `-?(0|[1-9][0-9]*)` of at most 15 digits; a fraction or an exponent is not read.
        private mutating func integer() throws(Unsure) -> Int {
            var negative = false
            if peek() == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            let start = index
            var value = 0
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            let digits = index - start
            guard digits > 0, digits <= 15, !(digits > 1 && bytes[start] == 0x30) else { throw Unsure() }
            if let next = peek(), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                throw Unsure()
            }
            return negative ? -value : value
        }

        /// A string, after its opening quote, its escapes resolved (not a surrogate pair).
        private mutating func string() throws(Unsure) -> Value {
            let start = index
            // Most strings have no escape: their bytes are the text.
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    let raw = UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
                    if ascii { return .ascii(raw) }
                    guard let text = Self.text(raw) else { throw Unsure() }
                    return .string(text)
                }
                ascii = ascii && byte < 0x80
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw Unsure() }
                index += 1
            }
            var unescaped = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = unescaped.withUnsafeBufferPointer(Self.text) else { throw Unsure() }
                    return .string(text)
                case UInt8(ascii: "\\"):
                    guard let escape = peek() else { throw Unsure() }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
                    case UInt8(ascii: "b"): unescaped.append(0x08)
                    case UInt8(ascii: "f"): unescaped.append(0x0C)
                    case UInt8(ascii: "n"): unescaped.append(0x0A)
                    case UInt8(ascii: "r"): unescaped.append(0x0D)
                    case UInt8(ascii: "t"): unescaped.append(0x09)
                    case UInt8(ascii: "u"):
                        guard bytes.count - index >= 4 else { throw Unsure() }
                        var code: UInt32 = 0
                        for _ in 0..<4 {
                            guard let digit = Self.hexDigit(bytes[index]) else { throw Unsure() }
                            code = code << 4 | digit
                            index += 1
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw Unsure() }
                        unescaped.append(contentsOf: UTF8.encode(scalar)!)
                    default:
                        throw Unsure()
                    }
                default:
                    guard byte >= 0x20 else { throw Unsure() }
                    unescaped.append(byte)
                }
            }
            throw Unsure()
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
    }
}
