import Testing

@testable import SinglecastKit

/// How the words typed become an FTS5 query: every word a quoted string, so that nothing typed
/// is syntax to SQLite.
@Suite struct FindQueryTests {
    @Test(arguments: [
        (["sqlite", "wal"], #""sqlite" AND "wal""#),
        (["\"write-ahead log\""], #""write-ahead log""#),
        (["\"write-ahead", "log\"", "sqlite"], #""write-ahead log" AND "sqlite""#),
        (["check*"], #""check"*"#),
        (["a", "b", "OR", "c"], #""a" AND ("b" OR "c")"#),
        (["a OR \"b c\" OR d*"], #"("a" OR "b c" OR "d"*)"#),
        (["or", "and", "NOT", "NEAR(a"], #""or" AND "and" AND "NOT" AND "NEAR(a""#),
        (["Café", "&", "-", "日本語"], #""Café" AND "日本語""#),
        (["x\"\"y"], #""x" AND "y""#),
    ])
    func expressions(words: [String], expression: String) throws {
        #expect(try FindQuery(words).expression == expression)
    }

    @Test(arguments: [
        (["\"write-ahead", "log"], FindQuery.Problem.unbalancedQuote),
        (["wal\""], .unbalancedQuote),
        (["OR"], .loneOR),
        (["OR", "wal"], .loneOR),
        (["wal", "OR"], .loneOR),
        (["wal", "OR", "OR", "sqlite"], .loneOR),
        (["&", "\"\""], .nothingToFind),
        ([], .nothingToFind),
    ])
    func problems(words: [String], problem: FindQuery.Problem) {
        #expect(throws: FindQuery.Invalid(query: words.joined(separator: " "), problem: problem)) { try FindQuery(words) }
    }
}
