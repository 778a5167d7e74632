import Foundation

/// Moves downloaded episodes, with the extras saved beside them, into the layout of an episodes
/// folder (`singlecast move-files`, after `episodes-folder` or `file-name` changed).
///
/// Each move links the file under its new name (which never replaces a file: a name another file
/// has is a clash, left alone), records the new name in the library, then removes the old name;
/// at every moment the file has a name the library or the journal knows. Across file systems,
/// where no link can be made, the file is copied in beside its new name, flushed and moved into
/// place instead (``EpisodesFolder/copyIntoPlace(_:to:)``); the old name goes as a link's does.
/// The journal (`move-files.journal` in the library folder) lists the moves under way, so that a
/// run that was interrupted is finished by the next one before it moves anything else.
public struct FileMover: Sendable {
    /// What became of one download's file.
    public enum Outcome: Equatable, Sendable {
        case moved(from: String, to: String)
        /// The new name belongs to another file: nothing was moved.
        case clash(file: String, target: String)
        /// The move failed (`errno`); the file stays where it was.
        case failed(file: String, target: String, errno: Int32)
    }

    let library: Library
    let episodes: EpisodesFolder
    let journal: URL

    /// Moves the library's downloads in `libraryDirectory` into `episodes`.
    public init(library: Library, libraryDirectory: URL, episodes: EpisodesFolder) {
        self.library = library
        self.episodes = episodes
        journal = libraryDirectory.appendingPathComponent("move-files.journal")
    }

    /// Finishes the moves an interrupted run left, then moves every completed download that is
    /// not where the layout puts it; `report` hears of each.
    public func moveAll(report: @Sendable (Outcome) -> Void) async throws {
        try await finishInterruptedMoves()
        for download in try await library.downloads() where download.state == .completed {
            guard let outcome = try await move(download) else { continue }
            report(outcome)
        }
    }

    /// Where the layout puts `download`: the name its episode gets in its podcast's folder, with
    /// the extension its file has (chosen by the server's `Content-Type`, maybe).
    func target(of download: Download, episode: Episode, taken: Set<String>, present: Set<String>) -> URL {
        let folder = episodes.folder(forPodcast: download.podcastTitle)
        let enclosure = episode.enclosure ?? Enclosure(url: download.enclosureURL, type: download.mediaType)
        let request = DownloadRequest(podcastTitle: download.podcastTitle, episode: episode, enclosure: enclosure)
        let reserved = episodes.reserveName(for: request, inUse: taken, present: present)
        let current = FileNaming.mediaExtension(of: URL(fileURLWithPath: download.file).lastPathComponent)
        let name = FileNaming.join(FileNaming.stem(of: reserved), current ?? FileNaming.mediaExtension(of: reserved))
        return folder.appendingPathComponent(name)
    }

    private func move(_ download: Download) async throws -> Outcome? {
        let episode = try await library.episode(enclosureURL: download.enclosureURL)
            ?? Episode(title: download.episodeTitle, enclosure: Enclosure(url: download.enclosureURL, type: download.mediaType))
        let folder = episodes.folder(forPodcast: download.podcastTitle)
        let own = URL(fileURLWithPath: download.file)
        // Its own name is not taken from it: a file already in place stays as it is.
        let taken = try await library.withDownloadStore { try $0.namesInUse(in: folder) }
            .subtracting(own.deletingLastPathComponent().path == folder.path ? [own.lastPathComponent] : [])
        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .subtracting(own.deletingLastPathComponent().path == folder.path ? [own.lastPathComponent] : [])
        let target = self.target(of: download, episode: episode, taken: taken, present: present)
        guard target.path != own.path else { return nil }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let extras = try await library.extraFiles(ofDownload: download.id)
        let moves = [(own.path, target.path)] + extras.map { ($0, EpisodesFolder.extraFile(extraOf: $0, from: own.path, to: target.path)) }
        try writeJournal(download: download.id, moves)
        for (index, (from, to)) in moves.enumerated() {
            guard let code = try await Self.place(from, at: to) else { continue }
            // An extra that is gone is not worth stopping for; the episode's own file is.
            guard index == 0 else { continue }
            try? FileManager.default.removeItem(at: journal)
            return code == EEXIST
                ? Outcome.clash(file: own.path, target: target.path) : Outcome.failed(file: own.path, target: target.path, errno: code)
        }
        try await finish(download: download.id, moves)
        return Outcome.moved(from: own.path, to: target.path)
    }

    /// Gives the file at `from` the name `to` as well, linked or, on another file system, copied;
    /// the `errno` of a failure.
    private static func place(_ from: String, at to: String) async throws -> Int32? {
        try await OffPool.run {
            if link(from, to) == 0 { return nil }
            guard errno == EXDEV else { return errno }
            return EpisodesFolder.copyIntoPlace(URL(fileURLWithPath: from), to: URL(fileURLWithPath: to))
        }
    }

    /// Records the new names in the library, removes the old ones, and clears the journal.
    private func finish(download: Int64, _ moves: [(String, String)]) async throws {
        try await library.recordMove(downloadID: download, moves: moves.filter { FileManager.default.fileExists(atPath: $0.1) })
        for (from, to) in moves where FileManager.default.fileExists(atPath: to) { unlink(from) }
        EpisodesFolder.flushFolder(of: moves[0].1)
        try? FileManager.default.removeItem(at: journal)
    }

    // MARK: - The journal

    /// One move under way: the download, then each old and new name, a line each.
    private func writeJournal(download: Int64, _ moves: [(String, String)]) throws {
        let text = ([String(download)] + moves.flatMap { [$0.0, $0.1] }).joined(separator: "\n") + "\n"
        let descriptor = open(journal.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LibraryError.unusableDatabase(path: journal.path, detail: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count, fsync(descriptor) == 0 else {
            throw LibraryError.unusableDatabase(path: journal.path, detail: String(cString: strerror(errno)))
        }
    }

    /// Completes the move the journal names: where the new name exists the move is recorded and
    /// the old name removed; where it does not, the file never left and the move is dropped (this
    /// run makes it again).
    private func finishInterruptedMoves() async throws {
        guard let text = try? String(contentsOf: journal, encoding: .utf8) else { return }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
        guard let download = lines.first.flatMap({ Int64($0) }), lines.count >= 3, lines.count % 2 == 1 else {
            try? FileManager.default.removeItem(at: journal)
            return
        }
        let names = Array(lines.dropFirst())
        let moves = stride(from: 0, to: names.count, by: 2).map { (names[$0], names[$0 + 1]) }
        // A copy across file systems cut short by the interruption is of no use.
        for (_, to) in moves where !FileManager.default.fileExists(atPath: to) {
            unlink(EpisodesFolder.movingFile(for: URL(fileURLWithPath: to)).path)
        }
        guard FileManager.default.fileExists(atPath: moves[0].1) else {
            try? FileManager.default.removeItem(at: journal)
            return
        }
        try await finish(download: download, moves)
    }
}

extension EpisodesFolder {
    /// Where the extra at `extra`, saved beside the episode file `from`, goes when that file moves to `to`.
    static func extraFile(extraOf extra: String, from: String, to: String) -> String {
        let stem = URL(fileURLWithPath: from).deletingPathExtension().path
        let suffix = extra.hasPrefix(stem) ? String(extra.dropFirst(stem.count)) : "." + URL(fileURLWithPath: extra).pathExtension
        return URL(fileURLWithPath: to).deletingPathExtension().path + suffix
    }
}
