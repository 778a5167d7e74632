/// What an ``HTMLTokenizer`` hands over, in document order.
protocol HTMLTokenReceiver {
    /// A start tag, with its attributes to read when wanted. A self-closing tag (`<br/>`) is
    /// followed by its end tag.
    mutating func startTag(_ name: HTMLTagName, attributes: HTMLAttributes)
    mutating func endTag(_ name: HTMLTagName)
    /// Text, its references decoded; one run of text may come in several calls.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// Reads HTML as libxml2 2.9's HTML parser reads it in recovery mode, as far as its text and
/// tags go: show notes were read with that parser, and read the same now. Nothing is built
/// and no element is matched with another: the receiver keeps what state it needs.
///
/// - `<` starts a start tag when a letter follows, an end tag when `/` does, a comment
///   (`<!--` to `-->`), a document type (`<!DOCTYPE`) or a processing instruction (`<?`);
///   any other `<` is text. Element and attribute names are read in any case.
/// - An attribute's value is quoted with `"` or `'` (a `>` inside is part of it), or runs to
///   white space or `>`.
/// - `script` and `style` hold raw text up to the `</` that starts their end tag.
/// - A character reference (`&#233;`, `&#xE9;`) gives its character, or nothing when the
///   character is not one XML allows; a named entity HTML 4 defines gives its character when
///   `;` ends it; any other `&` is text.
/// - Control characters other than tab, line feed and carriage return are dropped.
///
/// Show notes come by the thousand in a listing or an index: this is one pass over the bytes,
/// allocating nothing itself (figures against libxml2's parser in `Benchmarks/README.md`).
struct HTMLTokenizer<Receiver: HTMLTokenReceiver> {
    private let html: UnsafeBufferPointer<UInt8>
    private let entities: HTMLEntities
    private var receiver: Receiver

    /// Reads `html` into `receiver`, with the entity names met before in `entities`.
    static func read(_ html: UnsafeBufferPointer<UInt8>, into receiver: inout Receiver, entities: HTMLEntities) {
        var tokenizer = HTMLTokenizer(html: html, entities: entities, receiver: receiver)
        tokenizer.run()
        receiver = tokenizer.receiver
    }

    private init(html: UnsafeBufferPointer<UInt8>, entities: HTMLEntities, receiver: Receiver) {
        self.html = html
        self.entities = entities
        self.receiver = receiver
    }

    private mutating func run() {
        var index = 0
        var textStart = 0
        while true {
            // Only `<`, `&` and control characters are looked at; the text between goes as it is.
            index = ByteSearch.firstIndex(
                of: UInt8(ascii: "<"), UInt8(ascii: "&"), UInt8(ascii: "&"), orBelow: 0x20, in: UnsafeRawBufferPointer(html),
                from: index)
            guard index < html.count else { break }
            let byte = html[index]
            if byte == UInt8(ascii: "<") {
                emitText(textStart..<index)
                index = markup(at: index)
                textStart = index
            } else if byte == UInt8(ascii: "&") {
                switch HTMLSyntax.reference(in: html, at: index, entities: entities) {
                case .text:
                    index += 1
                case .character(let scalar, let end):
                    emitText(textStart..<index)
                    emit(scalar)
                    index = end
                    textStart = index
                case .nothing(let end):
                    emitText(textStart..<index)
                    index = end
                    textStart = index
                }
            } else if byte < 0x20 && !HTMLSyntax.isBlank(byte) {
                emitText(textStart..<index)
                index += 1
                textStart = index
            } else {
                index += 1
            }
        }
        emitText(textStart..<html.count)
    }

    private mutating func emitText(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        receiver.text(UnsafeBufferPointer(rebasing: html[range]))
    }

    private mutating func emit(_ scalar: Unicode.Scalar) {
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            var count = 0
            for byte in UTF8.encode(scalar)! {
                buffer[count] = byte
                count += 1
            }
            receiver.text(UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }

    /// Reads the markup starting with the `<` at `start`; returns where the text goes on.
    private mutating func markup(at start: Int) -> Int {
        let next = byte(start + 1)
        if next == UInt8(ascii: "!") {
            if byte(start + 2) == UInt8(ascii: "-") && byte(start + 3) == UInt8(ascii: "-") {
                return end(of: HTMLSyntax.commentEnd, from: start + 4)
            }
            if HTMLSyntax.matchesIgnoringCase(HTMLSyntax.doctype, in: html, at: start + 2) {
                return end(of: HTMLSyntax.greaterThan, from: start + 2)
            }
        } else if next == UInt8(ascii: "?") {
            return end(of: HTMLSyntax.greaterThan, from: start + 2)
        } else if next == UInt8(ascii: "/") {
            // libxml2 drops a `</` that no name follows, and reads on after it.
            guard HTMLSyntax.isNameStart(byte(start + 2)) else { return start + 2 }
            let nameEnd = HTMLSyntax.nameEnd(in: html, from: start + 2)
            receiver.endTag(HTMLTagName(UnsafeBufferPointer(rebasing: html[(start + 2)..<nameEnd])))
            return end(of: HTMLSyntax.greaterThan, from: nameEnd)
        } else if HTMLSyntax.isLetter(next) {
            return startTag(at: start)
        }
        // Any other `<` is text.
        emitText(start..<(start + 1))
        return start + 1
    }

    private mutating func startTag(at start: Int) -> Int {
        let nameEnd = HTMLSyntax.nameEnd(in: html, from: start + 1)
        let name = HTMLTagName(UnsafeBufferPointer(rebasing: html[(start + 1)..<nameEnd]))
        let (attributesEnd, isSelfClosing) = HTMLSyntax.attributes(in: html, from: nameEnd) { _, _ in false }
        // A tag the text ends inside changes nothing, as libxml2 reads it.
        guard attributesEnd < html.count else { return html.count }
        let attributes = HTMLAttributes(html: UnsafeBufferPointer(rebasing: html[nameEnd..<attributesEnd]), entities: entities)
        receiver.startTag(name, attributes: attributes)
        let after = min(html.count, attributesEnd + (isSelfClosing ? 2 : 1))
        if isSelfClosing {
            receiver.endTag(name)
        } else if name.key == HTMLSyntax.script || name.key == HTMLSyntax.style {
            return rawTextEnd(of: name, from: after)
        }
        return after
    }

    /// Where the raw text of a `script` or `style` element starting at `start` ends: at the
    /// `</` followed by its name, in any case, or at the end.
    private func rawTextEnd(of name: HTMLTagName, from start: Int) -> Int {
        var index = start
        while index + 1 < html.count {
            if html[index] == UInt8(ascii: "<") && html[index + 1] == UInt8(ascii: "/")
                && HTMLSyntax.matchesIgnoringCase(name.bytes, in: html, at: index + 2)
            {
                return index
            }
            index += 1
        }
        return html.count
    }

    /// Where the first `pattern` at or after `start` ends, or the end.
    private func end(of pattern: [UInt8], from start: Int) -> Int {
        var index = start
        while index + pattern.count <= html.count {
            if html[index] == pattern[0] && HTMLSyntax.matches(pattern, in: html, at: index) { return index + pattern.count }
            index += 1
        }
        return html.count
    }

    /// The byte at `index`, or 0 past the end.
    private func byte(_ index: Int) -> UInt8 {
        index < html.count ? html[index] : 0
    }
}

/// The rules of HTML's syntax that the tokenizer and the attributes share.
enum HTMLSyntax {
    static let commentEnd = Array("-->".utf8)
    static let greaterThan = Array(">".utf8)
    static let doctype = Array("doctype".utf8)
    static let script = HTMLTagName.key(of: "script")
    static let style = HTMLTagName.key(of: "style")

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// What libxml2's HTML parser starts an element or attribute name with.
    static func isNameStart(_ byte: UInt8) -> Bool {
        isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    /// What it goes on with.
    static func isNameCharacter(_ byte: UInt8) -> Bool {
        isNameStart(byte) || byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    static func nameEnd(in html: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < html.count, isNameCharacter(html[index]) { index += 1 }
        return index
    }

    static func blanksEnd(in html: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < html.count, isBlank(html[index]) { index += 1 }
        return index
    }

    static func matches(_ pattern: [UInt8], in html: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start >= 0, start + pattern.count <= html.count else { return false }
        for offset in pattern.indices where html[start + offset] != pattern[offset] { return false }
        return true
    }

    /// Whether `pattern` is at `start` of `html`, letters in either case.
    static func matchesIgnoringCase(_ pattern: some Collection<UInt8>, in html: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start >= 0, start + pattern.count <= html.count else { return false }
        var index = start
        for byte in pattern {
            guard lowercased(html[index]) == lowercased(byte) else { return false }
            index += 1
        }
        return true
    }

    /// Reads a start tag's attributes from `start` (after its name) up to its `>` or `/>`, as
    /// libxml2 reads them: a name, then `=` and a value or not; anything else up to white
    /// space is skipped. `visit` gets each attribute's name and value (nil without one) and
    /// returns true to stop there. Returns where the `>` or `/>` is (or the end of `html`, or
    /// where `visit` stopped), and whether it is `/>`.
    static func attributes(
        in html: UnsafeBufferPointer<UInt8>, from start: Int, visit: (Range<Int>, Range<Int>?) -> Bool
    ) -> (end: Int, isSelfClosing: Bool) {
        var index = start
        func byte(_ index: Int) -> UInt8 { index < html.count ? html[index] : 0 }
        while true {
            index = blanksEnd(in: html, from: index)
            guard index < html.count else { return (html.count, false) }
            if html[index] == UInt8(ascii: ">") { return (index, false) }
            if html[index] == UInt8(ascii: "/") && byte(index + 1) == UInt8(ascii: ">") { return (index, true) }
            guard isNameStart(html[index]) else {
                while index < html.count, !isBlank(html[index]), html[index] != UInt8(ascii: ">"),
                    html[index] != UInt8(ascii: "/") || byte(index + 1) != UInt8(ascii: ">")
                {
                    index += 1
                }
                continue
            }
            let name = index..<nameEnd(in: html, from: index)
            index = blanksEnd(in: html, from: name.upperBound)
            var value: Range<Int>?
            if byte(index) == UInt8(ascii: "=") {
                index = blanksEnd(in: html, from: index + 1)
                let quote = byte(index)
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    var end = index + 1
                    while end < html.count, html[end] != quote { end += 1 }
                    value = (index + 1)..<end
                    index = min(html.count, end + 1)
                } else {
                    var end = index
                    while end < html.count, !isBlank(html[end]), html[end] != UInt8(ascii: ">") { end += 1 }
                    value = index..<end
                    index = end
                }
            }
            if visit(name, value) { return (index, false) }
        }
    }

    /// What an `&` starts.
    enum Reference {
        /// A character, and where its reference ends.
        case character(Unicode.Scalar, end: Int)
        /// A character reference to a character XML does not allow: nothing, up to `end`.
        case nothing(end: Int)
        /// The `&` is text.
        case text
    }

    /// What the `&` at `start` of `html` starts, as libxml2's HTML parser reads it.
    static func reference(in html: UnsafeBufferPointer<UInt8>, at start: Int, entities: HTMLEntities) -> Reference {
        var index = start + 1
        if index < html.count && html[index] == UInt8(ascii: "#") {
            // Digits up to `;` or to anything else; `;` is then optional.
            index += 1
            let isHex = index < html.count && (html[index] | 0x20) == UInt8(ascii: "x")
            if isHex { index += 1 }
            var value: UInt32 = 0
            while index < html.count, let digit = MarkupReference.digit(html[index], hex: isHex) {
                value = min(0x11_0000, value * (isHex ? 16 : 10) + digit)
                index += 1
            }
            if index < html.count && html[index] == UInt8(ascii: ";") { index += 1 }
            guard MarkupReference.isXMLCharacter(value), let scalar = Unicode.Scalar(value) else {
                return .nothing(end: index)
            }
            return .character(scalar, end: index)
        }
        // A name: only an entity of HTML 4 ended by `;` is read; anything else is text.
        while index < html.count, isNameCharacter(html[index]) || html[index] >= 0x80 { index += 1 }
        guard index < html.count, html[index] == UInt8(ascii: ";"), index > start + 1,
            let scalar = entities.character(named: UnsafeBufferPointer(rebasing: html[(start + 1)..<index]))
        else { return .text }
        return .character(scalar, end: index + 1)
    }
}

/// An element's or attribute's name as written, and as a number that tells names apart in
/// any case: a receiver need not make a `String` of each.
struct HTMLTagName {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The name's bytes in lower case when it has at most 8, packed; otherwise a hash of
    /// them with the top bit set, which no packed name has (names are ASCII).
    let key: UInt64

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        key = Self.key(of: bytes)
    }

    private static func key(of bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var key: UInt64 = 0
        guard bytes.count <= 8 else {
            // FNV-1a
            key = 0xcbf2_9ce4_8422_2325
            for byte in bytes { key = (key ^ UInt64(HTMLSyntax.lowercased(byte))) &* 0x100_0000_01b3 }
            return key | (1 << 63)
        }
        for (index, byte) in bytes.enumerated() { key |= UInt64(HTMLSyntax.lowercased(byte)) << (8 * index) }
        return key
    }

    /// The key of a name.
    static func key(of name: String) -> UInt64 {
        Array(name.utf8).withUnsafeBufferPointer { key(of: $0) }
    }

    /// Where a table of open addressing with `mask + 1` slots (a power of two) first looks for
    /// `key`, or for any name packed the same way: the reducer's elements and the entities'
    /// names are kept in such tables.
    static func firstSlot(of key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }
}

/// The attributes of a start tag, read when asked for.
struct HTMLAttributes {
    /// The tag's bytes after its name, up to its `>` or `/>`.
    let html: UnsafeBufferPointer<UInt8>
    let entities: HTMLEntities

    /// The value of the first attribute whose name has `key` (``HTMLTagName/key``), its
    /// references decoded; nil when the tag has none, or when it has no value.
    func value(of key: UInt64) -> [UInt8]? {
        var found: Range<Int>??
        _ = HTMLSyntax.attributes(in: html, from: 0) { attribute, value in
            guard HTMLTagName(UnsafeBufferPointer(rebasing: html[attribute])).key == key else { return false }
            found = .some(value)
            return true
        }
        guard case .some(.some(let value)) = found else { return nil }
        return decoded(UnsafeBufferPointer(rebasing: html[value]))
    }

    /// `value` with its references decoded.
    private func decoded(_ value: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(value.count)
        var index = 0
        while index < value.count {
            let byte = value[index]
            guard byte == UInt8(ascii: "&") else {
                if byte >= 0x20 || HTMLSyntax.isBlank(byte) { output.append(byte) }
                index += 1
                continue
            }
            switch HTMLSyntax.reference(in: value, at: index, entities: entities) {
            case .text:
                output.append(byte)
                index += 1
            case .character(let scalar, let end):
                output.append(contentsOf: UTF8.encode(scalar)!)
                index = end
            case .nothing(let end):
                index = end
            }
        }
        return output
    }
}

/// The named entities of HTML 4, as libxml2's HTML parser knows them, each name looked up once
/// (libxml2 compares a name with each of its 253 in turn). One per thread of work.
final class HTMLEntities {
    /// The names met so far, by their bytes (no entity's name is longer than 8, and none has a
    /// zero byte, so 0 is an empty slot), with their characters (0 when a name is no entity), in
    /// a table of open addressing: a `Dictionary` hashes each name with SipHash, and a listing
    /// meets several in every episode's notes.
    private var keys = [UInt64](repeating: 0, count: slotCount)
    private var characters = [UInt32](repeating: 0, count: slotCount)
    private var count = 0

    private static let slotCount = 1024
    /// Names past this many are looked up each time: the table stays sparse, and a hostile
    /// feed's made-up names cannot grow it.
    private static let maximumCount = 512

    /// The character the entity `name` (case matters) stands for, or nil.
    func character(named name: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard name.count <= 8 else { return nil }
        var key: UInt64 = 0
        for (index, byte) in name.enumerated() { key |= UInt64(byte) << (8 * index) }
        let mask = Self.slotCount - 1
        var slot = HTMLTagName.firstSlot(of: key, mask: mask)
        while keys[slot] != 0 {
            if keys[slot] == key { return Self.scalar(characters[slot]) }
            slot = (slot + 1) & mask
        }
        let value = MarkupReference.htmlEntity(named: UnsafeRawBufferPointer(name)) ?? 0
        if count < Self.maximumCount {
            keys[slot] = key
            characters[slot] = value
            count += 1
        }
        return Self.scalar(value)
    }

    private static func scalar(_ value: UInt32) -> Unicode.Scalar? {
        value == 0 ? nil : Unicode.Scalar(value)
    }
}
