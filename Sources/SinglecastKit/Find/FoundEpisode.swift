import Foundation

/// Where in an episode `find` matched (and where `--in` lets it look), in order of weight.
public enum FindPlace: String, CaseIterable, Comparable, Sendable {
    /// The episode's title.
    case title
    /// Its show notes, as text.
    case notes
    /// A transcript saved with it.
    case transcript

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A piece of matching text, cut around the match: runs of text, the matched words marked.
public struct FindSnippet: Equatable, Sendable {
    public struct Run: Equatable, Sendable {
        public var text: String
        /// Whether these are words the query matched.
        public var isMatch: Bool

        public init(text: String, isMatch: Bool) {
            self.text = text
            self.isMatch = isMatch
        }
    }

    /// The runs in order; together, the snippet's text.
    public var runs: [Run]

    public init(runs: [Run]) {
        self.runs = runs
    }

    /// The text without marks.
    public var text: String { runs.map(\.text).joined() }
}

/// One result of ``Library/find(_:podcastID:in:limit:)``: an episode, where it matched, and
/// how well.
public struct FoundEpisode: Equatable, Sendable {
    public var podcast: StoredPodcast
    public var entry: EpisodeEntry
    /// Where the best match is: the title when it matched there, else the notes, or a transcript.
    public var matchedIn: FindPlace
    /// The text around the match, from the place it matched in.
    public var snippet: FindSnippet
    /// For a match in a transcript with times, the start of the cue that holds it (seconds
    /// into the episode); nil otherwise.
    public var at: Double?
    /// The relevance: SQLite's `bm25()` with the title weighing most, then the notes, then
    /// transcripts, negated so that higher is better.
    public var score: Double
}

/// What a search found: the best results, and how many episodes matched in all.
public struct FindResults: Equatable, Sendable {
    /// The best results, best first.
    public var results: [FoundEpisode]
    /// How many episodes matched, shown or not.
    public var total: Int
}

/// How far building the search index has gone, for a progress line.
public struct FindIndexProgress: Equatable, Sendable {
    /// Episodes and transcripts indexed so far by this run, and how many it has to index.
    public var done: Int
    public var total: Int
}
