import Foundation

/// The rule of `subscribe --keep N`: which downloaded files go so that at most N stay.
public enum RetentionRule {
    /// A downloaded file of the podcast, as the rule weighs it.
    public struct File: Equatable, Sendable {
        public var download: Download
        /// Whether its episode was played to the end.
        public var isPlayed: Bool

        public init(download: Download, isPlayed: Bool) {
            self.download = download
            self.isPlayed = isPlayed
        }
    }

    /// The files to delete, of `files` (most recently published first), so that at most `keep`
    /// remain, deleting only what may go: played episodes first, oldest first, then the oldest
    /// unplayed ones an update fetched by itself. A file a person asked for stays until it is
    /// played, even when more than `keep` remain then.
    public static func filesToDelete(_ files: [File], keep: Int) -> [Download] {
        let excess = files.count - keep
        guard excess > 0 else { return [] }
        let oldestFirst = files.reversed()
        let played = oldestFirst.filter(\.isPlayed)
        let fetchedByUpdate = oldestFirst.filter { !$0.isPlayed && $0.download.fetchedByUpdate }
        return (played + fetchedByUpdate).prefix(excess).map(\.download)
    }
}

extension ProgressBuffer {
    /// Applies the retention policy (`subscribe --keep N`) of the podcast an episode that just
    /// completed belongs to, by ``RetentionRule``: the files it picks are deleted with their
    /// transcripts and chapters, and those episodes are marked deleted so updates do not fetch
    /// them again.
    ///
    /// Only completed downloads of that podcast whose files lie in the podcast's own folder
    /// are touched: never a file being downloaded, never a file of another podcast, never a
    /// file the progress buffer does not know. Returns the downloads whose files were deleted.
    public func applyRetention(after completed: Download) async throws -> [Download] {
        let episodes = self.episodes
        return try await library.withDownloadStore { store in
            var removed: [Download] = []
            for podcast in try store.podcastsKeepingEpisodes(enclosureURL: completed.enclosureURL) {
                let files = try store.downloadedFiles(podcastID: podcast.id)
                for download in RetentionRule.filesToDelete(files, keep: podcast.keep)
                where episodes.contains(download.file, podcastTitle: download.podcastTitle) {
                    guard unlink(download.file) == 0 || errno == ENOENT else { continue }
                    Self.removePartialFiles(for: URL(fileURLWithPath: download.file))
                    try store.removeExtras(ofDownload: download.id)
                    try store.update(Self.deletedRecord(of: download))
                    try store.markEpisodesDeleted(enclosureURLs: [download.enclosureURL])
                    removed.append(Self.deletedRecord(of: download))
                }
            }
            return removed
        }
    }

    /// The files the next retention of a podcast would delete if it kept `keep` files: what
    /// `subscribe --keep N` tells before the next download applies it.
    public func filesRetentionWouldDelete(podcastID: Int64, keep: Retention) async throws -> [Download] {
        guard case .mostRecent(let count) = keep else { return [] }
        return try await library.withDownloadStore { store in
            RetentionRule.filesToDelete(try store.downloadedFiles(podcastID: podcastID), keep: count)
        }
    }
}

extension ProgressBuffer {
    /// Deletes the downloaded files (with their partial files, transcripts and chapters) of these episodes and marks them
    /// deleted, so that updates do not fetch them again. A download under way is cancelled
    /// first. Returns the downloads whose files were removed.
    public func deleteFiles(of entries: [EpisodeEntry]) async throws -> [Download] {
        var deleted: [Download] = []
        for entry in entries {
            guard let download = entry.download else { continue }
            if DownloadLifecycle.isUnderWay(download.state) {
                _ = try await recordStopped(id: download.id, on: .cancel)
            }
            if try await removeFiles(of: download), let updated = try await library.download(id: download.id) { deleted.append(updated) }
        }
        try await library.markDeleted(episodeIDs: entries.map(\.id))
        try await rebuild()
        return deleted
    }
}

extension ProgressBuffer {
    /// Removes a download's file with its partial files, transcripts and chapters, and records
    /// the download as deleted (over: `resume` leaves it alone); returns whether the file was there.
    func removeFiles(of download: Download) async throws -> Bool {
        let hadFile = try await OffPool.run {
            defer { Self.removePartialFiles(for: URL(fileURLWithPath: download.file)) }
            return unlink(download.file) == 0
        }
        try await library.removeExtras(ofDownload: download.id)
        try await library.withDownloadStore { store in
            if let stored = try store.download(id: download.id) { try store.update(Self.deletedRecord(of: stored)) }
        }
        return hadFile
    }

    /// `download` after its files were deleted on purpose: in the deleted state, no byte on disk.
    static func deletedRecord(of download: Download) -> Download {
        var download = download
        if DownloadLifecycle.apply(.delete, to: &download) { download.receivedBytes = 0 }
        return download
    }
}
