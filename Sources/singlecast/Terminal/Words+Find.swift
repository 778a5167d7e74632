import Foundation
import SinglecastKit

extension Words {
    /// `the query '"wal sqlite' has a " that nothing closes`, …
    static func findQuery(_ invalid: FindQuery.Invalid) -> String {
        let problem =
            switch invalid.problem {
            case .unbalancedQuote: "has a \" that nothing closes"
            case .loneOR: "has an OR without a word on both sides"
            case .nothingToFind: "has no word to find (a letter or a digit)"
            }
        return "the query '\(invalid.query)' \(problem)"
    }

    /// A transcript that `find` skips: named, with why.
    static func unreadable(_ transcript: UnreadableTranscript) -> String {
        let why =
            switch transcript.reason {
            case .file(let code): "cannot be read (\(String(cString: strerror(code))))"
            case .notText: "is not UTF-8 text"
            case .notFormat(let format): "is not a \(format) transcript"
            }
        return "warning: transcript \(transcript.file) \(why); it is left out of find (the episode's title and notes are searched)"
    }

    /// `indexing for find: 12000 of 100000`.
    static func indexing(_ progress: FindIndexProgress) -> String {
        "indexing for find: \(progress.done) of \(progress.total)"
    }

    /// `title`, `notes`, `transcript at 12:34`.
    static func place(_ result: FoundEpisode) -> String {
        guard let at = result.at else { return result.matchedIn.rawValue }
        return "\(result.matchedIn.rawValue) at \(Format.duration(seconds: Int(at)))"
    }

    /// `3 episodes found`, `20 of 132 episodes found (--limit shows more)`, `No episode found.`
    static func foundTotal(shown: Int, of total: Int) -> String {
        if total == 0 { return "No episode found." }
        if shown < total { return "\(shown) of \(total) episodes found (--limit shows more)" }
        return "\(total) episode\(total == 1 ? "" : "s") found"
    }
}
