import ArgumentParser
import SinglecastKit

/// Which episodes a listening command means: numbers as `singlecast episodes` lists them for
/// the current podcast (or `--feed`), as `singlecast new` lists them (`--new`), or as the last
/// `singlecast find` did (`--found`).
struct EpisodeSelection: ParsableArguments {
    @Option(help: "The podcast (@N, feed URL or part of the title); the current podcast by default.")
    var feed: String?

    @Flag(help: "Numbers as `singlecast new` lists them.")
    var new = false

    @Flag(help: "Numbers as the last `singlecast find` listed them.")
    var found = false

    func validate() throws {
        if [new, found, feed != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--new, --found and --feed do not go together.")
        }
    }

    /// The episodes numbered `numbers`; every listed one when `numbers` is nil.
    func episodes(_ numbers: [Int]?, library: Library) async throws -> [ChosenEpisode] {
        if found {
            let listed = try await library.foundMoments().map { ChosenEpisode(podcast: $0.podcast, entry: $0.entry, moment: $0.at) }
            guard let numbers else { return listed }
            return try numbers.map { number in
                guard listed.indices.contains(number - 1) else { throw LibraryError.noSuchFoundEpisode(number: number, count: listed.count) }
                return listed[number - 1]
            }
        }
        if new {
            let listed = try await library.newEpisodes()
            guard let numbers else { return listed.map { ChosenEpisode(podcast: $0.podcast, entry: $0.entry) } }
            return try numbers.map { number in
                guard listed.indices.contains(number - 1) else { throw LibraryError.noSuchNewEpisode(number: number, count: listed.count) }
                return ChosenEpisode(podcast: listed[number - 1].podcast, entry: listed[number - 1].entry)
            }
        }
        let podcast = try await self.podcast(library: library)
        let entries = try await library.episodes(podcastID: podcast.id)
        guard let numbers else { return entries.map { ChosenEpisode(podcast: podcast, entry: $0) } }
        return try numbers.map { number in
            guard entries.indices.contains(number - 1) else {
                throw LibraryError.noSuchEpisode(number: number, podcast: podcast.podcast.title, count: entries.count)
            }
            return ChosenEpisode(podcast: podcast, entry: entries[number - 1])
        }
    }

    /// The podcast `--feed` names, else the current one.
    func podcast(library: Library) async throws -> StoredPodcast {
        if let feed { return try await library.podcast(matching: FeedReference(feed)) }
        guard let current = try await library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
        return current
    }
}

/// An episode a command acts on, with its podcast.
struct ChosenEpisode {
    var podcast: StoredPodcast
    var entry: EpisodeEntry
    /// Where `find` matched in it, in seconds (a cue of a transcript), for `--found`.
    var moment: Double?
}
