import Foundation

/// The JSON of the gpodder API (gpodder.net API v2, and the GPodder Sync app for Nextcloud,
/// which copies its shapes): lenient in what it reads, strict in what it writes.
///
/// Reading: timestamps with or without `Z`, with fractions or an offset; `position`,
/// `started` and `total` as numbers or numeric strings; unknown keys ignored; an action of an
/// unknown type, or one without its podcast and episode URLs, skipped (and counted).
enum SyncWire {
    // MARK: - Reading

    /// `{"add": [...], "remove": [...], "timestamp": N}`.
    struct SubscriptionChanges: Decodable, Equatable {
        var add: [String]
        var remove: [String]
        var timestamp: Int64

        enum CodingKeys: String, CodingKey { case add, remove, timestamp }

        init(add: [String], remove: [String], timestamp: Int64) {
            self.add = add
            self.remove = remove
            self.timestamp = timestamp
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            add = try container.decodeIfPresent([Lenient<String>].self, forKey: .add)?.compactMap(\.value) ?? []
            remove = try container.decodeIfPresent([Lenient<String>].self, forKey: .remove)?.compactMap(\.value) ?? []
            timestamp = try SyncWire.serverTimestamp(container, key: .timestamp)
        }
    }

    /// `{"actions": [...], "timestamp": N}`.
    struct EpisodeActions: Decodable {
        var actions: [ReceivedAction]
        /// The actions left out: of unknown types, or without the URLs that key them.
        var ignored: Int
        var timestamp: Int64

        enum CodingKeys: String, CodingKey { case actions, timestamp }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            timestamp = try SyncWire.serverTimestamp(container, key: .timestamp)
            // One element at a time into one array (an answer may hold 100,000 actions).
            actions = []
            ignored = 0
            guard container.contains(.actions), try !container.decodeNil(forKey: .actions) else { return }
            var list = try container.nestedUnkeyedContainer(forKey: .actions)
            actions.reserveCapacity(list.count ?? 0)
            while !list.isAtEnd {
                if let action = try list.decode(Lenient<ReceivedAction>.self).value {
                    actions.append(action)
                } else {
                    ignored += 1
                }
            }
        }
    }

    /// The answer to an upload: `{"timestamp": N, "update_urls": [[old, new], ...]}` (either
    /// part may be missing: the Nextcloud app sends only the timestamp).
    struct UploadResult: Decodable, Equatable {
        var timestamp: Int64?
        var updateURLs: [(old: String, new: String)]

        enum CodingKeys: String, CodingKey {
            case timestamp
            case updateURLs = "update_urls"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            timestamp = try? SyncWire.serverTimestamp(container, key: .timestamp)
            let pairs = (try? container.decodeIfPresent([Lenient<[String]>].self, forKey: .updateURLs)) ?? []
            updateURLs = pairs.compactMap { pair in
                guard let pair = pair.value, pair.count == 2, !pair[1].isEmpty, pair[0] != pair[1] else { return nil }
                return (pair[0], pair[1])
            }
        }

        static func == (a: UploadResult, b: UploadResult) -> Bool {
            a.timestamp == b.timestamp && a.updateURLs.elementsEqual(b.updateURLs) { $0 == $1 }
        }
    }

    /// One device of the account (`GET /api/2/devices/USER.json`).
    struct Device: Decodable {
        var id: String
        var caption: String?
        var type: String?
        var subscriptions: Int?

        enum CodingKeys: String, CodingKey { case id, caption, type, subscriptions }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            caption = try? container.decodeIfPresent(String.self, forKey: .caption)
            type = try? container.decodeIfPresent(String.self, forKey: .type)
            subscriptions = try? SyncWire.integer(container, key: .subscriptions)
        }
    }

    /// An episode action as another device sent it.
    struct ReceivedAction: Decodable, Equatable {
        var podcastURL: String
        var episodeURL: String
        var guid: String?
        var kind: EpisodeAction.Kind
        /// Seconds since 1970, UTC.
        var timestamp: Double
        var started: Int?
        var position: Int?
        var total: Int?

        enum CodingKeys: String, CodingKey { case podcast, episode, guid, action, timestamp, started, position, total }

        init(
            podcastURL: String, episodeURL: String, guid: String? = nil, kind: EpisodeAction.Kind, timestamp: Double,
            started: Int? = nil, position: Int? = nil, total: Int? = nil
        ) {
            self.podcastURL = podcastURL
            self.episodeURL = episodeURL
            self.guid = guid
            self.kind = kind
            self.timestamp = timestamp
            self.started = started
            self.position = position
            self.total = total
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            podcastURL = try container.decode(String.self, forKey: .podcast)
            episodeURL = try container.decode(String.self, forKey: .episode)
            guard !podcastURL.isEmpty, !episodeURL.isEmpty else { throw SyncWire.Skipped() }
            guid = try? container.decodeIfPresent(String.self, forKey: .guid)
            let action = try container.decode(String.self, forKey: .action)
            guard let kind = EpisodeAction.Kind(rawValue: action.lowercased()) else { throw SyncWire.Skipped() }
            self.kind = kind
            // An action without a time cannot be ordered against the others.
            if let text = try? container.decode(String.self, forKey: .timestamp) {
                guard let seconds = SyncWire.seconds(fromTimestamp: text) else { throw SyncWire.Skipped() }
                timestamp = seconds
            } else {
                timestamp = try container.decode(Double.self, forKey: .timestamp)
            }
            started = try? SyncWire.integer(container, key: .started)
            position = try? SyncWire.integer(container, key: .position)
            total = try? SyncWire.integer(container, key: .total)
            if kind == .play && position == nil { throw SyncWire.Skipped() }
        }
    }

    /// An element that is left out when it cannot be read, instead of failing the whole answer.
    struct Lenient<Value: Decodable>: Decodable {
        var value: Value?

        init(from decoder: any Decoder) throws {
            value = try? Value(from: decoder)
        }
    }

    struct Skipped: Error {}

    /// The server's clock: a whole number (some servers send it as a string or a float).
    static func serverTimestamp<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, key: Key) throws -> Int64 {
        if let value = try? container.decode(Int64.self, forKey: key) { return value }
        if let value = try? container.decode(Double.self, forKey: key), value.isFinite { return Int64(value) }
        if let text = try? container.decode(String.self, forKey: key), let value = Int64(text) { return value }
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "no timestamp")
    }

    /// A number of seconds: an integer, a float (rounded down) or a numeric string; nil when absent.
    static func integer<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, key: Key) throws -> Int? {
        // Absent, null or a whole number: one lookup (the common case of 100,000 actions).
        if let value = try? container.decodeIfPresent(Int.self, forKey: key) { return value }
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
        if let value = try? container.decode(Double.self, forKey: key), value.isFinite, abs(value) < 1e15 {
            return Int(value.rounded(.down))
        }
        guard let value = integer(fromText: try container.decode(String.self, forKey: key)) else { throw Skipped() }
        return value
    }

    /// A number of seconds written as text (`"120"`, `" 120.7 "`), rounded down; nil for other text.
    static func integer(fromText text: String) -> Int? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(text) { return value }
        if let value = Double(text), value.isFinite, abs(value) < 1e15 { return Int(value.rounded(.down)) }
        return nil
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS`, optionally with a fraction (`.5`) and
    /// `Z` or an offset (`+02:00`, `-0500`); a time without a zone is UTC, as the API says.
    /// A space may stand for the `T`. Nil for anything else.
    static func seconds(fromTimestamp text: String) -> Double? {
        var text = text
        return text.withUTF8 { seconds(fromTimestamp: $0) }
    }

    /// ``seconds(fromTimestamp:)-(String)`` of the text's UTF-8 bytes.
    static func seconds(fromTimestamp bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                guard let hours = number(index + 1, 2) else { return nil }
                var next = index + 3
                if next < bytes.count, bytes[next] == UInt8(ascii: ":") { next += 1 }
                let minutes = number(next, 2) ?? 0
                if number(next, 2) != nil { next += 2 }
                offset = sign * (hours * 3600 + minutes * 60)
                index = next
            default:
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        // Days from 1970-01-01 to the date, by the civil-calendar algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    // MARK: - Writing

    /// `YYYY-MM-DDTHH:MM:SS` in UTC without an offset, the only form every client reads
    /// (gPodder's cannot read `+00:00`). Fractions of a second are dropped.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// An episode action as it is sent: only the API's fields for its type, `device` only
    /// when the dialect keeps devices.
    struct SentAction: Encodable, Equatable {
        var podcast: String
        var episode: String
        var guid: String?
        var device: String?
        var action: String
        var timestamp: String
        var started: Int?
        var position: Int?
        var total: Int?

        init(_ action: EpisodeAction, device: String?, total fallbackTotal: Int? = nil) {
            podcast = action.podcastURL
            episode = action.episodeURL
            guid = action.guid
            self.device = device
            self.action = action.kind.rawValue
            timestamp = SyncWire.timestamp(action.timestamp)
            if action.kind == .play {
                // A played mark recorded without a length is sent with the fallback length.
                let total = action.total ?? fallbackTotal
                let position = action.position ?? total
                self.position = position
                self.total = total.flatMap { $0 > 0 ? $0 : nil }
                self.started = position.map { min(max(0, action.started ?? 0), $0) }
            }
        }

        /// Absent fields are left out, not sent as null.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(podcast, forKey: .podcast)
            try container.encode(episode, forKey: .episode)
            try container.encodeIfPresent(guid, forKey: .guid)
            try container.encodeIfPresent(device, forKey: .device)
            try container.encode(action, forKey: .action)
            try container.encode(timestamp, forKey: .timestamp)
            try container.encodeIfPresent(started, forKey: .started)
            try container.encodeIfPresent(position, forKey: .position)
            try container.encodeIfPresent(total, forKey: .total)
        }

        enum CodingKeys: String, CodingKey { case podcast, episode, guid, device, action, timestamp, started, position, total }

        /// The JSON array of `actions`, as `JSONEncoder` writes it but for the order of the
        /// keys and `/` left unescaped (as gPodder's client sends it). Written by hand because
        /// `JSONEncoder` took a large share of the CPU time of sending many actions
        /// (`Benchmarks/sync.py`; figures in `Benchmarks/README.md`).
        static func json(_ actions: [SentAction]) -> Data {
            var out: [UInt8] = []
            out.reserveCapacity(actions.count * 256)
            out.append(UInt8(ascii: "["))
            for (index, action) in actions.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                action.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
            return Data(out)
        }

        private func write(to out: inout [UInt8]) {
            var first = true
            func key(_ name: StaticString) {
                out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                out.append(contentsOf: "\":".utf8)
            }
            func string(_ name: StaticString, _ value: String?) {
                guard let value else { return }
                key(name)
                JSONString.append(value, to: &out)
            }
            func integer(_ name: StaticString, _ value: Int?) {
                guard let value else { return }
                key(name)
                out.append(contentsOf: String(value).utf8)
            }
            string("podcast", podcast)
            string("episode", episode)
            string("guid", guid)
            string("device", device)
            string("action", action)
            string("timestamp", timestamp)
            integer("started", started)
            integer("position", position)
            integer("total", total)
            out.append(UInt8(ascii: "}"))
        }
    }


    /// `{"add": [...], "remove": [...]}`.
    struct SentSubscriptionChanges: Encodable {
        var add: [String]
        var remove: [String]
    }

    /// `{"caption": ..., "type": "laptop"}`.
    struct DeviceSettings: Encodable {
        var caption: String
        var type: String
    }

    /// Whether a URL may be sent to the server: http or https, without user info (a feed
    /// read from a file, or one with a password in its URL, stays on this machine).
    static func isShareable(_ url: String) -> Bool {
        // Read byte by byte: it is asked of every action sent (URLComponents took an eighth of
        // the time of sending 10,000).
        let bytes = url.utf8
        let schemeLength: Int
        if bytes.starts(with: "https://".utf8, by: { $0 | 0x20 == $1 | 0x20 }) {
            schemeLength = 8
        } else if bytes.starts(with: "http://".utf8, by: { $0 | 0x20 == $1 | 0x20 }) {
            schemeLength = 7
        } else {
            return false
        }
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return false }
        let authority = bytes.dropFirst(schemeLength).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        return authority.first.map { $0 != UInt8(ascii: ":") } == true && !authority.contains(UInt8(ascii: "@"))
    }
}
