/// The known name closest to a mistyped one, for "did you mean …?" (a command, a config key).
public enum NearestName {
    /// The name of `candidates` fewest edits away from `name` (insertions, deletions,
    /// substitutions and swaps of neighbours, case ignored), if it is close enough to be what
    /// was meant: at most 2 edits, and fewer than half the name's length.
    public static func find(_ name: String, in candidates: [String]) -> String? {
        let typed = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance > 0, best.distance <= 2, best.distance * 2 < max(typed.count, 2) else { return nil }
        return best.name
    }

    /// The optimal string alignment distance: Levenshtein's, with a swap of two neighbours as one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
