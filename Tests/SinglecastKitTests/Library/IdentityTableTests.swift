import Testing

@testable import SinglecastKit

@Suite struct IdentityTableTests {
    @Test func anIdentityIsHeldOnceWithItsFirstValue() {
        var table = IdentityTable<Int>()
        let inserted = [
            table.insert("urn:uuid:1", 1), table.insert("urn:uuid:1", 2), table.insert("urn:uuid:10", 3),
        ]
        #expect(inserted == [true, false, true])
        #expect(table.count == 2)
        let taken = [table.take("urn:uuid:1"), table.take("urn:uuid:1"), table.take("urn:uuid:2")]
        #expect(taken == [1, nil, nil])
        // A taken identity is still held: it is not inserted again.
        let insertedAgain = table.insert("urn:uuid:1", 4)
        #expect(!insertedAgain)
        #expect(table.remaining.map(\.identity) == ["urn:uuid:10"])
        #expect(table.remaining.map(\.value) == [3])
    }

    /// Identities are told apart by their bytes, as the database's unique index tells them
    /// apart: `é` written as one character and as `e` with an accent are two identities, though
    /// Swift's `String` calls them equal.
    @Test func identitiesAreToldApartByTheirBytes() {
        var table = IdentityTable<Int>()
        let inserted = [
            table.insert("caf\u{E9}", 1), table.insert("cafe\u{301}", 2), table.insert("", 3), table.insert("", 4),
        ]
        #expect(inserted == [true, true, true, false])
        let taken = [table.take("cafe\u{301}"), table.take("caf\u{E9}"), table.take("")]
        #expect(taken == [2, 1, 3])
    }

    /// Thousands of identities, some sharing long prefixes, inserted past every growth of the
    /// table, with room made ahead for the first hundred only.
    @Test func manyIdentitiesAreEachFoundAfterTheTableGrows() {
        var table = IdentityTable<Int>()
        table.reserveCapacity(100)
        let identities = (0..<5_000).map { "https://example.com/episodes/\($0)" }
        let inserted = identities.indices.map { table.insert(identities[$0], $0) }
        #expect(inserted.allSatisfy { $0 })
        #expect(table.count == identities.count)
        let insertedAgain = identities.map { table.insert($0, -1) }
        #expect(insertedAgain.allSatisfy { !$0 })
        let taken = stride(from: 0, to: 5_000, by: 2).map { table.take(identities[$0]) }
        #expect(taken == Array(stride(from: 0, to: 5_000, by: 2)))
        #expect(table.remaining.map(\.value) == Array(stride(from: 1, to: 5_000, by: 2)))
    }
}
