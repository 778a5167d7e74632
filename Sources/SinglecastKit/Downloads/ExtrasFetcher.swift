import Foundation

/// Saves the transcripts and chapters of completed downloads beside their files.
///
/// Each extra is fetched with the session of the episode's transfer (so its credentials and
/// redaction rules apply), bounded in size, refused when it is an HTML page (unless it is an
/// HTML transcript), and written atomically: a temporary file, flushed, renamed into place.
/// Only extras whose file is missing are fetched, so a failed one is tried again by the next
/// download of the episode, and a complete set costs no request.
struct ExtrasFetcher: Sendable {
    /// The largest extra saved.
    static let maximumBytes = 10 * 1_048_576

    let session: HTTPSession
    let buffer: ProgressBuffer

    /// Whether a request's download saves extras: asked for with the request, or by a
    /// subscription listing the episode.
    func isWanted(_ request: DownloadRequest) async -> Bool {
        if request.withExtras { return true }
        return (try? await buffer.library.subscriptionWantsExtras(enclosureURL: request.enclosure.url)) ?? false
    }

    /// Fetches the missing extras of the completed download `id` and records how each went.
    /// Returns the download and the extras tried; nil when none was missing, or the download is
    /// not complete. A cancel stops it; what was saved before is recorded.
    func fetchMissing(downloadID id: Int64, request: DownloadRequest) async -> (Download, [ExtraFile])? {
        guard let download = try? await buffer.library.download(id: id), download.state == .completed else { return nil }
        var episode = request.episode
        if episode.transcripts.isEmpty && episode.chaptersURL == nil,
            let stored = try? await buffer.library.episodeOfferingExtras(enclosureURL: download.enclosureURL)
        {
            episode = stored
        }
        let offered = Extra.offered(by: episode).map {
            ExtraFile(extra: $0, file: EpisodesFolder.extraFile($0, besideEpisodeFile: download.file))
        }
        var tried: [ExtraFile] = []
        for var item in offered where fileSize(atPath: item.file) == nil {
            do {
                item.bytes = try await save(item.extra, to: item.file)
            } catch {
                if Task.isCancelled { break }
                item.failure = error as? ExtraError
                    ?? ExtraError(.unexpected(describing(error)), url: item.extra.url)
            }
            tried.append(item)
        }
        guard !tried.isEmpty else { return nil }
        // A task of its own: what was saved before a cancel is recorded all the same (the
        // database refuses work from a cancelled task).
        let library = buffer.library
        let files = Set(offered.map(\.file))
        await Task { [tried] in try? await library.recordExtras(downloadID: id, tried, offered: files) }.value
        return (download, tried)
    }

    /// Fetches one extra into `file`; returns its size.
    private func save(_ extra: Extra, to file: String) async throws -> Int64 {
        guard let url = URL(string: extra.url) else { throw ExtraError(.notAURL, url: extra.url) }
        let response: HTTPSession.Response
        do {
            response = try await session.get(url)
        } catch let error as HTTPError {
            throw ExtraError(.http(error), url: extra.url)
        }
        guard (200..<300).contains(response.status) else {
            _ = try? await session.collect(response, upTo: 65_536)
            throw ExtraError(.http(HTTPError(.status(response.status), url: response.finalURL)), url: extra.url)
        }
        if !extra.isHTML, let type = response.headers.first(name: "Content-Type"), FileTransfer.isHTML(type: type) {
            _ = try? await session.collect(response, upTo: 65_536)
            throw ExtraError(.htmlPage, url: extra.url)
        }
        let data: Data
        do {
            data = try await session.collect(response, upTo: Self.maximumBytes)
        } catch let error as HTTPError {
            throw ExtraError(.http(error), url: extra.url)
        }
        if !extra.isHTML, FileTransfer.looksLikeHTML(data.prefix(512)) { throw ExtraError(.htmlPage, url: extra.url) }
        if extra.kind == .chapters, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] == nil {
            throw ExtraError(.notChapters, url: extra.url)
        }
        try await OffPool.run { try Self.writeAtomically(data, to: file, url: extra.url) }
        return Int64(data.count)
    }

    /// Writes `data` to `<file>.part`, flushes it, renames it to `file` and flushes the folder.
    private static func writeAtomically(_ data: Data, to file: String, url: String) throws {
        let temporary = EpisodesFolder.partialFile(for: URL(fileURLWithPath: file)).path
        func failure(_ operation: FileOperation, _ path: String) -> ExtraError {
            ExtraError(.fileSystem(operation: operation, path: path, errno: errno), url: url)
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(.create, temporary) }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw failure(.write, temporary) }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw failure(.flush, temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, file) == 0 else {
            let error = failure(.moveIntoPlace, file)
            unlink(temporary)
            throw error
        }
        EpisodesFolder.flushFolder(of: file)
    }
}
