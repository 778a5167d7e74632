import Foundation

extension ProgressBuffer {
    /// Applies the retention policy (`subscribe --keep N`) of the podcast an episode that just
    /// completed belongs to: the files of its downloaded episodes beyond the N most recent
    /// are deleted with their transcripts and chapters, and those episodes are marked deleted so updates do not fetch them again.
    ///
    /// Only completed downloads of that podcast whose files lie in the podcast's own folder
    /// are touched: never a file being downloaded, never a file of another podcast, never a
    /// file the progress buffer does not know. Returns the downloads whose files were deleted.
    public func applyRetention(after completed: Download) async throws -> [Download] {
        let episodes = self.episodes
        return try await library.withDownloadStore { store in
            var removed: [Download] = []
            for podcast in try store.podcastsKeepingEpisodes(enclosureURL: completed.enclosureURL) {
                let downloads = try store.completedDownloads(podcastID: podcast.id)
                for var download in downloads.dropFirst(podcast.keep)
                where episodes.contains(download.file, podcastTitle: download.podcastTitle) {
                    guard unlink(download.file) == 0 || errno == ENOENT else { continue }
                    Self.removePartialFiles(for: URL(fileURLWithPath: download.file))
                    try store.removeExtras(ofDownload: download.id)
                    download = Self.reconciled(download)
                    try store.update(download)
                    try store.markEpisodesDeleted(enclosureURLs: [download.enclosureURL])
                    removed.append(download)
                }
            }
            return removed
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
    /// Removes a download's file with its partial files, transcripts and chapters; returns
    /// whether the file was there.
    func removeFiles(of download: Download) async throws -> Bool {
        let hadFile = try await OffPool.run {
            defer { Self.removePartialFiles(for: URL(fileURLWithPath: download.file)) }
            return unlink(download.file) == 0
        }
        try await library.removeExtras(ofDownload: download.id)
        return hadFile
    }
}
