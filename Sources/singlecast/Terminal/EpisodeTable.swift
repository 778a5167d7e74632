import SinglecastKit

/// The numbered list `singlecast episodes` prints.
enum EpisodeTable {
    /// With a Heard column (`played`, `23:10 of 1:02:03`) when any episode has been heard;
    /// fitted to `width` when given, by cutting the titles.
    static func render(_ entries: [EpisodeEntry], width: Int?) -> String {
        let showsHeard = entries.contains { hasBeenHeard($0.playback) }
        let headers = ["#", "Date", "Length", "Size", "State"] + (showsHeard ? ["Heard"] : []) + ["Title"]
        var table = TextTable(headers: headers, rightAligned: [0, 2, 3], shrinking: [headers.count - 1])
        for entry in entries {
            let episode = entry.episode
            var row: [String] = [
                String(entry.number),
                episode.published.map(Format.day) ?? "",
                episode.duration.map { Format.duration(seconds: $0) } ?? "",
                episode.enclosure?.length.flatMap { $0 > 0 ? Format.bytes($0) : nil } ?? "",
                stateCell(entry.download),
            ]
            if showsHeard { row.append(heardCell(entry.playback, duration: episode.duration)) }
            row.append(episode.enclosure == nil ? episode.title + " (no audio)" : episode.title)
            table.rows.append(row)
        }
        return table.render(width: width)
    }

    /// A numbered list of episodes of several podcasts (`new`, `queue`): with a Length column
    /// when `showsLength`, a Heard column when any episode has been heard; fitted to `width`
    /// when given, by cutting the titles, then the podcasts' names.
    static func render(
        _ items: [(number: Int, podcast: StoredPodcast, entry: EpisodeEntry)], showsLength: Bool, width: Int?
    ) -> String {
        let showsHeard = items.contains { hasBeenHeard($0.entry.playback) }
        let headers = ["#", "Date"] + (showsLength ? ["Length"] : []) + ["Podcast", "State"] + (showsHeard ? ["Heard"] : []) + ["Title"]
        let podcastColumn = showsLength ? 3 : 2
        var table = TextTable(
            headers: headers, rightAligned: showsLength ? [0, 2] : [0], shrinking: [headers.count - 1, podcastColumn])
        for item in items {
            let episode = item.entry.episode
            var row = [String(item.number), episode.published.map(Format.day) ?? ""]
            if showsLength { row.append(episode.duration.map { Format.duration(seconds: $0) } ?? "") }
            row += [item.podcast.podcast.title, stateCell(item.entry.download)]
            if showsHeard { row.append(heardCell(item.entry.playback, duration: episode.duration)) }
            row.append(episode.title)
            table.rows.append(row)
        }
        return table.render(width: width)
    }

    /// Whether a listing shows a Heard cell for this playback.
    static func hasBeenHeard(_ playback: Playback) -> Bool {
        playback.isPlayed || playback.position != nil
    }

    /// `played`, `23:10 of 1:02:03` (or `23:10` when the length is unknown), or empty when never heard.
    static func heardCell(_ playback: Playback, duration: Int?) -> String {
        if playback.isPlayed { return "played" }
        guard let position = playback.position else { return "" }
        return Words.position(position, of: duration.map(Double.init))
    }

    /// `done`, `42%`, `paused 42%`, `error`, or `-` when never asked for.
    static func stateCell(_ download: Download?) -> String {
        guard let download else { return "-" }
        let percent = download.fractionCompleted.map { "\(Int($0 * 100))%" }
        switch download.state {
        case .completed: return "done"
        case .downloading: return percent ?? "downloading"
        case .notStarted: return "-"
        case .waiting, .retrying, .paused, .interrupted, .cancelled, .error, .deleted:
            return [download.state.rawValue, percent].compactMap { $0 }.joined(separator: " ")
        }
    }
}
