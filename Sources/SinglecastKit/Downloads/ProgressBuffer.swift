import Foundation

/// The progress buffer: what is done or under way, keyed by enclosure URL, kept in the
/// library database and checked against the files in the `Episodes` folder.
public struct ProgressBuffer: Sendable {
    public let library: Library
    /// `$SINGLECAST_HOME/Episodes`.
    public let episodesDirectory: URL

    public init(library: Library, episodesDirectory: URL) {
        self.library = library
        self.episodesDirectory = episodesDirectory
    }

    /// Brings the buffer in line with the files on disk and the processes alive:
    /// a completed entry whose file is gone is no longer downloaded (or is interrupted, if a
    /// partial file is left); an entry left waiting or downloading by a dead process becomes
    /// interrupted, keeping its partial file; a complete file counts as downloaded.
    public func rebuild() throws {
        try library.reconcileDownloads { record in
            var record = record
            let partBytes = Self.size(ofFile: FileTransfer.partURL(for: URL(fileURLWithPath: record.file)).path)
            switch record.state {
            case .completed where !Self.exists(record.file):
                record.state = partBytes == nil ? .notStarted : .interrupted
                record.receivedBytes = partBytes ?? 0
            case .waiting, .downloading:
                if let owner = record.ownerPID, Self.isAlive(owner) { return record }
                record.ownerPID = nil
                record.state = Self.exists(record.file) ? .completed : .interrupted
                record.receivedBytes = Self.size(ofFile: record.file) ?? partBytes ?? 0
            case .notStarted, .interrupted, .paused, .error, .cancelled:
                if Self.exists(record.file) {
                    record.state = .completed
                    record.receivedBytes = Self.size(ofFile: record.file) ?? record.receivedBytes
                } else if let partBytes, record.state != .cancelled {
                    record.receivedBytes = partBytes
                }
            case .completed:
                break
            }
            return record
        }
    }

    /// Makes this process the owner of the request's download, unless it is complete or
    /// another live process owns it. A new entry gets a file name no other entry uses.
    public func claim(_ request: DownloadRequest, processID: Int32, background: Bool = false) throws -> DownloadClaim {
        let folder = folder(forPodcast: request.podcastTitle)
        let candidate = DownloadRecord(
            enclosureURL: request.enclosure.url, state: .waiting,
            expectedBytes: request.enclosure.length.flatMap { $0 > 0 ? $0 : nil }, file: "",
            podcastTitle: request.podcastTitle, episodeTitle: request.episode.title,
            mediaType: request.enclosure.type, background: background)
        let name = FileNaming.safeName(
            forTitle: request.episode.title, url: request.enclosure.location, announcedType: request.enclosure.type)
        return try library.claimDownload(
            candidate, processID: processID, isAlive: Self.isAlive, completeFileSize: Self.size(ofFile:),
            chooseFile: { filesInUse in
                let taken = Set(filesInUse.compactMap { path -> String? in
                    let file = URL(fileURLWithPath: path)
                    return file.deletingLastPathComponent().path == folder.path ? file.lastPathComponent : nil
                })
                return folder.appendingPathComponent(FileNaming.availableName(name, in: nil, avoiding: taken)).path
            })
    }

    // MARK: - Files and processes

    /// Whether a process with this id runs.
    public static func isAlive(_ processID: Int32) -> Bool {
        kill(processID, 0) == 0 || errno == EPERM
    }

    /// Removes a download's partial file and what it knows about it (a cancelled download).
    static func removePartialFiles(for destination: URL) {
        try? FileManager.default.removeItem(at: FileTransfer.partURL(for: destination))
        try? FileManager.default.removeItem(at: FileTransfer.partInfoURL(for: destination))
    }

    static func exists(_ path: String) -> Bool {
        size(ofFile: path) != nil
    }

    static func size(ofFile path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// `Episodes/<podcast title>`, the title made safe as a file name.
    public func folder(forPodcast title: String) -> URL {
        let name = FileNaming.safeName(forTitle: title, url: nil, announcedType: nil)
        return episodesDirectory.appendingPathComponent(name, isDirectory: true)
    }
}

extension ProgressBuffer {
    /// Records as downloaded the listed episodes that have no buffer entry but whose file
    /// is in the podcast's folder (a library database that was lost or replaced), and returns
    /// the entries with those downloads filled in. Costs nothing when the folder is absent.
    public func adoptCompleteFiles(_ entries: [EpisodeEntry], podcastTitle: String) throws -> [EpisodeEntry] {
        let folder = folder(forPodcast: podcastTitle)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !names.isEmpty else {
            return entries
        }
        let present = Set(names)
        return try entries.map { entry in
            guard entry.download == nil, let enclosure = entry.episode.enclosure else { return entry }
            let name = FileNaming.safeName(forTitle: entry.episode.title, url: enclosure.location, announcedType: enclosure.type)
            let file = folder.appendingPathComponent(name).path
            guard present.contains(name), let size = Self.size(ofFile: file) else { return entry }
            let record = DownloadRecord(
                enclosureURL: enclosure.url, state: .completed, receivedBytes: size,
                expectedBytes: size, file: file, podcastTitle: podcastTitle, episodeTitle: entry.episode.title,
                mediaType: enclosure.type)
            var adopted = entry
            adopted.download = try library.insertIfNew(record)
            return adopted
        }
    }
}
