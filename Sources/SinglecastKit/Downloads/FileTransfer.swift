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
/// resume safely is kept beside it in `<destination>.part.meta`. Transient failures wait for
/// the network (see ``RetryPolicy``), each try resuming from the bytes already on disk
/// with `Range` and `If-Range`. Only a complete, verified file is moved to its final path
/// (named by ``EpisodesFolder``, and never over another file), so a file at the final path is
/// always whole.
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

    /// When transient failures are tried again, and when the transfer stops waiting.
    ///
    /// A transient failure never ends a transfer by itself: it waits, each wait `growth`
    /// times longer than the one before (minus up to `jitter` of it at random, so clients
    /// do not come back in step) and never longer than `maxDelay`, until `giveUpAfter` has
    /// passed without a byte received.
    public struct RetryPolicy: Sendable {
        /// The daemon's default give-up time: a day.
        public static let daemonGiveUp: Duration = .seconds(24 * 3600)
        /// A foreground `download`'s default give-up time: ten minutes.
        public static let foregroundGiveUp: Duration = .seconds(600)

        /// How long a transfer goes on trying without receiving a byte.
        public var giveUpAfter: Duration
        /// The wait before the first retry.
        public var baseDelay: Duration
        /// How much longer each further wait is.
        public var growth: Double
        /// The longest wait, `Retry-After` included.
        public var maxDelay: Duration
        /// The largest fraction of a wait taken off at random.
        public var jitter: Double
        /// How many times in a row a server may answer a range that does not fit the partial
        /// file (which starts it over) before the transfer fails.
        public var maxRestarts: Int
        /// How many tries in a row a server may answer without bringing a byte past the furthest
        /// one on disk (a body that always ends at the same byte, a 206 with no byte) before the
        /// transfer fails: that server answers, so it is not waited for as an outage.
        public var maxFruitlessAnswers: Int

        public init(
            giveUpAfter: Duration = Self.daemonGiveUp, baseDelay: Duration = .seconds(1), growth: Double = 1.4,
            maxDelay: Duration = .seconds(300), jitter: Double = 0.2, maxRestarts: Int = 5,
            maxFruitlessAnswers: Int = 5
        ) {
            self.giveUpAfter = giveUpAfter
            self.baseDelay = baseDelay
            self.growth = max(1, growth)
            self.maxDelay = maxDelay
            self.jitter = min(max(jitter, 0), 1)
            self.maxRestarts = maxRestarts
            self.maxFruitlessAnswers = maxFruitlessAnswers
        }

        /// The wait before retry number `retry` (1 for the first): `baseDelay · growth^(retry-1)`,
        /// at most `maxDelay`, less `random · jitter` of it (`random` in 0..<1).
        public func delay(beforeRetry retry: Int, random: Double = 0) -> Duration {
            let nominal = min(baseDelay.inSeconds * pow(growth, Double(min(max(retry - 1, 0), 200))), maxDelay.inSeconds)
            let jittered = nominal * (1 - jitter * min(max(random, 0), 1))
            return .microseconds(Int64((jittered * 1_000_000).rounded()))
        }
    }

    public let session: HTTPSession
    public let retryPolicy: RetryPolicy
    /// The hosts' outages, shared by every download of this transfer.
    public let outages: HostOutages
    /// What waits and quiet times are timed by: the outages' clock.
    var clock: ErasedClock { outages.clock }

    /// - Parameter outages: the hosts' outages, and the clock every wait is timed by (tests give
    ///   them a clock they advance: `HostOutages(clock:)`).
    public init(session: HTTPSession, retryPolicy: RetryPolicy = RetryPolicy(), outages: HostOutages = HostOutages()) {
        self.session = session
        self.retryPolicy = retryPolicy
        self.outages = outages
    }

    /// A transfer whose waits are timed by `clock`, with outages of its own.
    public init(session: HTTPSession, retryPolicy: RetryPolicy = RetryPolicy(), clock: any Clock<Duration>) {
        self.init(session: session, retryPolicy: retryPolicy, outages: HostOutages(clock: clock))
    }

    /// Downloads `url` into `destination`, the final path, resuming from an existing
    /// `<destination>.part` when there is one.
    ///
    /// A transient failure (see ``DownloadError/isTransient``) makes the transfer wait for the
    /// host's next try (see ``HostOutages``) and resume from the bytes on disk; it ends only
    /// after ``RetryPolicy/giveUpAfter`` without a byte, throwing the last failure with
    /// ``DownloadError/gaveUpAfter`` set. A server that answers but brings no new byte
    /// ``RetryPolicy/maxFruitlessAnswers`` tries in a row ends it with
    /// ``DownloadError/Reason/serverKeepsEnding(at:of:)``; the partial file stays.
    ///
    /// - Parameters:
    ///   - announcedType: the enclosure's type from the feed; an HTML page is accepted only
    ///     when it is a `text/` type.
    ///   - progress: called once per received chunk (keep it cheap; throttle on your side).
    ///   - waiting: called when the transfer starts to wait for its next try.
    /// - Returns: the final path: `destination`, with an extension taken from the response's
    ///   `Content-Type` when `destination` has none (see ``EpisodesFolder/finalFile(reserved:contentType:announcedType:)``).
    /// - Throws: ``DownloadError``, or `CancellationError` when the task is cancelled (the
    ///   partial file is kept for a later resume).
    public func download(
        _ url: URL, to destination: URL, announcedType: String?,
        progress: @Sendable (Progress) -> Void = { _ in },
        waiting: @Sendable (RetryWait) async -> Void = { _ in }
    ) async throws -> URL {
        let directory = destination.deletingLastPathComponent()
        do {
            try await OffPool.run { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) } ?? EIO
            throw DownloadError.fileSystem(.createDirectory, path: directory.path, errno: code, url: url)
        }
        let job = Job(
            url: url, destination: destination, announcedType: announcedType,
            part: EpisodesFolder.partialFile(for: destination), info: EpisodesFolder.partialFileInfo(for: destination))
        let host = HostOutages.host(of: url)
        var lastByte = clock.now
        var restarts = 0
        // The furthest byte on disk so far, and the answered tries in a row that got no further.
        let partBytes: Int64? = (try? await OffPool.run { fileSize(atPath: job.part.path) }) ?? nil
        var furthest = partBytes ?? 0
        var fruitlessAnswers = 0
        while true {
            try Task.checkCancellation()
            if let planned = outages.pendingTry(host: host), min(planned.at, lastByte + retryPolicy.giveUpAfter) > clock.now {
                // Another download found the host down: wait for the same next try.
                try await wait(job, host: host, until: min(planned.at, lastByte + retryPolicy.giveUpAfter), planned.reason, waiting)
            }
            let failure: DownloadError
            var received: Int64 = 0
            var answer = Answer()
            do {
                switch try await attempt(job, received: &received, answer: &answer, progress: progress) {
                case .finished(let final):
                    outages.recovered(host: host)
                    return final
                case .restart(let why):
                    failure = DownloadError(.unusableRange(why), url: url)
                }
            } catch let error as DownloadError where error.isTransient {
                failure = error
            }
            if Task.isCancelled { throw CancellationError() }
            if received > 0 {
                lastByte = clock.now
                outages.recovered(host: host)
            }
            if case .unusableRange = failure.reason {
                restarts += 1
                guard restarts <= retryPolicy.maxRestarts else { throw failure }
                Self.logger.info("starting over", metadata: ["url": "\(url.redacted)", "reason": "\(failure)"])
                continue
            }
            restarts = 0
            if let reached = answer.reachedOffset {
                if reached > furthest {
                    furthest = reached
                    fruitlessAnswers = 0
                } else {
                    fruitlessAnswers += 1
                    if fruitlessAnswers >= retryPolicy.maxFruitlessAnswers {
                        throw DownloadError(.serverKeepsEnding(at: reached, of: answer.totalBytes), url: url)
                    }
                }
            }
            let quiet = clock.now - lastByte
            guard quiet < retryPolicy.giveUpAfter else { throw failure.givingUp(after: quiet) }
            let next = outages.failed(host: host, reason: failure.retryReason, retryAfter: failure.retryAfter, policy: retryPolicy)
            Self.logger.info(
                "waiting to retry",
                metadata: ["url": "\(url.redacted)", "until": "\(next)", "error": "\(failure)"])
            try await wait(job, host: host, until: min(next, lastByte + retryPolicy.giveUpAfter), failure.retryReason, waiting)
        }
    }

    /// Reports the wait, then waits until `time` (or a ``HostOutages/tryNow(host:)``).
    private func wait(
        _ job: Job, host: String, until time: ErasedClock.Instant, _ reason: RetryReason,
        _ waiting: @Sendable (RetryWait) async -> Void
    ) async throws {
        let nextTry = clock.date(of: time)
        let onDisk = (try? await OffPool.run { fileSize(atPath: job.part.path) }) ?? nil
        await waiting(RetryWait(reason: reason, nextTry: nextTry, receivedBytes: onDisk ?? 0))
        try await outages.wait(host: host, until: time)
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

    /// What one try learnt from a server that answered with a body to write (200 or 206).
    struct Answer {
        /// The offset the body reached in the partial file; nil when no usable answer came.
        var reachedOffset: Int64?
        var totalBytes: Int64?
    }

    enum Outcome {
        case finished(URL)
        /// The partial file was dropped; try again from byte 0 (the mismatch says why).
        case restart(DownloadError.RangeMismatch)
    }

    /// One request; `received` counts the body bytes it wrote, `answer` how far a usable answer got.
    private func attempt(
        _ job: Job, received: inout Int64, answer: inout Answer, progress: @Sendable (Progress) -> Void
    ) async throws -> Outcome {
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
            guard fd >= 0 else { throw DownloadError.fileSystem(.open, path: partPath, errno: errno, url: url) }
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
                return .restart(.startsElsewhere(from: onDisk))
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
            return .restart(.notSatisfiable(from: onDisk))
        default:
            preconditionFailure("status \(response.status) was checked above")
        }

        let info = PartInfo(
            url: url.absoluteString, validator: Self.validator(response.headers),
            contentType: contentType ?? saved?.contentType, totalBytes: total)
        if info != saved || start == 0 { info.write(to: job.info) }

        // Stream the body to the file.
        var offset = start
        answer = Answer(reachedOffset: start, totalBytes: total)
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
                throw DownloadError.fileSystem(.writeTo, path: job.part.path, errno: failure, url: url)
            }
            offset += Int64(buffer.readableBytes)
            received += Int64(buffer.readableBytes)
            answer.reachedOffset = offset
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

    /// Flushes the part to disk, moves it to its final path and flushes the directory, on
    /// the blocking-IO threads.
    private func finish(_ fd: Int32, _ job: Job, contentType: String?) async throws -> URL {
        try await OffPool.run { try Self.finishBlocking(fd, job, contentType: contentType) }
    }

    private static func finishBlocking(_ fd: Int32, _ job: Job, contentType: String?) throws -> URL {
        let url = job.url
        guard fsync(fd) == 0 else { throw DownloadError.fileSystem(.flush, path: job.part.path, errno: errno, url: url) }
        let final = EpisodesFolder.finalFile(
            reserved: job.destination, contentType: contentType, announcedType: job.announcedType)
        if let failure = EpisodesFolder.moveIntoPlace(job.part, to: final) {
            // EEXIST: another file has the name; it is left alone, and so is the part.
            throw DownloadError.fileSystem(.moveIntoPlace, path: final.path, errno: failure, url: url)
        }
        EpisodesFolder.flushFolder(of: final.path)
        try? FileManager.default.removeItem(at: job.info)
        return final
    }

    /// Empties the part and forgets its validator: the next bytes start at 0.
    private func startOver(_ fd: Int32, _ job: Job) throws {
        guard ftruncate(fd, 0) == 0 else {
            throw DownloadError.fileSystem(.truncate, path: job.part.path, errno: errno, url: job.url)
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
