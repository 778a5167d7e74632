/// Searches of raw bytes eight at a time, for the readers of markup: the feed's repair looks
/// for the next byte that matters, the parser counts lines for its messages.
enum ByteSearch {
    /// The index of `pattern` in `buffer` from `start` on, or nil.
    static func find(_ pattern: [UInt8], in buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while true {
            index = firstIndex(of: pattern[0], or: pattern[0], in: buffer, from: index)
            guard index + pattern.count <= buffer.count else { return nil }
            if buffer[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
    }

    /// The index of the first `a` or `b` in `buffer` from `start` on, or its count.
    static func firstIndex(of a: UInt8, or b: UInt8, in buffer: UnsafeRawBufferPointer, from start: Int) -> Int {
        firstIndex(of: a, b, b, in: buffer, from: start)
    }

    /// The index of the first `a`, `b`, `c` or byte below `limit` (at most 0x80; 0 for none)
    /// in `buffer` from `start` on, or its count; eight bytes at a time.
    @inline(__always)
    static func firstIndex(
        of a: UInt8, _ b: UInt8, _ c: UInt8, orBelow limit: UInt8 = 0, in buffer: UnsafeRawBufferPointer, from start: Int
    ) -> Int {
        let count = buffer.count
        var index = start
        let lows = UInt64(0x0101_0101_0101_0101)
        let highs = UInt64(0x8080_8080_8080_8080)
        let patternA = lows &* UInt64(a)
        let patternB = lows &* UInt64(b)
        let patternC = lows &* UInt64(c)
        let limits = lows &* UInt64(limit)
        while index + 8 <= count {
            let word = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let xa = word ^ patternA
            let xb = word ^ patternB
            let xc = word ^ patternC
            // A zero byte, or one below the limit, flags a match; borrows can flag only bytes
            // after the first match.
            let flagged = ((xa &- lows) & ~xa | (xb &- lows) & ~xb | (xc &- lows) & ~xc | (word &- limits) & ~word) & highs
            if flagged != 0 { return index + flagged.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < count, buffer[index] != a, buffer[index] != b, buffer[index] != c, buffer[index] >= limit {
            index += 1
        }
        return index
    }

    /// The number of line feeds in `bytes`, eight bytes at a time.
    static func newlines(in bytes: UnsafeRawBufferPointer) -> Int {
        var total = 0
        var index = 0
        let sevens = UInt64(0x7F7F_7F7F_7F7F_7F7F)
        let newlines = UInt64(0x0101_0101_0101_0101) &* 0x0A
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ newlines
            // Exactly the zero bytes: their high bit stays clear.
            let nonzero = ((word & sevens) &+ sevens) | word
            total += (~nonzero & ~sevens).nonzeroBitCount
            index += 8
        }
        while index < bytes.count {
            if bytes[index] == 0x0A { total += 1 }
            index += 1
        }
        return total
    }
}
