import Foundation

/// Reads an answer of episode actions (`{"actions": [...], "timestamp": N}`) as it arrives,
/// so that one of 100,000 actions (tens of megabytes) is never held whole, as bytes or as
/// values: the elements of the `actions` array go, in the list's order, into
/// ``ReceivedActions``, which keeps only each episode's newest; the rest of the answer (its
/// skeleton, `{"actions":[],"timestamp":N}`) is decoded at the end.
///
/// An element of the usual shape is read by ``ActionReader`` where it lies in the bytes that
/// came. One that the end of those bytes cuts, or that the reader leaves to the decoder, is
/// cut out of the stream, following JSON's nesting and strings (escapes included) and nothing
/// else, into a batch: read by ``ActionReader`` when every action of the batch has the usual
/// shape, and otherwise decoded by `JSONDecoder`, so a malformed answer still fails as
/// malformed.
struct ActionStream {
    /// How many actions are decoded at once.
    static let batchSize = 2000

    private(set) var received = ReceivedActions()
    private var skeleton: [UInt8] = []
    private var batch: [UInt8] = [UInt8(ascii: "[")]
    private var batchCount = 0
    /// Where each element of the batch starts and ends in `batch`.
    private var starts: [Int] = []
    private var ends: [Int] = []
    /// The actions ``ActionReader`` read from the batch (nil: left out), reused batch after batch.
    private var read: [SyncWire.ReceivedAction?] = []
    private var lastPodcast = ActionReader.LastPodcast()
    private var depth = 0
    private var inString = false
    private var escaped = false
    private enum Mode { case skeleton, between, element }
    private var mode = Mode.skeleton

    /// The skeleton may not grow past this: an answer that is all skeleton is not the API's.
    static let skeletonLimit = 16 * 1_048_576

    mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) throws {
        let fed: Void? = try bytes.withContiguousStorageIfAvailable { buffer in try feed(buffer) }
        if fed == nil { try Array(bytes).withUnsafeBufferPointer { buffer in try feed(buffer) } }
    }

    private mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var index = 0
        while index < bytes.count {
            if mode == .between && batchCount == 0 && bytes[index] == UInt8(ascii: "{"),
                let (outcome, end) = ActionReader.read(bytes, objectAt: index, podcast: &lastPodcast)
            {
                // With no element waiting in the batch, one of the usual shape that ends in
                // these bytes is read where it lies, in the list's order.
                if case .action(let action) = outcome { received.add(action) } else { received.ignored += 1 }
                index = end
                continue
            }
            if inString && !escaped {
                // The body of a string, up to its closing quote or an escape, goes in one piece.
                var end = index
                while end < bytes.count && bytes[end] != UInt8(ascii: "\"") && bytes[end] != UInt8(ascii: "\\") { end += 1 }
                if end > index {
                    let run = UnsafeBufferPointer(rebasing: bytes[index..<end])
                    if mode == .skeleton { skeleton.append(contentsOf: run) } else { batch.append(contentsOf: run) }
                    index = end
                    continue
                }
            }
            try feed(bytes[index])
            index += 1
        }
    }

    @inline(__always)
    private mutating func feed(_ byte: UInt8) throws {
        if inString {
            append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return
        }
        switch mode {
        case .skeleton:
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["):
                if depth == 1 && skeletonEndsWithActionsKey() {
                    skeleton.append(byte)
                    depth = 2
                    mode = .between
                    return
                }
                depth += 1
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
            skeleton.append(byte)
            guard skeleton.count <= Self.skeletonLimit else { throw SyncWire.Skipped() }
        case .between:
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ","):
                return
            case UInt8(ascii: "]"):
                try endArray()
            default:
                mode = .element
                if batchCount > 0 { batch.append(UInt8(ascii: ",")) }
                batchCount += 1
                starts.append(batch.count)
                try element(byte)
            }
        case .element:
            try element(byte)
        }
    }

    private mutating func element(_ byte: UInt8) throws {
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            batch.append(byte)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            batch.append(byte)
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            if depth == 2 {
                // A scalar element ended by the array's end (a `}` here is malformed, left to the decoder).
                if byte == UInt8(ascii: "]") { return try endArray() }
                batch.append(byte)
                return
            }
            depth -= 1
            batch.append(byte)
            if depth == 2 { try endElement() }
        case UInt8(ascii: ",") where depth == 2:
            try endElement()
        default:
            batch.append(byte)
        }
    }

    private mutating func append(_ byte: UInt8) {
        if mode == .skeleton { skeleton.append(byte) } else { batch.append(byte) }
    }

    private mutating func endElement() throws {
        ends.append(batch.count)
        mode = .between
        if batchCount >= Self.batchSize {
            try decodeBatch()
        } else if batchCount == 1 && readBatch() {
            // An element that the end of a chunk cut: read once whole. One the reader leaves to
            // the decoder stays, and the elements after it join it, to be decoded together.
            addRead()
            clearBatch()
        }
    }

    private mutating func endArray() throws {
        if mode == .element { ends.append(batch.count) }
        try decodeBatch()
        skeleton.append(UInt8(ascii: "]"))
        depth = 1
        mode = .skeleton
    }

    private mutating func decodeBatch() throws {
        guard batchCount > 0 else { return }
        if readBatch() {
            addRead()
        } else {
            batch.append(UInt8(ascii: "]"))
            let elements = try JSONDecoder().decode([SyncWire.Lenient<SyncWire.ReceivedAction>].self, from: Data(batch))
            for element in elements {
                if let action = element.value { received.add(action) } else { received.ignored += 1 }
            }
        }
        clearBatch()
    }

    /// Adds what ``readBatch()`` read.
    private mutating func addRead() {
        for action in read {
            if let action { received.add(action) } else { received.ignored += 1 }
        }
    }

    private mutating func clearBatch() {
        batch.removeAll(keepingCapacity: true)
        batch.append(UInt8(ascii: "["))
        batchCount = 0
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        read.removeAll(keepingCapacity: true)
    }

    /// Reads the batch's elements with ``ActionReader`` into `read`; false when one of them
    /// is not of the usual shape (the batch is then left to `JSONDecoder`).
    private mutating func readBatch() -> Bool {
        guard starts.count == batchCount, ends.count == batchCount else { return false }
        var out: [SyncWire.ReceivedAction?] = []
        swap(&out, &read)
        out.removeAll(keepingCapacity: true)
        defer { swap(&out, &read) }
        return batch.withUnsafeBufferPointer { bytes in
            for (start, end) in zip(starts, ends) {
                switch ActionReader.read(UnsafeBufferPointer(rebasing: bytes[start..<end]), podcast: &lastPodcast) {
                case .action(let action): out.append(action)
                case .skipped: out.append(nil)
                case .unsure: return false
                }
            }
            return true
        }
    }

    /// Whether the skeleton ends with `"actions":` (and white space).
    private func skeletonEndsWithActionsKey() -> Bool {
        var end = skeleton.endIndex
        func skipSpace() { while end > 0, [0x20, 0x0A, 0x0D, 0x09].contains(skeleton[end - 1]) { end -= 1 } }
        skipSpace()
        guard end > 0, skeleton[end - 1] == UInt8(ascii: ":") else { return false }
        end -= 1
        skipSpace()
        let key = Array("\"actions\"".utf8)
        return end >= key.count && Array(skeleton[(end - key.count)..<end]) == key
    }

    /// The server's timestamp, once the whole answer is in; actions left in the skeleton (an
    /// answer shaped otherwise) are read from it.
    mutating func finish() throws -> Int64 {
        guard mode == .skeleton, depth == 0, !inString else { throw SyncWire.Skipped() }
        let rest = try JSONDecoder().decode(SyncWire.EpisodeActions.self, from: Data(skeleton))
        for action in rest.actions { received.add(action) }
        received.ignored += rest.ignored
        return rest.timestamp
    }
}

/// The episode actions of an answer as applying them needs them: each episode's newest `play`
/// or `new`, and its newest `download` and `delete`, whatever the order they came in.
struct ReceivedActions: Sendable {
    /// Each episode's newest `play` or `new`, in the order the episodes first came.
    private(set) var plays: [SyncWire.ReceivedAction] = []
    /// Where each episode's is in `plays`, by episode URL.
    private(set) var playIndex: [String: Int] = [:]
    /// By type and episode URL.
    var kept: [String: SyncWire.ReceivedAction] = [:]
    /// The actions read, and those left out (unknown types, missing URLs or times).
    var count = 0
    var ignored = 0
    /// One copy of each podcast URL, however many actions name it, and the one shared last
    /// (the next action's, most often: it is then not looked up).
    private var podcastURLs: Set<String> = []
    private var lastPodcastURL = ""

    init(_ actions: [SyncWire.ReceivedAction] = []) {
        for action in actions { add(action) }
    }

    mutating func add(_ action: SyncWire.ReceivedAction) {
        count += 1
        var action = action
        if action.podcastURL == lastPodcastURL {
            action.podcastURL = lastPodcastURL
        } else if let shared = podcastURLs.firstIndex(of: action.podcastURL) {
            action.podcastURL = podcastURLs[shared]
            lastPodcastURL = action.podcastURL
        } else {
            podcastURLs.insert(action.podcastURL)
            lastPodcastURL = action.podcastURL
        }
        switch action.kind {
        case .play, .new:
            // One lookup of the URL, through the dictionary's in-place access.
            Self.keepNewer(action, in: &plays, at: &playIndex[action.episodeURL])
        case .download, .delete:
            let key = action.kind.rawValue + " " + action.episodeURL
            if let current = kept[key], current.timestamp >= action.timestamp { return }
            kept[key] = action
        }
    }

    private static func keepNewer(
        _ action: SyncWire.ReceivedAction, in plays: inout [SyncWire.ReceivedAction], at index: inout Int?
    ) {
        guard let index else {
            index = plays.count
            plays.append(action)
            return
        }
        if isNewer(action, than: plays[index]) { plays[index] = action }
    }

    /// Whether `a` wins over `b` for the same episode: later; at the same time, a `play` over
    /// a `new`, then the further position, so that the list's order never decides.
    static func isNewer(_ a: SyncWire.ReceivedAction, than b: SyncWire.ReceivedAction) -> Bool {
        if a.timestamp != b.timestamp { return a.timestamp > b.timestamp }
        if a.kind != b.kind { return a.kind == .play }
        return (a.position ?? 0) > (b.position ?? 0)
    }
}
