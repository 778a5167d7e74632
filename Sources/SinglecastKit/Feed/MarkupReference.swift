import CLibXML2

/// Tells what an `&` in a feed's text starts: a reference XML reads, an HTML entity (which
/// XML does not define), a character XML forbids, or a bare `&`; for ``FeedMarkupRepair``.
enum MarkupReference {
    /// What a reference is, or where it ends.
    enum Kind: Equatable {
        /// A character reference XML allows or one of XML's five entities, ending at `end`, and
        /// the character it stands for.
        case valid(end: Int, scalar: UInt32)
        /// An HTML entity, and the character it stands for.
        case html(end: Int, scalar: UInt32)
        /// A reference to a character XML forbids.
        case forbiddenCharacter(end: Int)
        /// An `&` that starts no known reference.
        case bare
        /// The text ends before it can tell.
        case incomplete
    }

    /// The longest entity name considered.
    private static let maximumNameLength = 32

    /// What the `&` at `start` starts.
    static func classify(_ buffer: UnsafeRawBufferPointer, at start: Int, isFinal: Bool) -> Kind {
        if let (end, scalar) = predefinedEntity(buffer, at: start) { return .valid(end: end, scalar: scalar) }
        var index = start + 1
        let limit = min(buffer.count, start + 2 + maximumNameLength)
        guard index < buffer.count else { return isFinal ? .bare : .incomplete }
        if buffer[index] == UInt8(ascii: "#") {
            index += 1
            var isHex = false
            if index < limit, buffer[index] | 0x20 == UInt8(ascii: "x") {
                isHex = true
                index += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while index < limit, let digit = Self.digit(buffer[index], hex: isHex) {
                value = digits < 8 ? value * (isHex ? 16 : 10) + digit : 0x110000
                digits += 1
                index += 1
            }
            guard index < limit else { return isFinal || limit < buffer.count ? .bare : .incomplete }
            guard digits > 0, buffer[index] == UInt8(ascii: ";") else { return .bare }
            return isXMLCharacter(value) ? .valid(end: index + 1, scalar: value) : .forbiddenCharacter(end: index + 1)
        }
        while index < limit, isEntityNameCharacter(buffer[index]) { index += 1 }
        guard index < limit else { return isFinal || limit < buffer.count ? .bare : .incomplete }
        guard index > start + 1, buffer[index] == UInt8(ascii: ";") else { return .bare }
        guard let scalar = htmlEntity(named: UnsafeRawBufferPointer(rebasing: buffer[(start + 1)..<index])) else {
            return .bare
        }
        return .html(end: index + 1, scalar: scalar)
    }

    /// The character of HTML 4's entity `name` (case matters), from libxml2's table, or nil.
    static func htmlEntity(named name: UnsafeRawBufferPointer) -> UInt32? {
        withUnsafeTemporaryAllocation(of: xmlChar.self, capacity: name.count + 1) { terminated in
            _ = terminated.initialize(from: name)
            terminated[name.count] = 0
            return htmlEntityLookup(terminated.baseAddress)?.pointee.value
        }
    }

    /// Where XML's `&lt;`, `&gt;`, `&amp;`, `&quot;` or `&apos;` at `start` ends, and its
    /// character, or nil: the common case, told apart by comparing words.
    private static func predefinedEntity(_ buffer: UnsafeRawBufferPointer, at start: Int) -> (end: Int, scalar: UInt32)? {
        guard start + 8 <= buffer.count else { return nil }
        let word = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        for (pattern, mask, length, scalar) in predefinedEntities where word & mask == pattern {
            return (start + length, scalar)
        }
        return nil
    }

    /// XML's entity references as little-endian words, with the mask of their bytes, and their characters.
    private static let predefinedEntities: [(pattern: UInt64, mask: UInt64, length: Int, scalar: UInt32)] =
        [("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"), ("&quot;", "\""), ("&apos;", "'")].map { reference, character in
            let bytes = Array(reference.utf8)
            let pattern = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
            return (pattern, (1 << (8 * UInt64(bytes.count))) - 1, bytes.count, character.unicodeScalars.first!.value)
        }

    static func digit(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// XML 1.0's `Char`.
    static func isXMLCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func isEntityNameCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
            UInt8(ascii: ":"):
            true
        default: false
        }
    }
}
