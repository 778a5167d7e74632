import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one owner of where episode files go and what they are called:
/// `<episodes folder>/<podcast>/<episode>.<ext>` by default, else as the `file-name` setting's
/// ``FileNameTemplate`` says.
///
/// Every name comes from here: the name a new download reserves (``reserveName(for:inUse:present:)``),
/// the extension chosen at completion (``finalFile(reserved:contentType:announcedType:)``), the
/// move into place that never replaces a file (``moveIntoPlace(_:to:)``), and the names a
/// rebuild re-adopts after a lost database (``adoptions(files:inUse:episodes:podcastTitle:)``).
///
/// The rule: an episode's file is named after its title (see ``FileNaming/safeName(forTitle:url:announcedType:)``);
/// when another episode of the podcast already uses that name's stem (the name without its media
/// extension), it is named `Title [a1b2c3].ext`, the tag derived from the enclosure URL alone, so
/// that the same episode gets the same name again and a rebuild can tell whose file it is.
public struct EpisodesFolder: Sendable, Equatable {
    /// The folder every download goes under.
    public let url: URL
    /// Where in it a download goes, and its name.
    public let template: FileNameTemplate

    /// `root`, its files placed as `template` says.
    public init(root: URL, template: FileNameTemplate) {
        url = root
        self.template = template
    }

    /// `<library>/Episodes`, in the standard layout.
    public init(libraryDirectory: URL) {
        self.init(root: Self.defaultRoot(libraryDirectory: libraryDirectory), template: .standard)
    }

    /// `<library>/Episodes`: where downloads go unless the `episodes-folder` setting says otherwise.
    public static func defaultRoot(libraryDirectory: URL) -> URL {
        libraryDirectory.appendingPathComponent("Episodes", isDirectory: true)
    }

    /// The folder of a podcast's files: `Episodes/<podcast title>` in the standard layout, each
    /// part made safe as a file name.
    public func folder(forPodcast title: String) -> URL {
        template.folderComponents(podcastTitle: title).reduce(url) { $0.appendingPathComponent($1, isDirectory: true) }
    }

    // MARK: - Naming a download

    /// The partial file a download to `destination` (or an extra written beside it) grows in.
    static func partialFile(for destination: URL) -> URL {
        URL(fileURLWithPath: destination.path + partialSuffix)
    }

    /// The sidecar holding the resume validator of ``partialFile(for:)``.
    static func partialFileInfo(for destination: URL) -> URL {
        URL(fileURLWithPath: destination.path + partialInfoSuffix)
    }

    /// The copy a file moved here from another file system grows in (see ``copyIntoPlace(_:to:)``).
    static func movingFile(for destination: URL) -> URL {
        URL(fileURLWithPath: destination.path + movingSuffix)
    }

    /// The name a file in the folder is for: its own, or the one its partial file (or sidecar, or
    /// copy from another file system) grows into.
    static func finishedName(of name: String) -> String {
        for suffix in [partialInfoSuffix, partialSuffix, movingSuffix] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    /// Flushes the folder holding `file` to disk, so that a file just moved into it is there
    /// after a crash (the best it can: a folder that cannot be opened is left as it is).
    static func flushFolder(of file: String) {
        let folder = open(URL(fileURLWithPath: file).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        _ = fsync(folder)
        close(folder)
    }

    private static let partialSuffix = ".part"
    private static let partialInfoSuffix = ".part.meta"
    private static let movingSuffix = ".moving"

    /// The names an episode's file may have, most preferred first: the template's name, then the
    /// name tagged with the enclosure's ``FileNaming/clashTag(forEnclosureURL:)``. Both are the
    /// same for the same episode whenever they are computed.
    func candidateNames(for episode: Episode, enclosure: Enclosure, podcastTitle: String) -> [String] {
        let name = FileNaming.safeName(
            forTitle: template.unsafeName(podcastTitle: podcastTitle, episode: episode), url: enclosure.location,
            announcedType: enclosure.type)
        let ext = FileNaming.mediaExtension(of: name)
        let tagged = FileNaming.join(FileNaming.stem(of: name), ext, suffix: FileNaming.clashTag(forEnclosureURL: enclosure.url))
        return [name, tagged]
    }

    /// The file name a new download of `request` reserves in its podcast's folder: the first
    /// candidate (see ``candidateNames(for:enclosure:podcastTitle:)``) whose stem neither another download
    /// (`inUse`, the names of the folder's entries) nor a file in the folder (`present`) has;
    /// numbered (`Title [a1b2c3] (2).mp3`) only if both candidates are taken. A name without a
    /// media extension gets one at completion, so it clashes with any file of the same stem.
    func reserveName(for request: DownloadRequest, inUse: Set<String>, present: Set<String>) -> String {
        let taken = Set(inUse.map(FileNaming.stem(of:))).union(present.map(FileNaming.stem(of:)))
        let candidates = candidateNames(for: request.episode, enclosure: request.enclosure, podcastTitle: request.podcastTitle)
        if let free = candidates.first(where: { !taken.contains(FileNaming.stem(of: $0)) }) { return free }
        let last = candidates[candidates.count - 1]
        let ext = FileNaming.mediaExtension(of: last)
        var number = 2
        while true {
            let numbered = FileNaming.join(FileNaming.stem(of: last), ext, suffix: " (\(number))")
            if !taken.contains(FileNaming.stem(of: numbered)) { return numbered }
            number += 1
        }
    }

    /// The final path of a download reserved at `reserved`: `reserved` itself when its name has
    /// a media extension, else with the extension of the response's `Content-Type` (or of the
    /// type the feed announced) added; unchanged when neither is known.
    static func finalFile(reserved: URL, contentType: String?, announcedType: String?) -> URL {
        guard FileNaming.mediaExtension(of: reserved.lastPathComponent) == nil,
            let ext = contentType.flatMap(FileNaming.fileExtension(forMIMEType:))
                ?? announcedType.flatMap(FileNaming.fileExtension(forMIMEType:))
        else { return reserved }
        return URL(fileURLWithPath: reserved.path + "." + ext)
    }

    /// Moves the complete file `part` to `final`, never replacing a file already there: it is
    /// linked to the final name (which fails with `EEXIST` when the name is taken) and then
    /// unlinked. Where the file system has no hard links, the final name is created exclusively
    /// first and the part renamed over that placeholder of its own. Returns the `errno` of a
    /// failure (`EEXIST`: the name belongs to another file, which is left alone).
    static func moveIntoPlace(_ part: URL, to final: URL) -> Int32? {
        if link(part.path, final.path) == 0 {
            return unlink(part.path) == 0 || errno == ENOENT ? nil : errno
        }
        let linkError = errno
        guard [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS].contains(linkError) else { return linkError }
        let placeholder = open(final.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard placeholder >= 0 else { return errno }
        close(placeholder)
        guard rename(part.path, final.path) == 0 else {
            let renameError = errno
            unlink(final.path)
            return renameError
        }
        return nil
    }

    /// Copies `source`, on another file system than `final`, to `final`, never replacing a file
    /// there: into ``movingFile(for:)`` (made anew: one that exists is another file's, left alone,
    /// `EEXIST`), flushed to disk with the source's mode, then moved into place as
    /// ``moveIntoPlace(_:to:)`` does. The source stays. Returns the `errno` of a failure; the copy
    /// is removed then.
    static func copyIntoPlace(_ source: URL, to final: URL) -> Int32? {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return errno }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0 else { return errno }
        let copy = movingFile(for: final)
        let output = open(copy.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, status.st_mode & 0o7777)
        guard output >= 0 else { return errno }
        let failure = copyContents(from: input, to: output) ?? (fsync(output) == 0 ? nil : errno)
        close(output)
        if let failure {
            unlink(copy.path)
            return failure
        }
        if let failure = moveIntoPlace(copy, to: final) {
            unlink(copy.path)
            return failure
        }
        flushFolder(of: final.path)
        return nil
    }

    /// Writes everything `input` holds to `output`; the `errno` of a failure.
    private static func copyContents(from input: Int32, to output: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var copied: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { return nil }
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            let failure = buffer.withUnsafeBytes { FileTransfer.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<count]), at: copied) }
            if let failure { return failure }
            copied += Int64(count)
        }
    }

    // MARK: - Rebuilding after a lost database

    /// Which of a podcast folder's `files` (names) belong to which of `episodes` (the podcast's
    /// episodes that have no download entry), by enclosure URL: a file is adopted only when the
    /// naming rule gives its name to exactly one of them, so a file is never given to another
    /// episode. Tagged names are each episode's own; a title's plain name is adopted once the
    /// other episodes sharing it are accounted for (their tagged files found). Files `inUse`
    /// by entries, partial files and extras are never adopted.
    func adoptions(files: [String], inUse: Set<String>, episodes: [(Episode, Enclosure)], podcastTitle: String) -> [String: String] {
        var free = files.filter { !inUse.contains($0) && FileNaming.mediaExtension(of: $0) != nil }.sorted()
        var unresolved = episodes.map {
            (url: $0.1.url, candidates: candidateNames(for: $0.0, enclosure: $0.1, podcastTitle: podcastTitle))
        }
        var adopted: [String: String] = [:]
        var progress = true
        while progress {
            progress = false
            for file in free {
                let owners = unresolved.indices.filter { index in
                    unresolved[index].candidates.contains { Self.file(file, fits: $0) }
                }
                guard owners.count == 1 else { continue }
                adopted[unresolved[owners[0]].url] = file
                unresolved.remove(at: owners[0])
                free.removeAll { $0 == file }
                progress = true
            }
        }
        return adopted
    }

    /// Whether `file` is what a download reserved as `name` became: the same name, or, for a
    /// name without a media extension, that name with one.
    static func file(_ file: String, fits name: String) -> Bool {
        if FileNaming.mediaExtension(of: name) != nil { return file == name }
        return FileNaming.mediaExtension(of: file) != nil && FileNaming.stem(of: file) == name
    }

    // MARK: - Extras

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
