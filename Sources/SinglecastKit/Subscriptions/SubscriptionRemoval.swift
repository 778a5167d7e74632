import Foundation

/// Ends subscriptions: a podcast's downloads that are under way, waiting or paused are
/// cancelled (by the daemon when one runs, since it owns them), and its downloaded files are
/// deleted when asked. The podcast and its episodes stay in the library, as a podcast listed
/// with `episodes` does.
public struct SubscriptionRemoval: Sendable {
    public let buffer: ProgressBuffer
    public let daemon: DaemonClient

    public init(buffer: ProgressBuffer, daemon: DaemonClient) {
        self.buffer = buffer
        self.daemon = daemon
    }

    /// Ends the subscription to `podcast`; with `deleteFiles`, deletes the files of its
    /// completed downloads that lie in its own folder (never a file of another podcast, or
    /// one the progress buffer does not know). Returns the downloads whose files were deleted.
    public func unsubscribe(_ podcast: StoredPodcast, deleteFiles: Bool) async throws -> [Download] {
        let downloads = try await cancelUnfinishedDownloads(of: podcast.id)
        try await buffer.library.unsubscribe(podcastID: podcast.id)
        guard deleteFiles else { return [] }
        var deleted: [Download] = []
        for download in downloads
        where download.state == .completed && buffer.episodes.contains(download.file, podcastTitle: download.podcastTitle) {
            if try await buffer.removeFiles(of: download) { deleted.append(download) }
        }
        try await buffer.rebuild()
        return deleted
    }

    /// Cancels the podcast's unfinished downloads (in the daemon when one runs; their parts are
    /// deleted as a cancel does), as ending its subscription, here or on a synced device, does.
    /// Returns all the podcast's downloads as they were.
    @discardableResult
    public func cancelUnfinishedDownloads(of podcastID: Int64) async throws -> [Download] {
        let library = buffer.library
        let urls = Set(try await library.episodes(podcastID: podcastID).compactMap { $0.episode.enclosure?.url })
        let downloads = try await library.downloads().filter { urls.contains($0.enclosureURL) }
        let unfinished = downloads.filter { [.waiting, .downloading, .retrying, .paused, .interrupted].contains($0.state) }
        guard !unfinished.isEmpty else { return downloads }
        let ids = unfinished.map(\.id)
        if await daemon.isRunning() {
            _ = try await daemon.send(ControlRequest(command: .cancel, ids: ids))
        } else {
            _ = try await DownloadControl(buffer: buffer, engine: nil).apply(.cancel, to: ids)
        }
        return downloads
    }
}
