import Testing

@testable import SinglecastKit

@Suite struct NearestNameTests {
    static let commands = ["search", "episodes", "download", "downloads", "played", "unplayed", "play", "podcasts"]

    @Test(arguments: [
        ("downlaod", "download"),  // two letters swapped
        ("dowload", "download"),
        ("episode", "episodes"),
        ("Serch", "search"),
        ("plya", "play"),
    ])
    func aCloseMistakeFindsItsName(typed: String, meant: String) {
        #expect(NearestName.find(typed, in: Self.commands) == meant)
    }

    @Test(arguments: ["foo", "x", "download", "synchronise", ""])
    func nothingCloseOrExactFindsNothing(typed: String) {
        #expect(NearestName.find(typed, in: Self.commands) == nil)
    }

    @Test func distancesCountSwapsAsOneEdit() {
        #expect(NearestName.editDistance(Array("ab"), Array("ba")) == 1)
        #expect(NearestName.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(NearestName.editDistance(Array(""), Array("abc")) == 3)
    }
}
