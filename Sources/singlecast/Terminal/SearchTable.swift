import SinglecastKit

/// The numbered list `singlecast search` prints.
enum SearchTable {
    static func render(_ results: [SearchResult]) -> String {
        var table = TextTable(headers: ["#", "Title", "Artist", "Episodes", "Genre", "Feed"], rightAligned: [0, 3])
        for result in results {
            table.rows.append([
                String(result.number),
                truncate(result.title, 48),
                truncate(result.artist ?? "", 28),
                result.episodeCount.map(String.init) ?? "",
                result.genre ?? "",
                result.feedURL?.redacted ?? "(no feed: cannot be opened)",
            ])
        }
        return table.render()
    }

    static func truncate(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
