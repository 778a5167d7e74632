import Foundation

/// What a details view shows of one episode beyond its row: the show notes as text, and the
/// chapters and transcripts saved beside its file (`download --with-extras`).
///
/// `singlecast show` prints it and the terminal UI's details pane draws it.
public struct EpisodeDetails: Equatable, Sendable {
    public var notes: ShowNotes
    /// The chapters of the saved chapters file, in order.
    public var chapters: [PlaybackChapter]
    /// The transcript files saved beside the episode.
    public var transcripts: [ExtraFile]

    /// Reads the details of `entry`: its notes, and its saved extras.
    public static func load(_ entry: EpisodeEntry, library: Library) async throws -> EpisodeDetails {
        var saved: [ExtraFile] = []
        if let download = entry.download { saved = try await library.extrasByDownload()[download.id] ?? [] }
        return EpisodeDetails(
            notes: ShowNotes(try await library.episodeDescription(id: entry.id) ?? ""),
            chapters: try await EpisodeListening.chapters(of: entry, library: library),
            transcripts: saved.filter { $0.extra.kind == .transcript && $0.isSaved })
    }
}
