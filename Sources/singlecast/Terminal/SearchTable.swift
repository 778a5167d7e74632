import SinglecastKit

/// The numbered list `singlecast search` prints.
enum SearchTable {
    /// Fitted to `width` when given: the artists are cut first, then the feed URLs, then the
    /// titles, as a result is picked by its title.
    static func render(_ results: [SearchResult], width: Int?) -> String {
        var table = TextTable(
            headers: ["#", "Title", "Artist", "Episodes", "Genre", "Feed"], rightAligned: [0, 3], shrinking: [2, 5, 1])
        for result in results {
            table.rows.append([
                String(result.number),
                result.title,
                result.artist ?? "",
                result.episodeCount.map(String.init) ?? "",
                result.genre ?? "",
                result.feedURL?.redacted ?? "(no feed: cannot be opened)",
            ])
        }
        return table.render(width: width)
    }
}
