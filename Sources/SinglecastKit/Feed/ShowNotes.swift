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
            text = Self.plainParagraphs(notes).joined(separator: "\n\n")
            bodyLength = text.utf8.count
            links = []
            return
        }
        reducer.read(notes, entities: entities)
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
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, notes.count / 64))
        let size = (notes.count + parts - 1) / parts
        return await withTaskGroup(of: (Int, [T?]).self) { group in
            for part in 0..<parts {
                let slice = notes[min(notes.count, part * size)..<min(notes.count, (part + 1) * size)]
                group.addTask {
                    let entities = HTMLEntities()
                    var reducer = HTMLReducer()
                    return (part, slice.map { $0.map { transform(ShowNotes($0, entities: entities, reducer: &reducer)) } })
                }
            }
            var done: [[T?]] = Array(repeating: [], count: parts)
            for await (part, reduced) in group { done[part] = reduced }
            return done.flatMap { $0 }
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
