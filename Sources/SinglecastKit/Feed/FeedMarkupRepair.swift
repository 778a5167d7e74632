import CLibXML2
import Glibc

/// Repairs the markup of ill-formed feeds in the UTF-8 text the input filter hands on, before
/// libxml2 reads it, so that one fault costs one character or one tag instead of every episode
/// after it. What a lenient reader would show is kept, in document order:
/// - a bare `&`, or a reference to an entity neither XML nor HTML defines (`&gtgt;`), stays
///   in the text as written (its `&` is escaped);
/// - in text, the references libxml2 would read one at a time become their characters, from
///   the first one to the next markup, in a CDATA section (libxml2 reads a reference about as
///   slowly as a tag, and feeds that escape their show notes' HTML hold one every few words);
///   references to a tab, line feed or carriage return stay, so lines count as written;
/// - a character reference to a character XML forbids (`&#x1;`, `&#0;`, `&#xFFFE;`) is dropped;
/// - an HTML entity in an attribute value becomes a character reference (libxml2 would keep
///   only its first byte there);
/// - an end tag closes the elements left open inside the element it names; an end tag that
///   names no open element closes an element holding only text (a misspelling), else is
///   dropped; an item (or entry) starting inside one that was never closed closes it;
/// - a CDATA section that never ends is closed before the end tag of the element it is in;
/// - a `<` that starts no markup stays as text; an XML declaration after other content, text
///   before the root element and anything but comments after it are dropped.
///
/// It records the line of the first fault (its own, or one the filter reports) for the
/// feed's warning. A document cut off at its end is left so: libxml2 says where it stops.
struct FeedMarkupRepair {
    private enum State: Equatable {
        /// Before the root element.
        case prolog
        case content
        case cdata
        /// After the root element.
        case epilog
        /// Inside markup that ends with `terminator` (a comment, a processing instruction, a
        /// DOCTYPE), passed on as it is, or dropped; then `next`.
        case opaque(terminator: Terminator, dropped: Bool, next: Next)
        /// Everything left is dropped.
        case discarding
    }

    private enum Terminator: Equatable {
        case comment, processingInstruction, doctype, tag

        var bytes: [UInt8] {
            switch self {
            case .comment: Array("-->".utf8)
            case .processingInstruction: Array("?>".utf8)
            case .doctype: Array("]>".utf8)
            case .tag: Array(">".utf8)
            }
        }
    }

    /// The state after opaque markup.
    private enum Next: Equatable {
        case prolog, content, epilog
    }

    /// How deep the repair tracks elements; libxml2 stops at 256 levels anyway.
    private static let maximumDepth = 256
    /// How many open elements an end tag is matched against: a stray end tag is rarely
    /// meant to close more.
    private static let matchedDepth = 32
    /// The longest tag or reference held over a chunk boundary; a longer one is passed on as
    /// it is.
    private static let maximumCarry = 64 * 1024

    private var state = State.prolog
    /// The names of the open elements, one after another; `openEnds` says where each ends.
    private var openNames: [UInt8] = []
    private var openEnds: [Int] = []
    /// Whether each open element holds an element.
    private var openHasChildren: [Bool] = []
    /// The start of a tag or reference that the previous chunk cut off.
    private var carry: [UInt8] = []
    /// How long `carry` was when a scan last stopped at its start. The next scan waits until
    /// it has doubled, so a long tag arriving in small chunks is scanned a few times, not once
    /// per chunk (which took seconds for 64 KiB in 1-byte chunks).
    private var carryWhenScanned = 0
    /// The offset in `carry` of the first fault the input filter reported in bytes that are
    /// waiting there unscanned.
    private var carryFilterFault: Int?
    /// The repaired text of the current chunk, when it needs any repair.
    private var output: [UInt8] = []
    /// Whether the current chunk needed a repair.
    private var isRepaired = false
    /// How much of the current chunk is in `output`.
    private var copied = 0
    /// Whether anything but whitespace has been passed on.
    private var hasContent = false
    /// Whether `output` ends inside a CDATA section the repair opened for text whose references
    /// it writes as their characters (closed before any markup and at the end of a chunk).
    private var isDecoding = false
    /// The line of the first fault, or nil for a well-formed document.
    private(set) var firstFaultLine: Int?
    /// How many bytes have been scanned, counting again those held over and scanned anew:
    /// the work the document cost, which must stay linear in its size however it is chunked.
    private(set) var scannedBytes = 0

    /// Takes the next piece of UTF-8 text (`filterFault`: the offset in it of a fault the
    /// input filter repaired) and hands the repaired text to `emit`. `lineAtEnd` is the line
    /// on which the text emitted so far ends (libxml2 counts them), for the first fault.
    mutating func process(
        _ bytes: UnsafeRawBufferPointer,
        filterFault: Int?,
        isFinal: Bool,
        lineAtEnd: Int,
        emit: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        line = lineAtEnd
        if carry.isEmpty {
            try repair(bytes, filterFault: filterFault, isFinal: isFinal, emit: emit)
        } else {
            let fault = carryFilterFault ?? filterFault.map { $0 + carry.count }
            if !isFinal, carry.count + bytes.count < 2 * carryWhenScanned {
                carry.append(contentsOf: bytes)
                carryFilterFault = fault
                return
            }
            let joined = carry + bytes
            carry = []
            carryFilterFault = nil
            try joined.withUnsafeBytes {
                try repair($0, filterFault: fault, isFinal: isFinal, emit: emit)
            }
        }
    }

    /// The line on which the current chunk starts.
    private var line = 1

    private mutating func repair(
        _ buffer: UnsafeRawBufferPointer,
        filterFault: Int?,
        isFinal: Bool,
        emit: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        if let filterFault { fault(at: filterFault, in: buffer) }
        copied = 0
        isRepaired = false
        output.removeAll(keepingCapacity: true)
        scannedBytes += buffer.count
        let end = scan(buffer, isFinal: isFinal)
        carry = Array(buffer[end...])
        carryWhenScanned = carry.count
        if !isRepaired {
            if end > 0 { try emit(UnsafeRawBufferPointer(rebasing: buffer[..<end])) }
        } else {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[copied..<end]))
            try output.withUnsafeBytes { try emit($0) }
        }
        if isFinal {
            if state == .cdata {
                try Array("]]>".utf8).withUnsafeBytes { try emit($0) }
            }
            if !carry.isEmpty {
                try carry.withUnsafeBytes { try emit($0) }  // a cut-off tag: libxml2 reports it
                carry = []
            }
        }
    }

    /// Repairs `buffer` into `output` (from `copied` on) and returns where the text that
    /// must wait for the next chunk starts.
    private mutating func scan(_ buffer: UnsafeRawBufferPointer, isFinal: Bool) -> Int {
        var index = 0
        while index < buffer.count {
            switch state {
            case .prolog, .content, .epilog:
                let isContent = state == .content
                let next = ByteSearch.firstIndex(
                    of: UInt8(ascii: "<"), or: isContent ? UInt8(ascii: "&") : UInt8(ascii: "<"), in: buffer, from: index)
                if !isContent, next > index {
                    skipText(buffer, from: index, to: next)
                }
                if isDecoding {
                    appendDecoded(UnsafeRawBufferPointer(rebasing: buffer[index..<next]))
                    copied = next
                }
                index = next
                guard index < buffer.count else { break }
                let step: Int?
                if buffer[index] == UInt8(ascii: "&") {
                    step = reference(buffer, at: index, isFinal: isFinal, inAttribute: false)
                } else {
                    endDecoding()
                    step = markup(buffer, at: index, isFinal: isFinal)
                }
                guard let step else {
                    endDecoding()
                    return index
                }
                index = step
            case .cdata:
                let (step, isHeld) = cdata(buffer, from: index, isFinal: isFinal)
                if isHeld { return step }
                index = step
            case .opaque(let terminator, let dropped, let next):
                let bytes = terminator.bytes
                guard let found = ByteSearch.find(bytes, in: buffer, from: index) else {
                    // Keep what could start the terminator for the next chunk.
                    let keep = isFinal ? buffer.count : max(index, buffer.count - (bytes.count - 1))
                    if dropped { replace(index..<keep, with: [], in: buffer) }
                    return keep
                }
                let end = found + bytes.count
                if dropped { replace(index..<end, with: [], in: buffer) }
                index = end
                state = next == .prolog ? .prolog : next == .content ? .content : .epilog
            case .discarding:
                replace(index..<buffer.count, with: [], in: buffer)
                return buffer.count
            }
        }
        endDecoding()
        return buffer.count
    }

    /// Text outside the root element: whitespace is kept (but before any markup, where the
    /// XML declaration must come first), anything else dropped.
    private mutating func skipText(_ buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        if buffer[start..<end].contains(where: { !Self.isWhitespace($0) }) {
            fault(at: start, in: buffer)
        } else if hasContent {
            return
        }
        replace(start..<end, with: [], in: buffer)
    }

    // MARK: - Markup

    /// Handles the markup starting with the `<` at `start`; returns where to go on, or nil
    /// when the chunk ends before it can tell.
    private mutating func markup(_ buffer: UnsafeRawBufferPointer, at start: Int, isFinal: Bool) -> Int? {
        func starts(with text: String) -> Bool? {
            let bytes = Array(text.utf8)
            let available = buffer.count - start
            if available < bytes.count {
                return buffer[start...].elementsEqual(bytes.prefix(available)) && !isFinal ? nil : false
            }
            return buffer[start..<(start + bytes.count)].elementsEqual(bytes)
        }
        guard start + 1 < buffer.count else { return isFinal ? escapeLessThan(buffer, at: start) : nil }
        let second = buffer[start + 1]
        if state == .epilog {
            guard second == UInt8(ascii: "!") || second == UInt8(ascii: "?") else {
                fault(at: start, in: buffer)
                state = .discarding
                return start
            }
        }
        switch second {
        case UInt8(ascii: "/"):
            return endTag(buffer, at: start, isFinal: isFinal)
        case UInt8(ascii: "!"):
            guard let isComment = starts(with: "<!--") else { return nil }
            if isComment {
                hasContent = true
                state = .opaque(terminator: .comment, dropped: false, next: next)
                return start + 4
            }
            guard let isCDATA = starts(with: "<![CDATA[") else { return nil }
            if isCDATA, state == .content {
                state = .cdata
                return start + 9
            }
            guard let isDoctype = starts(with: "<!DOCTYPE") else { return nil }
            var hasSubset = false
            if isDoctype {
                guard let close = ByteSearch.find([UInt8(ascii: ">")], in: buffer, from: start) else {
                    return isFinal ? buffer.count : holdOrPass(buffer, from: start)
                }
                hasSubset = ByteSearch.find([UInt8(ascii: "[")], in: buffer, from: start).map { $0 < close } ?? false
            }
            hasContent = true
            state = .opaque(terminator: hasSubset ? .doctype : .tag, dropped: false, next: next)
            return start + 2
        case UInt8(ascii: "?"):
            guard let isDeclaration = starts(with: "<?xml") else { return nil }
            guard start + 5 < buffer.count || isFinal else { return nil }
            let isMisplaced =
                isDeclaration && start + 5 < buffer.count && Self.isWhitespace(buffer[start + 5])
                && (hasContent || state != .prolog)
            if isMisplaced {
                fault(at: start, in: buffer)
                replace(start..<(start + 2), with: [], in: buffer)
            }
            hasContent = true
            state = .opaque(terminator: .processingInstruction, dropped: isMisplaced, next: next)
            return start + 2
        case let byte where Self.isNameStart(byte):
            return startTag(buffer, at: start, isFinal: isFinal)
        default:
            return escapeLessThan(buffer, at: start)
        }
    }

    /// Where markup that is passed over leads back to.
    private var next: Next {
        switch state {
        case .prolog: .prolog
        case .epilog: .epilog
        default: .content
        }
    }

    private mutating func escapeLessThan(_ buffer: UnsafeRawBufferPointer, at start: Int) -> Int {
        fault(at: start, in: buffer)
        replace(start..<(start + 1), with: Array("&lt;".utf8), in: buffer)
        return start + 1
    }

    /// A start tag: its attribute values are repaired and, unless it closes itself, its
    /// name is pushed. An item (or entry) starting inside an item that was never closed
    /// closes it first.
    private mutating func startTag(_ buffer: UnsafeRawBufferPointer, at start: Int, isFinal: Bool) -> Int? {
        var index = start + 1
        while index < buffer.count, Self.isNameCharacter(buffer[index]) { index += 1 }
        let nameEnd = index
        var quote: UInt8?
        var tagEnd: Int?
        var hasReference = false
        while index < buffer.count {
            if let open = quote {
                // Most of a tag is its values: skip to the quote that ends this one.
                index = ByteSearch.firstIndex(of: open, UInt8(ascii: "&"), UInt8(ascii: "<"), in: buffer, from: index)
                guard index < buffer.count else { break }
            }
            let byte = buffer[index]
            if byte == UInt8(ascii: "&") {
                hasReference = true
            } else if byte == UInt8(ascii: "<") {
                return index  // a tag without its `>`, or an unclosed quote: left to libxml2
            } else if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                tagEnd = index
                break
            }
            index += 1
        }
        guard let tagEnd else { return isFinal ? buffer.count : holdOrPass(buffer, from: start) }
        let name = UnsafeRawBufferPointer(rebasing: buffer[(start + 1)..<nameEnd])
        if Self.isEpisode(name), let depth = openDepth(of: name) {
            closeOpenElements(depth + 1, at: start, in: buffer)
        }
        index = nameEnd
        quote = nil
        while hasReference, index < tagEnd {
            let byte = buffer[index]
            if let open = quote {
                if byte == open {
                    quote = nil
                } else if byte == UInt8(ascii: "&") {
                    // The whole tag is here, so the reference is complete.
                    index = reference(buffer, at: index, isFinal: true, inAttribute: true) ?? index + 1
                    continue
                }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            }
            index += 1
        }
        let closesItself = buffer[tagEnd - 1] == UInt8(ascii: "/")
        if !closesItself {
            open(name)
        }
        if state == .prolog {
            state = closesItself ? .epilog : .content
        }
        hasContent = true
        return tagEnd + 1
    }

    /// Whether an element of this name never holds another: RSS `<item>`, Atom `<entry>`.
    private static func isEpisode(_ name: UnsafeRawBufferPointer) -> Bool {
        switch name.count {
        case 4: name[0] == UInt8(ascii: "i") && name[1] == UInt8(ascii: "t") && name[2] == UInt8(ascii: "e")
            && name[3] == UInt8(ascii: "m")
        case 5: name.elementsEqual(entry)
        default: false
        }
    }

    private static let entry = Array("entry".utf8)

    /// Closes the `count` innermost open elements with end tags put before `offset`.
    private mutating func closeOpenElements(_ count: Int, at offset: Int, in buffer: UnsafeRawBufferPointer) {
        fault(at: offset, in: buffer)
        var closing: [UInt8] = []
        for _ in 0..<count {
            closing += Array("</".utf8) + openNames[openStart(openEnds.count - 1)...] + [UInt8(ascii: ">")]
            close()
        }
        replace(offset..<offset, with: closing, in: buffer)
    }

    /// An end tag: closes the elements left open inside the one it names, or is dropped
    /// when it names none of the open elements.
    private mutating func endTag(_ buffer: UnsafeRawBufferPointer, at start: Int, isFinal: Bool) -> Int? {
        var index = start + 2
        while index < buffer.count, Self.isNameCharacter(buffer[index]) { index += 1 }
        let name = UnsafeRawBufferPointer(rebasing: buffer[(start + 2)..<index])
        while index < buffer.count, Self.isWhitespace(buffer[index]) { index += 1 }
        guard index < buffer.count else { return isFinal ? buffer.count : holdOrPass(buffer, from: start) }
        guard buffer[index] == UInt8(ascii: ">") else { return index }  // malformed: left to libxml2
        let end = index + 1
        guard let depth = openDepth(of: name) else {
            // A misspelled end tag of an element that holds only text closes it; any other
            // is dropped.
            if openHasChildren.last == false {
                closeOpenElements(1, at: start, in: buffer)
                replace(start..<end, with: [], in: buffer)
                if openEnds.isEmpty { state = .epilog }
            } else {
                fault(at: start, in: buffer)
                replace(start..<end, with: [], in: buffer)
            }
            return end
        }
        if depth > 0 {
            closeOpenElements(depth, at: start, in: buffer)
        }
        close()
        if openEnds.isEmpty { state = .epilog }
        return end
    }

    /// Handles text in a CDATA section from `start`: its end, or the end tag of the element
    /// it is in, which ends a section that was never closed.
    /// Returns where to go on, and whether that is where the text must wait for the next chunk.
    private mutating func cdata(_ buffer: UnsafeRawBufferPointer, from start: Int, isFinal: Bool) -> (Int, held: Bool) {
        var index = start
        while true {
            index = ByteSearch.firstIndex(of: UInt8(ascii: "]"), or: UInt8(ascii: "<"), in: buffer, from: index)
            guard index < buffer.count else { return (buffer.count, false) }
            if buffer[index] == UInt8(ascii: "]") {
                guard index + 2 < buffer.count else { return isFinal ? (buffer.count, false) : (index, true) }
                if buffer[index + 1] == UInt8(ascii: "]"), buffer[index + 2] == UInt8(ascii: ">") {
                    state = .content
                    return (index + 3, false)
                }
            } else if let top = openEnds.indices.last {
                let name = openNames[openStart(top)...]
                let needed = index + 2 + name.count + 1
                guard needed <= buffer.count else { return isFinal ? (buffer.count, false) : (index, true) }
                if buffer[index + 1] == UInt8(ascii: "/"), buffer[(index + 2)..<(needed - 1)].elementsEqual(name),
                    buffer[needed - 1] == UInt8(ascii: ">") || Self.isWhitespace(buffer[needed - 1])
                {
                    fault(at: index, in: buffer)
                    replace(index..<index, with: Array("]]>".utf8), in: buffer)
                    state = .content
                    return (index, false)
                }
            }
            index += 1
        }
    }

    /// Keeps an unfinished tag for the next chunk, or passes a very long one on as it is.
    private mutating func holdOrPass(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard buffer.count - start > Self.maximumCarry else { return nil }
        state = .opaque(terminator: .tag, dropped: false, next: next)
        return start + 1
    }

    // MARK: - References

    /// Handles the `&` at `start`; returns where to go on, or nil when the chunk ends before
    /// it can tell.
    private mutating func reference(_ buffer: UnsafeRawBufferPointer, at start: Int, isFinal: Bool, inAttribute: Bool)
        -> Int?
    {
        switch MarkupReference.classify(buffer, at: start, isFinal: isFinal) {
        case .incomplete:
            return nil
        case .valid(let end, _) where inAttribute:
            return end
        case .html(let end, let scalar) where inAttribute:
            replace(start..<end, with: Array("&#\(scalar);".utf8), in: buffer)
            return end
        case .valid(let end, let scalar) where scalar < 0x20:
            endDecoding()
            return end
        case .valid(let end, let scalar), .html(let end, let scalar):
            if !isDecoding {
                replace(start..<start, with: Self.cdataStart, in: buffer)
                isDecoding = true
            }
            // A character XML allows: never a surrogate.
            let character = Unicode.Scalar(scalar)!
            if character == ">" {
                appendGreaterThan()
            } else {
                UTF8.encode(character) { output.append($0) }
            }
            copied = end
            return end
        case .forbiddenCharacter(let end):
            fault(at: start, in: buffer)
            replace(start..<end, with: [], in: buffer)
            return end
        case .bare:
            fault(at: start, in: buffer)
            if isDecoding {
                output.append(UInt8(ascii: "&"))
                copied = start + 1
            } else {
                replace(start..<(start + 1), with: Array("&amp;".utf8), in: buffer)
            }
            return start + 1
        }
    }

    /// Appends text to the CDATA section the repair opened.
    private mutating func appendDecoded(_ text: UnsafeRawBufferPointer) {
        var start = 0
        while true {
            let close = ByteSearch.firstIndex(of: UInt8(ascii: ">"), or: UInt8(ascii: ">"), in: text, from: start)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[start..<close]))
            guard close < text.count else { return }
            appendGreaterThan()
            start = close + 1
        }
    }

    /// Appends a `>` to the CDATA section the repair opened: after `]]` it would end the
    /// section, so the section ends between them and another begins.
    private mutating func appendGreaterThan() {
        if output.count >= 2, output[output.count - 1] == UInt8(ascii: "]"), output[output.count - 2] == UInt8(ascii: "]") {
            output.append(contentsOf: Self.cdataSplit)
        }
        output.append(UInt8(ascii: ">"))
    }

    /// Closes the CDATA section the repair opened, if any.
    private mutating func endDecoding() {
        guard isDecoding else { return }
        output.append(contentsOf: Self.cdataEnd)
        isDecoding = false
    }

    private static let cdataStart = Array("<![CDATA[".utf8)
    private static let cdataEnd = Array("]]>".utf8)
    private static let cdataSplit = Array("]]><![CDATA[".utf8)

    // MARK: - Open elements

    private func openStart(_ index: Int) -> Int {
        index == 0 ? 0 : openEnds[index - 1]
    }

    private mutating func open(_ name: UnsafeRawBufferPointer) {
        guard openEnds.count < Self.maximumDepth else { return }
        openNames.append(contentsOf: name)
        openEnds.append(openNames.count)
        if !openHasChildren.isEmpty { openHasChildren[openHasChildren.count - 1] = true }
        openHasChildren.append(false)
    }

    private mutating func close() {
        guard let end = openEnds.popLast() else { return }
        openHasChildren.removeLast()
        openNames.removeLast(end - openStart(openEnds.count))
    }

    /// How many elements are open inside the innermost open element called `name`; nil when
    /// none is.
    private func openDepth(of name: UnsafeRawBufferPointer) -> Int? {
        openNames.withUnsafeBytes { names in
            for (depth, index) in openEnds.indices.reversed().prefix(Self.matchedDepth).enumerated() {
                let start = openStart(index)
                if openEnds[index] - start == name.count, name.isEmpty || memcmp(names.baseAddress! + start, name.baseAddress!, name.count) == 0 {
                    return depth
                }
            }
            return nil
        }
    }

    // MARK: - Output

    /// Puts `replacement` in place of `range` of `buffer`.
    private mutating func replace(_ range: Range<Int>, with replacement: [UInt8], in buffer: UnsafeRawBufferPointer) {
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[copied..<range.lowerBound]))
        output.append(contentsOf: replacement)
        copied = range.upperBound
        isRepaired = true
    }

    /// Records a fault at `offset` of `buffer` when it is the first.
    private mutating func fault(at offset: Int, in buffer: UnsafeRawBufferPointer) {
        guard firstFaultLine == nil else { return }
        firstFaultLine = line + ByteSearch.newlines(in: UnsafeRawBufferPointer(rebasing: buffer[..<min(offset, buffer.count)]))
    }

    // MARK: - Bytes

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), 0x80...:
            true
        default: false
        }
    }

    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }
}
