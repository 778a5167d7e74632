/// What `find` looks for, read from the words a person typed and turned into an FTS5 query in
/// which every word is a quoted string: nothing typed reaches SQLite's query syntax as syntax.
///
/// The rules: words in any order, all of them (`AND`); `"a phrase"` in double quotes; `word*`
/// as a prefix; `OR` between two words or phrases, either of them (`a b OR c` is `a` and
/// either `b` or `c`). Case and accents are the tokenizer's to ignore. A word with no letter
/// or digit (`&`, `-`) says nothing and is left out.
public struct FindQuery: Equatable, Sendable {
    /// The text typed, the words joined by spaces.
    public let text: String
    /// The FTS5 expression, of quoted strings, `*`, `AND`, `OR` and parentheses only.
    let expression: String

    /// Why a query cannot be run, as a value (the executable words it).
    public enum Problem: Equatable, Sendable {
        /// A `"` that no other closes.
        case unbalancedQuote
        /// `OR` with no word on one side.
        case loneOR
        /// No word with a letter or digit.
        case nothingToFind
    }

    /// A query that cannot be run: the text typed and what is wrong with it.
    public struct Invalid: Error, Equatable, Sendable {
        public var query: String
        public var problem: Problem
    }

    /// Reads `words` (a command line's arguments, or one string with spaces).
    public init(_ words: [String]) throws(Invalid) {
        let text = words.joined(separator: " ")
        self.text = text
        let terms = try Self.terms(text)
        // Groups of alternatives (`a OR b`), all of which must match.
        var groups: [[String]] = []
        var pendingOR = false
        for term in terms {
            switch term {
            case .or:
                guard !groups.isEmpty, !pendingOR else { throw Invalid(query: text, problem: .loneOR) }
                pendingOR = true
            case .string(let string):
                if pendingOR {
                    groups[groups.count - 1].append(string)
                    pendingOR = false
                } else {
                    groups.append([string])
                }
            }
        }
        if pendingOR { throw Invalid(query: text, problem: .loneOR) }
        guard !groups.isEmpty else { throw Invalid(query: text, problem: .nothingToFind) }
        expression = groups.map { $0.count == 1 ? $0[0] : "(" + $0.joined(separator: " OR ") + ")" }
            .joined(separator: " AND ")
    }

    private enum Term {
        case or
        /// An FTS5 string: a quoted word or phrase, with `*` after it for a prefix.
        case string(String)
    }

    /// The terms of `text`: phrases, words, prefixes and `OR`s; words that say nothing left out.
    private static func terms(_ text: String) throws(Invalid) -> [Term] {
        var terms: [Term] = []
        var word = ""
        var phrase: String?
        func endWord() {
            defer { word = "" }
            if word == "OR" {
                terms.append(.or)
                return
            }
            var body = Substring(word)
            let isPrefix = body.hasSuffix("*")
            while body.hasSuffix("*") { body = body.dropLast() }
            guard body.contains(where: { $0.isLetter || $0.isNumber }) else { return }
            terms.append(.string(quoted(body) + (isPrefix ? "*" : "")))
        }
        for character in text {
            if var open = phrase {
                if character == "\"" {
                    if open.contains(where: { $0.isLetter || $0.isNumber }) { terms.append(.string(quoted(Substring(open)))) }
                    phrase = nil
                } else {
                    open.append(character)
                    phrase = open
                }
            } else if character == "\"" {
                endWord()
                phrase = ""
            } else if character.isWhitespace {
                endWord()
            } else {
                word.append(character)
            }
        }
        if phrase != nil { throw Invalid(query: text, problem: .unbalancedQuote) }
        endWord()
        return terms
    }

    /// `text` as an FTS5 string: in double quotes, each of its own doubled.
    private static func quoted(_ text: Substring) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
