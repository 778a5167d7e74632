import Glibc

/// Sits between the caller's bytes and libxml2 and makes sure libxml2 reads the text the
/// publisher meant.
///
/// It holds back the start of the document until it knows the encoding (from a byte order mark
/// or the XML declaration), dropping whitespace before the declaration (a WordPress fault), then:
/// - UTF-8 (declared, or by default): passes valid UTF-8 through and reads each byte that is not
///   part of a valid sequence as Windows-1252, the usual mistake of feeds that paste text from
///   elsewhere. Sequences cut by a chunk boundary are carried over to the next chunk.
/// - ISO-8859-1, Windows-1252, ISO-8859-15: the same, with the declared encoding for the bytes
///   that are not UTF-8 (ISO-8859-1 read as Windows-1252, as browsers do, since its C1 controls
///   are never meant). So a feed that declares Latin-1 but is UTF-8, a common fault, reads
///   right, while real Latin-1 text is practically never valid UTF-8 (`é ` is not).
/// - UTF-32 (by its byte order mark): converts to UTF-8 itself, as libxml2's push parser cannot.
/// - UTF-16 (by its byte order mark or its first `<`) and any other declared encoding glibc's
///   iconv knows (EUC-JP, Shift_JIS, GB18030, KOI8-R…): converts to UTF-8 with iconv, each byte
///   that cannot be decoded (or that iconv passes on without decoding) becoming U+FFFD, so that
///   one bad byte costs one character (libxml2 stops reading at it, and prints to stderr).
/// - anything else (encodings iconv does not know): passes the bytes to libxml2 unchanged.
///
/// In what it converts or checks, it drops the C0 control characters that XML 1.0 forbids (all
/// but tab, line feed and carriage return): text pasted into feeds carries them, and libxml2
/// would stop at the first one.
struct FeedInputFilter {
    /// What libxml2 is given.
    enum Output: Equatable {
        /// UTF-8 checked or produced here: libxml2 must ignore the declared encoding.
        case utf8
        /// The document as sent: libxml2 detects and converts the encoding.
        case asSent
    }

    private enum Mode {
        case sniffing
        /// UTF-8, with `fallback` for the bytes that are not; they are faults unless the
        /// document declares that encoding.
        case utf8(fallback: SingleByteEncoding, isDeclared: Bool)
        /// UTF-8 with Windows-1252 for the bytes that are not: what undeclared documents get.
        static var utf8: Mode { .utf8(fallback: .windows1252, isDeclared: false) }
        case utf32(bigEndian: Bool)
        /// A declared encoding, decoded with iconv.
        case decoded(IconvDecoder)
        case asSent
    }

    /// Receives what libxml2 should read, how, and the offset in it of the first byte the
    /// filter had to repair (a byte invalid in the encoding or a forbidden control character).
    typealias Emit = (UnsafeRawBufferPointer, Output, _ fault: Int?) throws -> Void

    private var mode = Mode.sniffing
    /// Where the first repair in `converted` is.
    private var convertedFault: Int?
    /// The start of the document, held while sniffing.
    private var head: [UInt8] = []
    /// The start of a UTF-8 sequence or UTF-32 code unit that the end of the previous chunk
    /// cut off (1 to 3 bytes).
    private var carry: [UInt8] = []
    /// Reused for converted bytes.
    private var converted: [UInt8] = []

    /// The first bytes of the document after any byte order mark and whitespace (up to 64),
    /// to describe documents that are not feeds.
    private(set) var leadingBytes: [UInt8] = []
    /// Whether the document so far holds only whitespace (or nothing).
    var isBlank: Bool { leadingBytes.isEmpty }

    /// Takes the next chunk (`isFinal` for the end of the document, possibly with an empty
    /// chunk) and hands what libxml2 should read to `emit`.
    mutating func process(
        _ chunk: UnsafeRawBufferPointer,
        isFinal: Bool,
        emit: Emit
    ) throws {
        guard case .sniffing = mode else {
            if leadingBytes.count < 64 {
                leadingBytes += chunk.prefix(64 - leadingBytes.count)
            }
            try pass(chunk, isFinal: isFinal, emit: emit)
            return
        }
        if head.isEmpty {
            if try !begin(chunk, isFinal: isFinal, emit: emit) {
                head.append(contentsOf: chunk)
            }
        } else {
            head.append(contentsOf: chunk)
            let held = head
            if try held.withUnsafeBytes({ try begin($0, isFinal: isFinal, emit: emit) }) {
                head = []
            }
        }
    }

    /// Settles the encoding from the start of the document and passes `bytes` on; returns
    /// false, consuming nothing, while more bytes are needed to tell.
    private mutating func begin(
        _ bytes: UnsafeRawBufferPointer,
        isFinal: Bool,
        emit: Emit
    ) throws -> Bool {
        guard let decided = Self.sniff(bytes, isFinal: isFinal) else { return false }
        mode = decided.mode
        let content = UnsafeRawBufferPointer(rebasing: bytes[decided.start...])
        leadingBytes = Array(content.prefix(64))
        try pass(content, isFinal: isFinal, emit: emit)
        return true
    }

    private mutating func pass(
        _ bytes: UnsafeRawBufferPointer,
        isFinal: Bool,
        emit: Emit
    ) throws {
        switch mode {
        case .sniffing:
            preconditionFailure("pass(_:) before the encoding is known")
        case .asSent:
            try emit(bytes, .asSent, nil)
        case .utf8(let fallback, let isDeclared):
            try repairUTF8(bytes, fallback: fallback, isDeclared: isDeclared, isFinal: isFinal, emit: emit)
        case .utf32(let bigEndian):
            let units = carry + bytes
            let whole = units.count - units.count % 4
            converted.removeAll(keepingCapacity: true)
            for start in stride(from: 0, to: whole, by: 4) {
                let value = units[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
                let scalar = Unicode.Scalar(bigEndian ? value : value.byteSwapped)
                if scalar == nil || scalar!.isASCII && UTF8Sequence.isForbiddenControl(UInt8(scalar!.value)) {
                    noteFault()
                }
                guard let scalar else {
                    converted.append(contentsOf: Unicode.Scalar(0xFFFD)!.utf8)
                    continue
                }
                if scalar.isASCII && UTF8Sequence.isForbiddenControl(UInt8(scalar.value)) { continue }
                converted.append(contentsOf: scalar.utf8)
            }
            carry = Array(units[whole...])
            try emitConverted(emit)
        case .decoded(let decoder):
            converted.removeAll(keepingCapacity: true)
            if carry.isEmpty {
                try decode(bytes, with: decoder, isFinal: isFinal, emit: emit)
            } else {
                let joined = carry + bytes
                carry = []
                try joined.withUnsafeBytes { try decode($0, with: decoder, isFinal: isFinal, emit: emit) }
            }
        }
    }

    // MARK: - Other declared encodings

    /// Decodes `bytes` to UTF-8 with `decoder`: a byte that cannot be decoded becomes U+FFFD,
    /// the forbidden control characters are dropped, and a sequence the chunk cuts off waits
    /// in `carry` for the next one.
    private mutating func decode(
        _ bytes: UnsafeRawBufferPointer, with decoder: IconvDecoder, isFinal: Bool, emit: Emit
    ) throws {
        var start = 0
        while start < bytes.count {
            let step = decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start...]))
            appendDecoded(step.output)
            start += step.consumed
            switch step.stop {
            case .end:
                break
            case .invalid:
                noteFault()
                converted.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
                start = min(bytes.count, start + decoder.unitSize)
            case .incomplete where !isFinal:
                carry = Array(bytes[start...])
                start = bytes.count
            case .incomplete:
                noteFault()
                converted.append(contentsOf: [0xEF, 0xBF, 0xBD])
                start = bytes.count
            }
        }
        if !converted.isEmpty || convertedFault != nil {
            try emitConverted(emit)
        }
    }

    /// Appends what iconv produced, which glibc does not promise is UTF-8: it passes five- and
    /// six-byte sequences through (from ISO-IR-193, a name of UTF-8, or from UCS-4 past
    /// U+10FFFF). Each byte that starts no valid sequence becomes U+FFFD, and the forbidden
    /// control characters are dropped.
    private mutating func appendDecoded(_ output: ArraySlice<UInt8>) {
        output.withUnsafeBytes { output in
            var index = 0
            while index < output.count {
                let valid = UTF8Sequence.firstProblem(in: UnsafeRawBufferPointer(rebasing: output[index...]))
                converted.append(contentsOf: UnsafeRawBufferPointer(rebasing: output[index..<(index + valid)]))
                index += valid
                guard index < output.count else { return }
                noteFault()
                if !UTF8Sequence.isForbiddenControl(output[index]) {
                    converted.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
                }
                index += 1
            }
        }
    }

    // MARK: - UTF-8 repair

    private mutating func repairUTF8(
        _ bytes: UnsafeRawBufferPointer,
        fallback: SingleByteEncoding,
        isDeclared: Bool,
        isFinal: Bool,
        emit: Emit
    ) throws {
        converted.removeAll(keepingCapacity: true)
        var start = 0
        // Finish the sequence the last chunk cut off.
        while !carry.isEmpty, start < bytes.count || isFinal {
            let taken = min(3, bytes.count - start)
            let joined = carry + bytes[start..<(start + taken)]
            switch UTF8Sequence.classify(joined, at: 0) {
            case .valid(let length):
                converted.append(contentsOf: joined[0..<length])
                start += length - carry.count
                carry = []
            case .invalid:
                if !isDeclared { noteFault() }
                fallback.appendUTF8(of: carry.removeFirst(), to: &converted)
            case .incomplete where !isFinal:
                carry = joined  // this chunk ends before the sequence does
                start = bytes.count
            case .incomplete:
                if !isDeclared { noteFault() }
                fallback.appendUTF8(of: carry.removeFirst(), to: &converted)
            }
        }
        if !converted.isEmpty || convertedFault != nil {
            try emitConverted(emit)
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
        var index = UTF8Sequence.firstProblem(in: rest)
        if index > 0 {
            try emit(UnsafeRawBufferPointer(rebasing: rest[..<index]), .utf8, nil)  // valid: passed on, not copied
        }
        while index < rest.count {
            if UTF8Sequence.isForbiddenControl(rest[index]) {
                noteFault()
                index += 1
                continue
            }
            switch UTF8Sequence.classify(rest, at: index) {
            case .valid(let length):
                converted.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[index..<(index + length)]))
                index += length
            case .incomplete where !isFinal:
                carry = Array(rest[index...])
                index = rest.count
            case .invalid, .incomplete:
                if !isDeclared { noteFault() }
                fallback.appendUTF8(of: rest[index], to: &converted)
                index += 1
            }
        }
        if !converted.isEmpty || convertedFault != nil {
            try emitConverted(emit)
        }
    }

    /// Notes a repair at the current end of `converted`.
    private mutating func noteFault() {
        if convertedFault == nil { convertedFault = converted.count }
    }

    /// Hands `converted` on, with its first repair, and empties it.
    private mutating func emitConverted(_ emit: Emit) throws {
        let fault = convertedFault
        convertedFault = nil
        try converted.withUnsafeBytes { try emit($0, .utf8, fault) }
        converted.removeAll(keepingCapacity: true)
    }

    // MARK: - Sniffing

    /// The mode for a document starting with `head`, and where its content starts; nil while
    /// more bytes are needed to tell.
    private static func sniff(_ head: UnsafeRawBufferPointer, isFinal: Bool) -> (mode: Mode, start: Int)? {
        if head.count < 4 && !isFinal { return nil }
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32(bigEndian: true), 4) }
        if head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32(bigEndian: false), 4) }
        if head.starts(with: [0xFE, 0xFF]) { return (utf16(bigEndian: true), 2) }
        if head.starts(with: [0xFF, 0xFE]) { return (utf16(bigEndian: false), 2) }
        if head.starts(with: [0x00, 0x3C]) { return (utf16(bigEndian: true), 0) }  // UTF-16 without a mark
        if head.starts(with: [0x3C, 0x00]) { return (utf16(bigEndian: false), 0) }
        let hasByteOrderMark = head.starts(with: [0xEF, 0xBB, 0xBF])
        var start = hasByteOrderMark ? 3 : 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) {
            start += 1
        }
        let declarationStart: [UInt8] = Array("<?xml".utf8)
        let available = head.count - start
        if available < declarationStart.count && !isFinal { return nil }
        // A UTF-8 byte order mark outranks the declaration.
        guard !hasByteOrderMark, head[start...].starts(with: declarationStart) else { return (.utf8, start) }
        // Wait for the whole declaration (it is short; give up on it after 1 KiB).
        guard let end = head[start...].firstIndex(of: 0x3E) else {
            return isFinal || available > 1024 ? (.utf8, start) : nil
        }
        let declaration = String(decoding: head[start..<end], as: UTF8.self).lowercased()
        return (mode(forDeclaration: declaration), start)
    }

    private static func utf16(bigEndian: Bool) -> Mode {
        IconvDecoder(encoding: bigEndian ? "UTF-16BE" : "UTF-16LE", unitSize: 2).map { .decoded($0) } ?? .asSent
    }

    private static func mode(forDeclaration declaration: String) -> Mode {
        guard let range = declaration.range(of: "encoding") else { return .utf8 }
        let value = declaration[range.upperBound...]
            .drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" || $0 == "\t" }
            .prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != "?" }
        switch value {
        case "utf-8", "utf8", "us-ascii", "ascii":
            return .utf8
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "windows-1252", "cp1252":
            return .utf8(fallback: .windows1252, isDeclared: true)
        case "iso-8859-15", "iso8859-15", "latin-9", "latin9":
            return .utf8(fallback: .iso8859_15, isDeclared: true)
        case let name where name.hasPrefix("utf-16") || name.hasPrefix("utf-32") || name.hasPrefix("ucs"):
            return .asSent
        default:
            return IconvDecoder(encoding: String(value)).map { .decoded($0) } ?? .asSent
        }
    }
}

/// One of glibc's iconv converters, from a declared encoding to UTF-8.
final class IconvDecoder {
    /// Why a ``decode(_:)`` stopped.
    enum Stop {
        /// Every byte was decoded.
        case end
        /// The byte at `consumed` cannot be decoded.
        case invalid
        /// The bytes from `consumed` on start a sequence that they do not complete.
        case incomplete
    }

    private let descriptor: iconv_t
    /// The bytes a character is made of at least (2 for UTF-16): what one that cannot be
    /// decoded costs, so that the rest stays aligned.
    let unitSize: Int
    /// The UTF-8 of the last ``decode(_:)``.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// A converter from `encoding`, or nil when iconv does not know it.
    init?(encoding: String, unitSize: Int = 1) {
        guard let descriptor = iconv_open("UTF-8", encoding), Int(bitPattern: descriptor) != -1 else { return nil }
        self.descriptor = descriptor
        self.unitSize = unitSize
    }

    deinit {
        iconv_close(descriptor)
    }

    /// Decodes the start of `input`, up to 64 KiB of UTF-8 at a time: returns the UTF-8,
    /// how many bytes of `input` it stands for, and why it stopped there.
    func decode(_ input: UnsafeRawBufferPointer) -> (output: ArraySlice<UInt8>, consumed: Int, stop: Stop) {
        guard let base = input.baseAddress, !input.isEmpty else { return ([], 0, .end) }
        var source = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: CChar.self))
        var sourceLeft = input.count
        let (produced, failure) = buffer.withUnsafeMutableBytes { output in
            var target: UnsafeMutablePointer<CChar>? = output.baseAddress!.assumingMemoryBound(to: CChar.self)
            var targetLeft = output.count
            var from: UnsafeMutablePointer<CChar>? = source
            let result = iconv(descriptor, &from, &sourceLeft, &target, &targetLeft)
            source = from!
            return (output.count - targetLeft, result == -1 ? errno : 0)
        }
        let consumed = input.count - sourceLeft
        let stop: Stop
        switch failure {
        case EILSEQ: stop = .invalid
        case EINVAL: stop = .incomplete
        default: stop = .end  // done, or the output is full (E2BIG): the caller goes on
        }
        return (buffer[..<produced], consumed, stop)
    }
}

/// The single-byte encodings the filter reads the bytes that are not UTF-8 in.
enum SingleByteEncoding {
    case windows1252
    case iso8859_15

    /// Appends the UTF-8 of the character `byte` stands for.
    func appendUTF8(of byte: UInt8, to output: inout [UInt8]) {
        let scalar: UInt32
        switch self {
        case .windows1252 where (0x80...0x9F).contains(byte):
            scalar = Self.windows1252C1[Int(byte - 0x80)]
        case .iso8859_15:
            scalar = Self.iso8859_15Differences[byte] ?? UInt32(byte)
        default:
            scalar = UInt32(byte)
        }
        output.append(contentsOf: Unicode.Scalar(scalar)!.utf8)
    }

    /// What Windows-1252 puts at 0x80...0x9F; its five unassigned bytes stay C1 controls.
    private static let windows1252C1: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// Where ISO-8859-15 differs from ISO-8859-1.
    private static let iso8859_15Differences: [UInt8: UInt32] = [
        0xA4: 0x20AC, 0xA6: 0x0160, 0xA8: 0x0161, 0xB4: 0x017D,
        0xB8: 0x017E, 0xBC: 0x0152, 0xBD: 0x0153, 0xBE: 0x0178,
    ]
}

/// Checks UTF-8 the way the Unicode standard defines well-formed sequences (table 3-7).
enum UTF8Sequence {
    enum Kind: Equatable {
        case valid(length: Int)
        case invalid
        /// A valid start of a sequence that the buffer ends before completing.
        case incomplete
    }

    /// What the bytes at `index` are.
    static func classify<Bytes: RandomAccessCollection>(_ bytes: Bytes, at index: Int) -> Kind
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return .valid(length: 1)
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return .invalid
        }
        for offset in 1..<length {
            guard index + offset < bytes.endIndex else { return .incomplete }
            let byte = bytes[index + offset]
            guard (offset == 1 ? secondRange : 0x80...0xBF).contains(byte) else { return .invalid }
        }
        return .valid(length: length)
    }

    /// Whether XML 1.0 forbids the byte as a character: the C0 controls but tab, line feed and
    /// carriage return.
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
    }

    /// The index of the first byte that does not start a complete, valid sequence or is a
    /// forbidden control character, or the count when every byte is fine. Skips printable
    /// ASCII eight bytes at a time, then takes byte by byte, with the common two- and
    /// three-byte sequences inline, what needs a look, up to the next printable ASCII byte.
    /// (In feeds, where a line feed or a letter beyond ASCII comes every few dozen bytes, this
    /// is faster than going back to the words after each such byte, or than words of 16 or 32
    /// bytes; figures in `Benchmarks/README.md`.)
    static func firstProblem(in bytes: UnsafeRawBufferPointer) -> Int {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return 0 }
        var index = 0
        while index < count {
            while index + 8 <= count {
                let flagged = needsLook(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                guard flagged == 0 else {
                    index += flagged.trailingZeroBitCount / 8
                    break
                }
                index += 8
            }
            while index < count {
                let lead = base.load(fromByteOffset: index, as: UInt8.self)
                if lead < 0x80 {
                    if lead >= 0x20, index + 8 <= count { break }
                    guard !isForbiddenControl(lead) else { return index }
                    index += 1
                } else if (0xC2...0xDF).contains(lead), index + 1 < count,
                    base.load(fromByteOffset: index + 1, as: UInt8.self) & 0xC0 == 0x80
                {
                    index += 2
                } else if (0xE1...0xEC).contains(lead), index + 2 < count,
                    base.load(fromByteOffset: index + 1, as: UInt8.self) & 0xC0 == 0x80,
                    base.load(fromByteOffset: index + 2, as: UInt8.self) & 0xC0 == 0x80
                {
                    index += 3
                } else if case .valid(let length) = classify(bytes, at: index) {
                    index += length
                } else {
                    return index
                }
            }
        }
        return index
    }

    /// The word of eight bytes with the high bit set in each byte at or above 0x80 or below
    /// 0x20 (loads are little-endian; the subtraction's borrows can flag only bytes after the
    /// first one that is).
    private static func needsLook(_ word: UInt64) -> UInt64 {
        let word = UInt64(littleEndian: word)
        return (word | (word &- 0x2020_2020_2020_2020) & ~word) & 0x8080_8080_8080_8080
    }
}
