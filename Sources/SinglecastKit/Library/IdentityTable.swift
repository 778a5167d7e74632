import Glibc

/// Episode identities with a value each, told apart by their bytes as the database's unique
/// index tells them apart (a `String` compares its characters' normalized form, which costs
/// more and answers another question), all in one buffer: a save keeps the identities of every
/// item of a feed, and 20,000 strings held until its end were then released one by one while
/// the listing waited.
struct IdentityTable<Value> {
    fileprivate struct Entry {
        let start: Int
        let count: Int
        let hash: Int
        /// Nil once taken.
        var value: Value?
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    /// Open addressing over `entries`: an entry's index plus one, or 0 for an empty slot.
    private var slots = [Int32](repeating: 0, count: 16)

    /// How many identities it holds, taken or not.
    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// Makes room for `count` identities in all without growing again.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        if slots.count < count * 2 { rehash(slotCount: Self.slotCount(for: count)) }
    }

    /// Adds `identity` with `value`; false, changing nothing, when it is there already (taken
    /// or not).
    @discardableResult
    mutating func insert(_ identity: String, _ value: Value) -> Bool {
        var identity = identity
        return identity.withUTF8 { text in
            let hash = Self.hash(text)
            let slot = slot(of: text, hash: hash)
            guard slots[slot] == 0 else { return false }
            entries.append(Entry(start: bytes.count, count: text.count, hash: hash, value: value))
            bytes.append(contentsOf: text)
            slots[slot] = Int32(entries.count)
            if entries.count * 2 > slots.count { rehash(slotCount: slots.count * 2) }
            return true
        }
    }

    /// The value of `identity`, which it no longer holds afterwards; nil when it has none.
    mutating func take(_ identity: String) -> Value? {
        guard !entries.isEmpty else { return nil }
        var identity = identity
        let index = identity.withUTF8 { text in Int(slots[slot(of: text, hash: Self.hash(text))]) - 1 }
        guard index >= 0 else { return nil }
        defer { entries[index].value = nil }
        return entries[index].value
    }

    /// The identities not taken, with their values, in the order they were inserted.
    var remaining: [(identity: String, value: Value)] {
        entries.compactMap { entry in
            entry.value.map { (String(decoding: bytes[entry.start..<(entry.start + entry.count)], as: UTF8.self), $0) }
        }
    }

    /// The slot that holds `text`, or the empty one where it would go.
    private func slot(of text: UnsafeBufferPointer<UInt8>, hash: Int) -> Int {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let entry = entries[Int(slots[slot]) - 1]
            if entry.hash == hash && entry.count == text.count && bytes.withUnsafeBufferPointer({ all in
                text.isEmpty || memcmp(all.baseAddress! + entry.start, text.baseAddress!, text.count) == 0
            }) {
                return slot
            }
            slot = (slot + 1) & mask
        }
        return slot
    }

    private mutating func rehash(slotCount: Int) {
        slots = [Int32](repeating: 0, count: slotCount)
        let mask = slotCount - 1
        for (index, entry) in entries.enumerated() {
            var slot = entry.hash & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }

    private static func slotCount(for count: Int) -> Int {
        var slotCount = 16
        while slotCount < count * 2 { slotCount *= 2 }
        return slotCount
    }

    /// Seeded per process, as `Hashable`'s hashes are: a feed cannot choose identities that
    /// all land in one run of slots.
    private static func hash(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(text))
        return hasher.finalize()
    }
}

extension IdentityTable: Sendable where Value: Sendable {}
extension IdentityTable.Entry: Sendable where Value: Sendable {}
