import Foundation

/// An episode's show notes as plain text: the feed's HTML (`description`, `content:encoded`,
/// `itunes:summary`) read as libxml2's HTML parser reads it (``HTMLTokenizer``), reduced to
/// paragraphs with its entities decoded, and its links numbered and listed at the end.
///
/// What `show`, `episodes --json` and the terminal UI's details pane show, and what search
/// indexes. Scripts, styles and titles are dropped; nothing is fetched.
public struct ShowNotes: Equatable, Sendable {
    /// The paragraphs, each on one line (a `<br>` inside one is a line break); list items
    /// start with `• `; a link whose text is not its URL is followed by its number, `[1]`.
    public var paragraphs: [String] {
        guard bodyLength > 0 else { return [] }
        // Split in UTF-8 bytes: Foundation's `components(separatedBy:)` compares characters, and
        // search splits the notes of every episode it indexes.
        var paragraphs: [String] = []
        var text = text
        text.withUTF8 { all in
            let bytes = UnsafeBufferPointer(rebasing: all[..<bodyLength])
            var start = 0
            var index = 0
            while index + 1 < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") && bytes[index + 1] == UInt8(ascii: "\n") {
                    paragraphs.append(String(decoding: bytes[start..<index], as: UTF8.self))
                    index += 2
                    start = index
                } else {
                    index += 1
                }
            }
            paragraphs.append(String(decoding: bytes[start...], as: UTF8.self))
        }
        return paragraphs
    }
    /// The http(s) links, each once, in the order of their numbers.
    public private(set) var links: [String]
    /// The notes as one text: the paragraphs between blank lines, then the links, one a line
    /// (`[1] https://…`).
    public private(set) var text: String
    /// How many of the text's UTF-8 bytes are the paragraphs, as the reduction writes them: no
    /// paragraph holds a blank line, so they need no second pass.
    private var bodyLength: Int

    /// Reads show notes written in HTML, or in plain text (paragraphs between blank lines).
    public init(_ notes: String) {
        var reducer = HTMLReducer()
        self.init(notes, entities: HTMLEntities(), reducer: &reducer)
    }

    /// Reads show notes with `reducer`, which keeps its buffers from the notes read before, and
    /// with the entity names met in them.
    init(_ notes: String, entities: HTMLEntities, reducer: inout HTMLReducer) {
        guard notes.utf8.contains(UInt8(ascii: "<")) else {
            self.init(plain: notes)
            return
        }
        reducer.read(notes, entities: entities)
        self.init(reducedBy: &reducer)
    }

    /// Reads show notes given as their UTF-8 bytes, as ``init(_:entities:reducer:)`` reads a
    /// string.
    init(utf8 notes: UnsafeBufferPointer<UInt8>, entities: HTMLEntities, reducer: inout HTMLReducer) {
        guard notes.contains(UInt8(ascii: "<")) else {
            self.init(plain: String(decoding: notes, as: UTF8.self))
            return
        }
        reducer.read(utf8: notes, entities: entities)
        self.init(reducedBy: &reducer)
    }

    /// Notes in plain text.
    private init(plain notes: String) {
        text = Self.plainParagraphs(notes).joined(separator: "\n\n")
        bodyLength = text.utf8.count
        links = []
    }

    /// The notes `reducer` has just read.
    private init(reducedBy reducer: inout HTMLReducer) {
        bodyLength = reducer.body.count
        links = reducer.links
        text = reducer.textWithLinks()
    }

    /// The paragraphs of plain text: the runs between blank lines, white space collapsed.
    static func plainParagraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map(collapsingWhitespace).filter { !$0.isEmpty }
    }

    /// The show notes of each of `notes` (nil for nil) put through `transform`, in order, reduced
    /// on every core: a listing or an index reduces thousands.
    static func reduce<T: Sendable>(_ notes: [String?], _ transform: @escaping @Sendable (ShowNotes) -> T) async -> [T?] {
        await reduce(count: notes.count) { index, entities, reducer in
            notes[index].map { transform(ShowNotes($0, entities: entities, reducer: &reducer)) }
        }
    }

    /// The show notes of a page of episodes (``Page``) put through `transform`, as
    /// the notes given as strings are.
    static func reduce<T: Sendable>(_ page: Page, _ transform: @escaping @Sendable (ShowNotes) -> T) async -> [T?] {
        await reduce(count: page.count) { index, entities, reducer in
            page.withNotes(at: index) { notes in transform(ShowNotes(utf8: notes, entities: entities, reducer: &reducer)) }
        }
    }

    /// The results of `reduce` for each index below `count`, in order, in parts as many as
    /// there are cores.
    private static func reduce<T: Sendable>(
        count: Int, _ reduce: @escaping @Sendable (Int, HTMLEntities, inout HTMLReducer) -> T?
    ) async -> [T?] {
        let parts = max(1, min(processorCount, count / 64))
        let size = (count + parts - 1) / parts
        return await withTaskGroup(of: (Int, [T?]).self) { group in
            for part in 0..<parts {
                let indices = min(count, part * size)..<min(count, (part + 1) * size)
                group.addTask {
                    let entities = HTMLEntities()
                    var reducer = HTMLReducer()
                    return (part, indices.map { reduce($0, entities, &reducer) })
                }
            }
            var done: [[T?]] = Array(repeating: [], count: parts)
            for await (part, reduced) in group { done[part] = reduced }
            return done.flatMap { $0 }
        }
    }

    /// How many cores there are: Foundation reads it from the control groups' files each time.
    private static let processorCount = ProcessInfo.processInfo.activeProcessorCount

    /// The show notes of a page of episodes as their UTF-8 bytes, one after another, as a
    /// listing reads them from the library: making a `String` of each would check every byte
    /// that the reduction then reads again.
    struct Page: Sendable {
        private var bytes: [UInt8] = []
        private var ranges: [Range<Int>?] = []

        var count: Int { ranges.count }

        /// Adds the next episode's notes (nil for none).
        mutating func append(_ notes: Data?) {
            guard let notes else { return ranges.append(nil) }
            ranges.append(bytes.count..<(bytes.count + notes.count))
            // Copied as one run of bytes: `Data` as a sequence is copied through its iterator.
            notes.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }

        /// What `body` makes of the notes at `index`; nil for none.
        func withNotes<T>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
            guard let range = ranges[index] else { return nil }
            return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    static func collapsingWhitespace(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                if let last = bytes.last, last != 0x20 { bytes.append(0x20) }
            } else {
                bytes.append(byte)
            }
        }
        if bytes.last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
