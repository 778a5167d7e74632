import Foundation
import Logging
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads one file: resumable, verified, and atomic.
///
/// The body streams (with backpressure) into `<destination>.part`; the validator needed to
/// resume safely is kept beside it in `<destination>.part.meta`. Transient failures are
/// retried with exponential backoff, each attempt resuming from the bytes already on disk
/// with `Range` and `If-Range`. Only a complete, verified file is renamed to its final path,
/// so a file at the final path is always whole.
public struct FileTransfer: Sendable {
    private static let logger = Logger(label: "singlecast.download")

    /// How far a download has got. `receivedBytes` counts the bytes on disk, resumed ones included.
    public struct Progress: Sendable, Equatable {
        public var receivedBytes: Int64
        /// The size of the whole file, when the server announced it.
        public var totalBytes: Int64?

        public init(receivedBytes: Int64, totalBytes: Int64?) {
            self.receivedBytes = receivedBytes
            self.totalBytes = totalBytes
        }
    }

    /// When and how often transient failures are retried.
    public struct RetryPolicy: Sendable {
        /// Attempts in a row that may fail without adding bytes to the partial file.
        /// An attempt that adds bytes resets the count, so a flaky server that keeps
        /// dropping the connection still gets the whole file.
        public var maxAttempts: Int
        /// The wait before the first retry; it doubles with each further retry.
        public var baseDelay: Duration
        /// The longest wait, `Retry-After` included.
        public var maxDelay: Duration

        public init(maxAttempts: Int = 6, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30)) {
            self.maxAttempts = maxAttempts
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
        }

        /// The wait before retry number `retry` (1 for the first): the server's `Retry-After`
        /// when it sent one, else `baseDelay · 2^(retry-1)`; never more than `maxDelay`.
        public func delay(beforeRetry retry: Int, retryAfter: Duration? = nil) -> Duration {
            if let retryAfter { return min(max(retryAfter, .zero), maxDelay) }
            let exponential = baseDelay * (1 << min(max(retry - 1, 0), 30))
            return min(exponential, maxDelay)
        }
    }

    public let session: HTTPSession
    public let retryPolicy: RetryPolicy

    public init(session: HTTPSession, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.session = session
        self.retryPolicy = retryPolicy
    }

    /// The partial file used while downloading to `destination`.
    public static func partURL(for destination: URL) -> URL {
        URL(fileURLWithPath: destination.path + ".part")
    }

    /// The sidecar holding the resume validator of ``partURL(for:)``.
    public static func partInfoURL(for destination: URL) -> URL {
        URL(fileURLWithPath: destination.path + ".part.meta")
    }

    /// Downloads `url` into `destination`, the final path, resuming from an existing
    /// `<destination>.part` when there is one.
    ///
    /// - Parameters:
    ///   - announcedType: the enclosure's type from the feed; an HTML page is accepted only
    ///     when it is a `text/` type.
    ///   - progress: called once per received chunk (keep it cheap; throttle on your side).
    /// - Returns: the final path: `destination`, with an extension taken from the response's
    ///   `Content-Type` when `destination` has none.
    /// - Throws: ``DownloadError``, or `CancellationError` when the task is cancelled (the
    ///   partial file is kept for a later resume).
    public func download(
        _ url: URL, to destination: URL, announcedType: String?,
        progress: @Sendable (Progress) -> Void = { _ in }
    ) async throws -> URL {
        let directory = destination.deletingLastPathComponent()
        do {
            try await OffPool.run { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) } ?? EIO
            throw DownloadError.fileSystem("create directory", path: directory.path, errno: code, url: url)
        }
        let job = Job(
            url: url, destination: destination, announcedType: announcedType,
            part: Self.partURL(for: destination), info: Self.partInfoURL(for: destination))
        var failures = 0
        var mostOnDisk: Int64 = 0
        while true {
            try Task.checkCancellation()
            let failure: DownloadError
            do {
                switch try await attempt(job, progress: progress) {
                case .finished(let final):
                    return final
                case .restart(let why):
                    failure = DownloadError(.unusableRange(why), url: url)
                }
            } catch let error as DownloadError where error.isTransient {
                failure = error
            }
            if Task.isCancelled { throw CancellationError() }
            let onDisk = fileSize(atPath: job.part.path) ?? 0
            if onDisk > mostOnDisk {
                mostOnDisk = onDisk
                failures = 1
            } else {
                failures += 1
            }
            guard failures < retryPolicy.maxAttempts else { throw failure }
            if case .unusableRange = failure.reason {
                Self.logger.info("starting over", metadata: ["url": "\(url)", "reason": "\(failure.localizedDescription)"])
                continue
            }
            let delay = retryPolicy.delay(beforeRetry: failures, retryAfter: failure.retryAfter)
            Self.logger.info(
                "retrying",
                metadata: ["url": "\(url)", "after": "\(delay)", "bytesOnDisk": "\(onDisk)", "error": "\(failure.localizedDescription)"])
            try await Task.sleep(for: delay)
        }
    }

    // MARK: - One attempt

    struct Job {
        var url: URL
        var destination: URL
        var announcedType: String?
        var part: URL
        var info: URL

        /// HTML is an acceptable answer only when the feed announced a text type.
        var acceptsHTML: Bool { announcedType.map { mimeEssence($0).hasPrefix("text/") } ?? false }
    }

    enum Outcome {
        case finished(URL)
        /// The partial file was dropped; try again from byte 0 (the reason says why).
        case restart(String)
    }

    private func attempt(_ job: Job, progress: @Sendable (Progress) -> Void) async throws -> Outcome {
        let url = job.url
        let onDisk = fileSize(atPath: job.part.path) ?? 0
        let saved = onDisk > 0 ? PartInfo.read(from: job.info) : nil

        var headers: [(String, String)] = []
        if onDisk > 0 {
            headers.append(("Range", "bytes=\(onDisk)-"))
            if let validator = saved?.validator { headers.append(("If-Range", validator)) }
        }
        let response: HTTPSession.Response
        do {
            response = try await session.get(url, headers: headers)
        } catch {
            throw Self.translate(error, url: url)
        }

        guard [200, 206, 416].contains(response.status) else {
            let retryAfter = response.headers.first(name: "Retry-After").flatMap { Self.parseRetryAfter($0) }
            throw DownloadError(.http(HTTPError(.status(response.status), url: url)), url: url, retryAfter: retryAfter)
        }
        let contentType = response.headers.first(name: "Content-Type")
        if response.status != 416, !job.acceptsHTML, let contentType, Self.isHTML(type: contentType) {
            // An error or login page: never written. A part from earlier attempts (if any)
            // is still good content and is kept.
            if onDisk == 0 { Self.discard(job) }
            throw DownloadError(.htmlInsteadOfMedia(expectedType: job.announcedType), url: url)
        }
        // The part is created only once the answer is usable.
        let partPath = job.part.path
        let fd = try await OffPool.run { () throws -> Int32 in
            let fd = open(partPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw DownloadError.fileSystem("open", path: partPath, errno: errno, url: url) }
            return fd
        }
        defer { close(fd) }

        var start: Int64 = 0
        var total: Int64?
        switch response.status {
        case 206:
            let range = ContentRange(response.headers.first(name: "Content-Range"))
            guard let range, let first = range.first, first == onDisk else {
                try startOver(fd, job)
                return .restart("answered with a range that does not start at byte \(onDisk)")
            }
            start = onDisk
            total = range.total
        case 200:
            if onDisk > 0 { try startOver(fd, job) }
            total = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        case 416:
            let range = ContentRange(response.headers.first(name: "Content-Range"))
            if onDisk > 0, let whole = range?.total, whole == onDisk {
                progress(Progress(receivedBytes: onDisk, totalBytes: whole))
                return .finished(try await finish(fd, job, contentType: saved?.contentType))
            }
            guard onDisk > 0 else {
                Self.discard(job)
                throw DownloadError(.http(HTTPError(.status(416), url: url)), url: url)
            }
            try startOver(fd, job)
            return .restart("answered 416 to a resume from byte \(onDisk)")
        default:
            preconditionFailure("status \(response.status) was checked above")
        }

        let info = PartInfo(
            url: url.absoluteString, validator: Self.validator(response.headers),
            contentType: contentType ?? saved?.contentType, totalBytes: total)
        if info != saved || start == 0 { info.write(to: job.info) }

        // Stream the body to the file.
        var offset = start
        var sniffPending = start == 0 && !job.acceptsHTML
        progress(Progress(receivedBytes: offset, totalBytes: total))
        var chunks = response.body.makeAsyncIterator()
        while true {
            let next: ByteBuffer?
            do {
                next = try await chunks.next()
            } catch {
                throw Self.translate(error, url: url)
            }
            guard let buffer = next else { break }
            if Task.isCancelled { throw CancellationError() }
            let position = offset
            let failure = try await OffPool.run { buffer.withUnsafeReadableBytes { Self.writeAll(fd, $0, at: position) } }
            if let failure {
                throw DownloadError.fileSystem("write to", path: job.part.path, errno: failure, url: url)
            }
            offset += Int64(buffer.readableBytes)
            if sniffPending && offset >= Self.sniffLength {
                sniffPending = false
                try checkNotHTML(fd, job)
            }
            progress(Progress(receivedBytes: offset, totalBytes: total))
        }
        if sniffPending { try checkNotHTML(fd, job) }
        if let total, offset != total {
            if offset < total {
                throw DownloadError(.incomplete(received: offset, expected: total), url: url)
            }
            Self.discard(job)
            throw DownloadError(.oversized(received: offset, expected: total), url: url)
        }
        return .finished(try await finish(fd, job, contentType: info.contentType))
    }

    /// Flushes the part to disk, renames it to its final path and flushes the directory, on
    /// the blocking-IO threads.
    private func finish(_ fd: Int32, _ job: Job, contentType: String?) async throws -> URL {
        try await OffPool.run { try Self.finishBlocking(fd, job, contentType: contentType) }
    }

    private static func finishBlocking(_ fd: Int32, _ job: Job, contentType: String?) throws -> URL {
        let url = job.url
        guard fsync(fd) == 0 else { throw DownloadError.fileSystem("flush", path: job.part.path, errno: errno, url: url) }
        var final = job.destination
        if !hasExtension(final),
            let ext = contentType.flatMap(FileNaming.fileExtension(forMIMEType:))
                ?? job.announcedType.flatMap(FileNaming.fileExtension(forMIMEType:))
        {
            final = URL(fileURLWithPath: final.path + "." + ext)
        }
        guard rename(job.part.path, final.path) == 0 else {
            throw DownloadError.fileSystem("move into place", path: final.path, errno: errno, url: url)
        }
        let directory = open(final.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
        try? FileManager.default.removeItem(at: job.info)
        return final
    }

    /// Empties the part and forgets its validator: the next bytes start at 0.
    private func startOver(_ fd: Int32, _ job: Job) throws {
        guard ftruncate(fd, 0) == 0 else {
            throw DownloadError.fileSystem("truncate", path: job.part.path, errno: errno, url: job.url)
        }
        try? FileManager.default.removeItem(at: job.info)
    }

    static let sniffLength: Int64 = 64

    /// Fails (and drops the part) when the file's first bytes are an HTML document.
    private func checkNotHTML(_ fd: Int32, _ job: Job) throws {
        var head = [UInt8](repeating: 0, count: Int(Self.sniffLength))
        let count = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0, Self.looksLikeHTML(head.prefix(count)) else { return }
        Self.discard(job)
        throw DownloadError(.htmlInsteadOfMedia(expectedType: job.announcedType), url: job.url)
    }

    private static func discard(_ job: Job) {
        try? FileManager.default.removeItem(at: job.part)
        try? FileManager.default.removeItem(at: job.info)
    }

    // MARK: - Helpers

    /// Writes all of `bytes` at `offset`; returns the `errno` of a failure.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            done += written
        }
        return nil
    }

    /// Turns whatever a request or body read threw into a ``DownloadError`` (or `CancellationError`).
    static func translate(_ error: any Error, url: URL) -> any Error {
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let error = error as? DownloadError { return error }
        let wrapped = HTTPError.wrapping(error, url: url)
        if let http = wrapped as? HTTPError { return DownloadError(.http(http), url: url) }
        return wrapped
    }

    /// The validator to send in `If-Range`: a strong ETag, else Last-Modified.
    static func validator(_ headers: HTTPHeaders) -> String? {
        if let etag = headers.first(name: "ETag"), !etag.hasPrefix("W/"), !etag.isEmpty { return etag }
        return headers.first(name: "Last-Modified")
    }

    static func isHTML(type: String) -> Bool {
        let essence = mimeEssence(type)
        return essence == "text/html" || essence == "application/xhtml+xml"
    }

    /// Whether bytes start (after a BOM and whitespace) like an HTML document.
    static func looksLikeHTML<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        var rest = Substring(decoding: bytes, as: UTF8.self)
        if rest.hasPrefix("\u{FEFF}") { rest = rest.dropFirst() }
        let text = rest.drop { $0.isWhitespace }.lowercased()
        return text.hasPrefix("<!doctype html") || text.hasPrefix("<html")
    }

    /// Whether `url` ends in something that reads as a file extension (`.mp3`, `.m4a`;
    /// not `Ep. 12` or `Version 2.0`).
    static func hasExtension(_ url: URL) -> Bool {
        let name = url.lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        let ext = name[name.index(after: dot)...]
        return (1...5).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            && ext.contains { $0.isLetter }
    }

    /// `Retry-After` as a delay: seconds, or an HTTP date read as RFC 822 dates are (past
    /// dates give zero).
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(value) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = RFC822Date.parse(value) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// The type and subtype of a media type, lowercased, without parameters.
func mimeEssence(_ type: String) -> String {
    String(type.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
}

/// A parsed `Content-Range: bytes first-last/total` (or `bytes */total`).
struct ContentRange: Equatable {
    var first: Int64?
    var last: Int64?
    var total: Int64?

    init?(_ header: String?) {
        guard let header else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            total = nil
        } else {
            guard let value = Int64(halves[1]) else { return nil }
            total = value
        }
        if halves[0] != "*" {
            let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count == 2, let first = Int64(ends[0]), let last = Int64(ends[1]), first <= last else {
                return nil
            }
            self.first = first
            self.last = last
        }
    }
}

/// What `<destination>.part.meta` remembers about a partial file.
struct PartInfo: Codable, Equatable {
    var url: String
    /// Strong ETag or Last-Modified of the entity the part belongs to.
    var validator: String?
    var contentType: String?
    var totalBytes: Int64?

    static func read(from file: URL) -> PartInfo? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(PartInfo.self, from: data)
    }

    func write(to file: URL) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try? data.write(to: file, options: .atomic)
    }
}
