import Foundation
import GRDB

/// Finds what matched in the few episodes a search shows: each one's text is indexed again in
/// a small in-memory FTS5 table with the same tokenizer and matched with the same query, so
/// that SQLite, which decided the match, also marks the words and picks the snippet. It runs
/// off the library's connections (the index itself stores no text to highlight).
enum FindHighlighter {
    /// Where a result matched, its snippet and, in a timed transcript, the moment.
    struct Highlight: Sendable {
        var place: FindPlace
        var snippet: FindSnippet
        var at: Double?
    }

    /// How many words a snippet holds at most.
    static let snippetWords = 16

    private static let open = "\u{1}"
    private static let close = "\u{2}"

    /// The highlight of each hit, in order. Blocks while it reads transcripts: call it off the pool.
    static func highlight(_ hits: [FindIndex.Hit], expression: String) throws -> [Highlight] {
        guard !hits.isEmpty else { return [] }
        let documents = hits.map(Document.init)
        let database = try DatabaseQueue()
        return try database.write { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE shown USING fts5(
                      title, notes, transcript, tokenize='unicode61 remove_diacritics 2')
                    """)
            let insert = try db.makeStatement(sql: "INSERT INTO shown (rowid, title, notes, transcript) VALUES (?, ?, ?, ?)")
            for (index, document) in documents.enumerated() {
                try insert.execute(arguments: [index, document.title, document.notes, document.transcript])
            }
            var marked: [Int: Row] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT rowid, highlight(shown, 0, ?1, ?2), snippet(shown, 1, ?1, ?2, '…', ?3),
                      highlight(shown, 2, ?1, ?2), snippet(shown, 2, ?1, ?2, '…', ?3)
                    FROM shown WHERE shown MATCH ?4
                    """,
                arguments: [open, close, snippetWords, expression])
            while let row = try rows.next() { marked[row[0]] = row.copy() }
            return documents.enumerated().map { index, document in document.highlight(marked[index]) }
        }
    }

    /// A hit's text as matched again: its title and notes, or the run of transcript cues.
    private struct Document {
        var title: String?
        var notes: String?
        var transcript: String?
        /// The run's cues, and where each begins in `transcript` (in Unicode scalars).
        var cues: [(start: Double?, offset: Int)] = []
        /// The run's start as the index has it, for a transcript that cannot be read again.
        var start: Double?

        init(_ hit: FindIndex.Hit) {
            guard let transcript = hit.transcript, let firstCue = hit.firstCue else {
                title = Self.clean(hit.entry.episode.title)
                notes = Self.clean(FindIndex.notesText(hit.description))
                return
            }
            start = hit.start
            guard let all = try? transcript.cues(),
                let run = FindIndex.runs(of: all).first(where: { $0.lowerBound == firstCue })
            else { return }
            var offset = 0
            for cue in all[run] {
                cues.append((cue.start, offset))
                offset += cue.text.unicodeScalars.count + 1
            }
            self.transcript = Self.clean(FindIndex.runText(all[run]))
        }

        /// The text without the characters that mark matches.
        private static func clean(_ text: String) -> String {
            guard text.contains(where: { $0 == "\u{1}" || $0 == "\u{2}" }) else { return text }
            return text.replacingOccurrences(of: FindHighlighter.open, with: " ").replacingOccurrences(of: FindHighlighter.close, with: " ")
        }

        func highlight(_ row: Row?) -> Highlight {
            if transcript != nil || start != nil {
                let marked = (row?[3] as String?) ?? ""
                let at = Self.firstMarkOffset(marked).map { offset in cues.last { $0.offset <= offset }?.start } ?? start
                return Highlight(place: .transcript, snippet: runs(of: row?[4] ?? ""), at: at ?? start)
            }
            let title = (row?[1] as String?) ?? ""
            if title.contains(FindHighlighter.open) {
                return Highlight(place: .title, snippet: runs(of: title))
            }
            return Highlight(place: .notes, snippet: runs(of: row?[2] ?? ""))
        }

        /// Where the first marked word begins in the unmarked text, in Unicode scalars.
        private static func firstMarkOffset(_ marked: String) -> Int? {
            var offset = 0
            for scalar in marked.unicodeScalars {
                if scalar == "\u{1}" { return offset }
                offset += 1
            }
            return nil
        }

        /// A marked text as runs.
        private func runs(of marked: String) -> FindSnippet {
            var runs: [FindSnippet.Run] = []
            var text = ""
            var isMatch = false
            for character in marked.replacingOccurrences(of: "\n", with: " ") {
                if character == "\u{1}" || character == "\u{2}" {
                    if !text.isEmpty { runs.append(FindSnippet.Run(text: text, isMatch: isMatch)) }
                    text = ""
                    isMatch = character == "\u{1}"
                } else {
                    text.append(character)
                }
            }
            if !text.isEmpty { runs.append(FindSnippet.Run(text: text, isMatch: isMatch)) }
            return FindSnippet(runs: runs)
        }
    }
}
