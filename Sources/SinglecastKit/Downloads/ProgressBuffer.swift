import Foundation

/// What happened when a process asked to own an episode's download.
public enum DownloadClaim: Equatable, Sendable {
    /// The caller owns the download now; it is in the waiting state.
    case claimed(Download)
    /// The file is already complete.
    case alreadyDownloaded(Download)
    /// Another live process owns it.
    case ownedElsewhere(Download)

    /// The download the claim is about.
    public var download: Download {
        switch self {
        case .claimed(let download), .alreadyDownloaded(let download), .ownedElsewhere(let download): download
        }
    }
}

/// The progress buffer: what is done or under way, keyed by enclosure URL, kept in the
/// library database and checked against the files in the `Episodes` folder.
///
/// It owns the ownership rules (claim, release, adopting a complete file, a dead owner) and
/// applies every state change through ``DownloadLifecycle``; the library only stores.
public struct ProgressBuffer: Sendable {
    public let library: Library
    public let episodes: EpisodesFolder

    public init(library: Library, episodes: EpisodesFolder) {
        self.library = library
        self.episodes = episodes
    }

    /// Brings the buffer in line with the files on disk and the processes alive:
    /// a completed entry whose file is gone is no longer downloaded (or is interrupted, if a
    /// partial file is left); an entry left waiting or downloading by a dead owner becomes
    /// interrupted, keeping its partial file; a complete file counts as downloaded.
    public func rebuild() async throws {
        try await library.withDownloadStore { store in
            for download in try store.all() {
                let updated = Self.reconciled(download)
                if updated != download { try store.update(updated) }
            }
        }
    }

    static func reconciled(_ download: Download) -> Download {
        var download = download
        let partBytes = fileSize(atPath: EpisodesFolder.partialFile(for: URL(fileURLWithPath: download.file)).path)
        if DownloadLifecycle.isUnderWay(download.state) {
            guard DownloadLifecycle.ownerIsGone(download) else { return download }
            DownloadLifecycle.apply(.interrupt, to: &download)
        }
        if let size = fileSize(atPath: download.file) {
            if download.state != .completed {
                DownloadLifecycle.apply(.fileFound, to: &download)
                download.receivedBytes = size
                download.expectedBytes = size
            }
        } else if download.state == .completed {
            DownloadLifecycle.apply(partBytes == nil ? .fileLost : .fileLostKeepingPart, to: &download)
            download.receivedBytes = partBytes ?? 0
        } else if let partBytes, download.state != .cancelled {
            download.receivedBytes = partBytes
        }
        return download
    }

    /// Makes `owner` the owner of the request's download, unless it is complete or another
    /// live process owns it. A new entry gets the file name ``EpisodesFolder`` reserves for it,
    /// one that no other entry and no file in the folder has; a file already in the folder is
    /// never taken for this episode's here (``adoptCompleteFiles(of:)`` decides whose it is).
    public func claim(_ request: DownloadRequest, owner: DownloadOwner = .current, background: Bool = false) async throws
        -> DownloadClaim
    {
        let folder = episodes.folder(forPodcast: request.podcastTitle)
        let present = try await OffPool.run { Self.namesInFolder(folder) }
        return try await library.withDownloadStore { store in
            if var existing = try store.download(enclosureURL: request.enclosure.url) {
                if DownloadLifecycle.isUnderWay(existing.state), let current = existing.owner {
                    if current == owner { return .claimed(existing) }
                    if !DownloadLifecycle.ownerIsGone(existing) { return .ownedElsewhere(existing) }
                }
                let reconciled = Self.reconciled(existing)
                if reconciled.state == .completed {
                    if reconciled != existing { try store.update(reconciled) }
                    return .alreadyDownloaded(reconciled)
                }
                existing = reconciled
                DownloadLifecycle.apply(.claim, to: &existing)
                existing.owner = owner
                existing.failure = nil
                existing.background = background
                // A person asking for an episode makes its file theirs, whoever asked first.
                existing.fetchedByUpdate = existing.fetchedByUpdate && request.fetchedByUpdate
                existing.mediaType = request.enclosure.type ?? existing.mediaType
                existing.episodeTitle = request.episode.title
                try store.update(existing)
                return .claimed(existing)
            }
            let inUse = try store.namesInUse(in: folder)
            let name = episodes.reserveName(for: request, inUse: inUse, present: present)
            var candidate = Download(
                id: 0, enclosureURL: request.enclosure.url, state: .notStarted,
                expectedBytes: request.enclosure.length.flatMap { $0 > 0 ? $0 : nil },
                file: folder.appendingPathComponent(name).path, podcastTitle: request.podcastTitle,
                episodeTitle: request.episode.title, mediaType: request.enclosure.type, background: background,
                fetchedByUpdate: request.fetchedByUpdate)
            DownloadLifecycle.apply(.claim, to: &candidate)
            candidate.owner = owner
            return .claimed(try store.insert(candidate)!)
        }
    }

    /// The names of the files in `folder` (none when it is absent), partial files and their
    /// sidecars counted under the name they are for.
    static func namesInFolder(_ folder: URL) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return Set(names.map(EpisodesFolder.finishedName(of:)))
    }

    // MARK: - The owner's records

    /// Saves how far the owner's transfer has got. Returns false when the download is no
    /// longer under way because another process paused or cancelled it: the owner should stop.
    @discardableResult
    public func recordTransfer(id: Int64, receivedBytes: Int64, expectedBytes: Int64?, bytesPerSecond: Double?)
        async throws -> Bool
    {
        try await change(id: id, on: .transfer) { download in
            download.receivedBytes = receivedBytes
            download.expectedBytes = expectedBytes ?? download.expectedBytes
            download.bytesPerSecond = bytesPerSecond
        } != nil
    }

    /// Records that the owner's transfer waits for its next try. Returns false when the
    /// download is no longer under way (paused or cancelled elsewhere): the owner should stop.
    @discardableResult
    public func recordRetryWait(id: Int64, _ wait: RetryWait) async throws -> Bool {
        try await change(id: id, on: .retryLater) { download in
            download.receivedBytes = wait.receivedBytes
            download.retryReason = wait.reason
            download.nextTryAt = wait.nextTry
        } != nil
    }

    /// Records a whole file at `file`, releasing the owner.
    public func recordCompleted(id: Int64, file: String, size: Int64) async throws -> Download? {
        try await change(id: id, on: .complete) { download in
            download.file = file
            download.receivedBytes = size
            download.expectedBytes = size
        }
    }

    /// Records a download that failed for good, releasing the owner.
    public func recordFailed(id: Int64, failure: DownloadError) async throws -> Download? {
        try await change(id: id, on: .fail) { download in download.failure = failure }
    }

    /// Records a download stopped before completion (`.pause`, `.cancel` or `.interrupt`),
    /// releasing the owner; a cancelled download's partial file is removed. `failure` says why
    /// an interrupted one stopped, when a failure did it (the network did not come back).
    /// Returns the download as stored, or the refusal.
    public func recordStopped(id: Int64, on event: DownloadLifecycle.Event, failure: DownloadError? = nil) async throws
        -> Result<Download, DownloadLifecycle.Refusal>?
    {
        try await library.withDownloadStore { store in
            guard var download = try store.download(id: id) else { return nil }
            switch DownloadLifecycle.transition(from: download.state, on: event) {
            case .failure(let refusal):
                return .failure(refusal)
            case .success(let state):
                let destination = URL(fileURLWithPath: download.file)
                if event == .cancel { Self.removePartialFiles(for: destination) }
                DownloadLifecycle.enter(state, &download)
                download.receivedBytes = fileSize(atPath: EpisodesFolder.partialFile(for: destination).path) ?? 0
                download.failure = failure
                try store.update(download)
                return .success(download)
            }
        }
    }

    /// Counts the bytes of a stopped download's partial file (after its transfer ended).
    public func recordPartSize(id: Int64) async throws -> Download? {
        try await library.withDownloadStore { store in
            guard var download = try store.download(id: id) else { return nil }
            download.receivedBytes =
                fileSize(atPath: EpisodesFolder.partialFile(for: URL(fileURLWithPath: download.file)).path) ?? 0
            try store.update(download)
            return download
        }
    }

    /// Applies `event` to download `id` and `update` to it in one transaction; nil when there
    /// is no such download or the lifecycle refuses the event.
    private func change(id: Int64, on event: DownloadLifecycle.Event, _ update: @escaping @Sendable (inout Download) -> Void)
        async throws -> Download?
    {
        try await library.withDownloadStore { store in
            guard var download = try store.download(id: id),
                case .success(let state) = DownloadLifecycle.transition(from: download.state, on: event)
            else { return nil }
            DownloadLifecycle.enter(state, &download)
            update(&download)
            try store.update(download)
            return download
        }
    }

    /// Removes a download's partial file and what it knows about it (a cancelled download).
    static func removePartialFiles(for destination: URL) {
        try? FileManager.default.removeItem(at: EpisodesFolder.partialFile(for: destination))
        try? FileManager.default.removeItem(at: EpisodesFolder.partialFileInfo(for: destination))
    }
}

extension ProgressBuffer {
    /// Records as downloaded the podcast's episodes that have no buffer entry but whose file
    /// is in the podcast's folder (a library database that was lost or replaced), as
    /// ``EpisodesFolder/adoptions(files:inUse:episodes:podcastTitle:)`` decides: never another episode's
    /// file. Costs one directory read when the folder is absent or empty, and a read of the
    /// entries when every media file in it has one.
    public func adoptCompleteFiles(of podcast: StoredPodcast) async throws {
        let podcastTitle = podcast.podcast.title
        let folder = episodes.folder(forPodcast: podcastTitle)
        let names = try await OffPool.run { (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] }
        guard !names.isEmpty else { return }
        // Usually every media file has its entry: then the episodes are not read.
        let recorded = Set(try await library.downloads().map(\.file))
        guard names.contains(where: { name in
            FileNaming.mediaExtension(of: name) != nil && !recorded.contains(folder.appendingPathComponent(name).path)
        }) else { return }
        let unclaimed = try await library.episodes(podcastID: podcast.id).compactMap { entry -> (Episode, Enclosure)? in
            guard entry.download == nil, let enclosure = entry.episode.enclosure else { return nil }
            return (entry.episode, enclosure)
        }
        guard !unclaimed.isEmpty else { return }
        try await library.withDownloadStore { store in
            let inUse = try store.namesInUse(in: folder)
            let adopted = episodes.adoptions(files: names, inUse: inUse, episodes: unclaimed, podcastTitle: podcastTitle)
            for (episode, enclosure) in unclaimed {
                guard let name = adopted[enclosure.url] else { continue }
                let file = folder.appendingPathComponent(name).path
                guard let size = fileSize(atPath: file) else { continue }
                var download = Download(
                    id: 0, enclosureURL: enclosure.url, state: .notStarted, file: file, podcastTitle: podcastTitle,
                    episodeTitle: episode.title, mediaType: enclosure.type)
                DownloadLifecycle.apply(.fileFound, to: &download)
                download.receivedBytes = size
                download.expectedBytes = size
                _ = try store.insert(download, ignoringConflicts: true)
            }
        }
    }
}
