import Foundation

/// The one place that knows where episode files go: `<library>/Episodes/<podcast>/<episode>.<ext>`.
public struct EpisodesFolder: Sendable, Equatable {
    /// `<library>/Episodes`.
    public let url: URL

    public init(libraryDirectory: URL) {
        url = libraryDirectory.appendingPathComponent("Episodes", isDirectory: true)
    }

    /// `Episodes/<podcast title>`, the title made safe as a file name.
    public func folder(forPodcast title: String) -> URL {
        let name = FileNaming.safeName(forTitle: title, url: nil, announcedType: nil)
        return url.appendingPathComponent(name, isDirectory: true)
    }

    /// The file name an episode gets before any clash with another episode's is resolved.
    static func fileName(for episode: Episode, enclosure: Enclosure) -> String {
        FileNaming.safeName(forTitle: episode.title, url: enclosure.location, announcedType: enclosure.type)
    }

    /// Where an extra of the episode file at `episodeFile` goes: beside it, named after it without
    /// its media extension (`Title.chapters.json`, `Title.en.vtt`, `Title.vtt` without a language).
    public static func extraFile(_ extra: Extra, besideEpisodeFile episodeFile: String) -> String {
        let file = URL(fileURLWithPath: episodeFile)
        let ext = file.pathExtension.lowercased()
        let stem = FileNaming.mediaExtensions.contains(ext) ? file.deletingPathExtension() : file
        return stem.path + "." + FileNaming.extraSuffix(for: extra)
    }

    /// Whether `path` lies directly in the podcast's folder.
    func contains(_ path: String, podcastTitle: String) -> Bool {
        URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
            == folder(forPodcast: podcastTitle).standardizedFileURL.path
    }
}
