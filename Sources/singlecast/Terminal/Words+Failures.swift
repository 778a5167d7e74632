import Foundation
import NIOHTTP1
import SinglecastKit

/// The sentences for the library's failures: each names the URL, file or episode involved, and
/// never shows a URL's password.
extension Words {
    /// The sentence a command that ends with `error` prints after `Error: `: one of the library's
    /// failures in words; nil for any other error (ArgumentParser's own, the executable's).
    static func error(_ error: any Error) -> String? {
        switch error {
        case let error as HTTPError: http(error)
        case let error as FeedError: feed(error)
        case let error as SearchError: search(error)
        case let error as LibraryError: library(error)
        case let error as DownloadError: failure(error)
        case let error as ExtraError: failure(error)
        case let error as DaemonError: daemon(error)
        case let error as PlayerError: player(error)
        case let error as ListeningError: listening(error)
        case let error as OPMLError: opml(error)
        case let error as SyncError: syncFailure(error, source: nil, home: nil)
        default: nil
        }
    }

    /// Any error in words: the library's failures as ``error(_:)`` words them, others as they
    /// describe themselves (for a failure that does not end the command).
    static func sentence(for error: any Error) -> String {
        Self.error(error) ?? (error as? any LocalizedError)?.errorDescription ?? "\(error)"
    }

    /// `URL answered HTTP 404 Not Found`, `URL is unreachable: Connection refused`, …
    static func http(_ error: HTTPError) -> String {
        let host = error.url.host(percentEncoded: false) ?? "the server"
        let url = error.url.redacted
        switch error.reason {
        case .status(let code):
            return "\(url) answered \(httpStatus(code))"
        case .connectTimeout:
            return "\(url): timed out while connecting"
        case .readTimeout:
            return "\(url): timed out waiting for data"
        case .unreachable(let cause):
            return "\(url) is unreachable: \(Self.cause(cause))"
        case .redirect(let problem):
            return "\(url): \(redirect(problem))"
        case .unsupportedURL:
            return "\(url) is not an http or https URL"
        case .bodyTooLarge(let limit):
            return "\(url): the response is larger than \(limit / 1_048_576) MiB"
        case .connectionClosed:
            return "\(url): the connection closed before the whole response arrived"
        case .unauthorized(refused: false):
            let scheme = error.url.scheme ?? "https"
            return "\(url) needs a user name and password for \(host) "
                + "(put them in the URL as \(scheme)://user:password@\(host)/… or in ~/.netrc)"
        case .unauthorized(refused: true):
            return "\(url): the user name and password for \(host) were refused (check them in the URL or in ~/.netrc)"
        case .certificateNotTrusted:
            return "\(url): certificate of \(host) is not trusted"
        case .certificateExpired:
            return "\(url): certificate of \(host) has expired"
        case .certificateWrongHost:
            return "\(url): certificate is not valid for \(host)"
        case .tlsHandshakeFailed(let detail):
            return "\(url): TLS handshake with \(host) failed (\(detail.redactingURLPasswords))"
        }
    }

    /// `HTTP 302 redirect without a usable Location`, `more than 20 redirects`.
    static func redirect(_ problem: HTTPError.RedirectProblem) -> String {
        switch problem {
        case .withoutLocation(let status): "HTTP \(status) redirect without a usable Location"
        case .tooMany(let limit): "more than \(limit) redirects"
        }
    }

    /// `HTTP 404 Not Found`, or `HTTP 599` for a status without a reason phrase.
    static func httpStatus(_ code: Int) -> String {
        let phrase = HTTPResponseStatus(statusCode: code).reasonPhrase
        return phrase.isEmpty ? "HTTP \(code)" : "HTTP \(code) \(phrase)"
    }

    /// `Connection refused`, `Name or service not known`: the system's words for the cause.
    static func cause(_ cause: NetworkCause) -> String {
        switch cause {
        case .system(let code): String(cString: strerror(code))
        case .nameResolution(let code): String(cString: gai_strerror(code))
        case .other(let text): text.redactingURLPasswords
        }
    }

    /// `feed.xml is empty`, `URL is not a podcast feed: …`, `feed.xml: XML error at line 12: …`.
    static func feed(_ error: FeedError) -> String {
        let source = error.source.redactingURLPasswords
        switch error.reason {
        case .empty: return "\(source) is empty"
        case .notAFeed(let document): return "\(source) is not a podcast feed: \(notAFeed(document))"
        case .invalidXML(let line, let message): return "\(source): XML error at line \(line): \(message)"
        case .unreadable(let detail): return "cannot read \(source): \(detail)"
        }
    }

    /// What a document that is not a feed is instead.
    static func notAFeed(_ document: FeedError.Document) -> String {
        switch document {
        case .html: "the document is HTML (an <html> page), not RSS or Atom"
        case .json: "the document is JSON, not RSS or Atom"
        case .text(let start): "the document is not XML (it starts with \u{201C}\(start)\u{201D})"
        case .otherXML(let root): "the root element is <\(root)>, not <rss>, <rdf:RDF> or Atom's <feed>"
        }
    }

    /// `search failed: …`.
    static func search(_ error: SearchError) -> String {
        switch error {
        case .request(let error):
            "search failed: \(http(error))"
        case .invalidAnswer(let url, let problem):
            "search failed: \(url.redacted) did not answer with iTunes Search JSON (\(searchAnswer(problem)))"
        }
    }

    private static func searchAnswer(_ problem: SearchError.AnswerProblem) -> String {
        switch problem {
        case .notJSON: "not valid JSON"
        case .missingField(let path): "no \u{201C}\(path)\u{201D} field"
        case .unexpectedValue(let path): "unexpected value at \(path)"
        }
    }

    /// `there is no episode 9 in Show: it has 3 episodes`, …
    static func library(_ error: LibraryError) -> String {
        switch error {
        case .unusableDatabase(let path, let detail):
            return "cannot use the library database \(path): \(detail)"
        case .noSuchSearchResult(let number, 0):
            return "there is no search result \(number): no search has been made yet"
        case .noSuchSearchResult(let number, let count):
            return "there is no search result \(number): the last search has \(count) result\(count == 1 ? "" : "s")"
        case .noSuchSearchResultButSubscription(let number, let count, let subscription):
            return sentence(for: LibraryError.noSuchSearchResult(number: number, count: count))
                + " (a bare number is a search result; the subscription \(subscription) is @\(number))"
        case .searchResultWithoutFeed(let number, let title):
            return "search result \(number) (\(title)) has no feed URL and cannot be opened"
        case .noCurrentPodcast:
            return "no podcast is selected yet: list one with its feed first, or name it"
        case .noSuchEpisode(let number, let podcast, let count):
            return "there is no episode \(number) in \(podcast): it has \(count) episode\(count == 1 ? "" : "s")"
        case .noSuchNewEpisode(let number, let count):
            return "there is no new episode \(number): \(count) episode\(count == 1 ? " is" : "s are") new"
        case .noSuchFoundEpisode(let number, let count):
            return count == 0
                ? "there is no result \(number) of the last find: it found nothing (or there was none yet)"
                : "there is no result \(number) of the last find: it has \(count) result\(count == 1 ? "" : "s")"
        case .episodeWithoutAudio(let number, let title):
            return "episode \(number) (\(title)) has no audio file to download"
        case .noSuchQueueEntry(_, 0):
            return "the queue is empty: add episodes with `singlecast queue add N`"
        case .noSuchQueueEntry(let number, let count):
            return "there is no episode \(number) in the queue: it has \(count) episode\(count == 1 ? "" : "s")"
        case .noSuchPodcast(let reference, let candidates):
            let list = candidates.isEmpty ? "" : "; subscriptions: " + candidates.joined(separator: ", ")
            return "no podcast matches \u{201C}\(reference.redactingURLPasswords)\u{201D}\(list)"
        case .ambiguousPodcast(let reference, let candidates):
            return "\u{201C}\(reference.redactingURLPasswords)\u{201D} matches several podcasts: "
                + candidates.joined(separator: ", ")
        }
    }

    /// The sentence for a download's failure, with how long it waited for the network when it
    /// gave up.
    static func failure(_ failure: DownloadError) -> String {
        let url = failure.url.redactingURLPasswords
        let sentence =
            switch failure.reason {
            case .notAURL: "the enclosure \u{201C}\(url)\u{201D} is not a URL"
            case .http(let error): http(error)
            case .htmlInsteadOfMedia(let expected): "\(url) sent an HTML page instead of \(expected ?? "the episode's audio or video")"
            case .incomplete(let received, let expected): "\(url) sent \(received) of \(expected) bytes before the connection closed"
            case .oversized(let received, let expected): "\(url) sent \(received) bytes although it announced \(expected)"
            case .unusableRange(.startsElsewhere(let from)): "\(url) answered with a range that does not start at byte \(from)"
            case .unusableRange(.notSatisfiable(let from)): "\(url) answered 416 to a resume from byte \(from)"
            case .serverKeepsEnding(let at, let total): "\(url): the server keeps ending the transfer at " + endedAt(at, of: total)
            case .noSpace(let path): "no space left on device while writing \(path)"
            case .fileSystem(let operation, let path, let code): fileSystem(operation, path, code)
            case .unexpected(let detail): detail
            }
        guard let gaveUpAfter = failure.gaveUpAfter else { return sentence }
        return "\(sentence) (gave up after \(gaveUpAfter.components.seconds) s without data)"
    }

    /// `50 % (10.0 MB of 20.0 MB)`, or `10.0 MB` when the size is unknown.
    private static func endedAt(_ at: Int64, of total: Int64?) -> String {
        guard let total, total > 0 else { return megabytes(at) }
        let percent = Int((Double(at) / Double(total) * 100).rounded(.down))
        return "\(percent) % (\(megabytes(at)) of \(megabytes(total)))"
    }

    /// `10.0 MB`: decimal megabytes with one decimal.
    private static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    /// `could not rename PATH: Permission denied`.
    private static func fileSystem(_ operation: FileOperation, _ path: String, _ code: Int32) -> String {
        let verb =
            switch operation {
            case .createDirectory: "create the folder"
            case .create: "create"
            case .open: "open"
            case .write: "write"
            case .writeTo: "write to"
            case .flush: "flush"
            case .moveIntoPlace: "move into place"
            case .truncate: "truncate"
            }
        return "could not \(verb) \(path): \(String(cString: strerror(code)))"
    }

    /// The sentence for an extra's failure.
    static func failure(_ failure: ExtraError) -> String {
        let url = failure.url.redactingURLPasswords
        switch failure.reason {
        case .notAURL: return "\u{201C}\(url)\u{201D} is not a URL"
        case .http(let error): return http(error)
        case .htmlPage: return "\(url) sent an HTML page instead of the file"
        case .notChapters: return "\(url) is not a chapters file (JSON)"
        case .fileSystem(let operation, let path, let code): return fileSystem(operation, path, code)
        case .unexpected(let detail): return detail
        }
    }

    /// The sentence for a subscription update's failure.
    static func failure(_ failure: UpdateFailure) -> String {
        switch failure {
        case .http(let error): http(error)
        case .feed(let error): feed(error)
        case .unexpected(let detail): detail
        }
    }

    /// `a download daemon is already running for LIBRARY (process 42)`, …
    static func daemon(_ error: DaemonError) -> String {
        switch error {
        case .alreadyRunning(let library, let processID):
            let who = processID.map { " (process \($0))" } ?? ""
            return "a download daemon is already running for \(library)\(who)"
        case .socket(let path, let problem):
            return "control socket \(path): " + socketProblem(problem)
        case .didNotStart(let log):
            return "the download daemon did not start; see \(log)"
        case .refused(let failure):
            return "the download daemon refused: \(controlFailure(failure))"
        }
    }

    /// `no reply within 30.0 seconds`, `the daemon closed the connection`, …
    private static func socketProblem(_ problem: DaemonError.SocketProblem) -> String {
        switch problem {
        case .system(let code): String(cString: strerror(code))
        case .notListening(let detail): "no daemon is listening (\(detail))"
        case .noReply(let timeout): "no reply within \(timeout)"
        case .closed: "the daemon closed the connection"
        case .unreadableReply: "unreadable reply"
        case .cannotStart(let executable, let code): "cannot start \(executable): \(String(cString: strerror(code)))"
        case .cannotListen(let detail): detail
        }
    }

    /// Why the daemon did not carry out a request: `jobs must be between 1 and 32, not 40`, …
    /// (a kind this build does not know reads as its detail, or as itself).
    static func controlFailure(_ failure: ControlFailure) -> String {
        switch failure.kind {
        case "malformed-message": "malformed message: expected one line of JSON with a \"version\""
        case "message-too-long": "message longer than \(failure.number ?? 0) bytes"
        case "unsupported-version":
            "unsupported protocol version \(failure.number ?? 0) (this daemon speaks \(ControlRequest.currentVersion))"
        case "malformed-request": "malformed request: \(failure.detail ?? "")"
        case "starting": "the daemon is starting"
        case "jobs-out-of-range": JobsOption.outOfRange(failure.number ?? 0)
        case "failed": failure.detail ?? "no reason given"
        default: failure.detail ?? failure.kind
        }
    }

    /// The player could not be found or started.
    static func player(_ error: PlayerError) -> String {
        switch error {
        case .playerNotFound:
            "mpv was not found on PATH: install it (sudo apt install mpv), or set SINGLECAST_PLAYER to a player's path"
        case .configuredPlayerMissing(let path):
            "SINGLECAST_PLAYER names \(path), which does not exist or cannot be run"
        case .couldNotStart(let path, let code):
            "could not start \(path): \(String(cString: strerror(code)))"
        case .exitedBeforeReady(let path, let status):
            "\(path) exited (status \(status)) before it could be driven"
        case .didNotAnswer(let path):
            "\(path) did not open its IPC socket in time"
        case .socketDirectory(let path, let code):
            "could not make a folder for the player's socket in \(path): \(String(cString: strerror(code)))"
        case .speedOutOfRange(let speed):
            "speed \(speed) is outside \(PlaybackRequest.speeds.lowerBound)…\(PlaybackRequest.speeds.upperBound)"
        case .commandFailed(let command, let error):
            "the player refused \(command): \(error)"
        case .playbackEnded:
            "the playback has ended"
        }
    }

    /// Why an episode cannot be listened to.
    static func listening(_ error: ListeningError) -> String {
        switch error {
        case .noAudio(let number, let title):
            "cannot play episode \(number) (\(title)): it has no audio"
        case .nothingToContinue:
            "no episode is being listened to: pick one by its number as `singlecast episodes` lists it (singlecast play N)"
        case .startPastEnd(let title, let start, let length):
            "cannot start \(title) at \(Format.duration(seconds: Int(start))): it is \(Format.duration(seconds: Int(length.rounded()))) long"
        }
    }

    /// `FILE is empty, not an OPML file`, …
    static func opml(_ error: OPMLError) -> String {
        switch error.reason {
        case .empty: "\(error.source) is empty, not an OPML file"
        case .notOPML(let root): "\(error.source) is not an OPML file: its root element is <\(root)>, not <opml>"
        case .invalidXML(let line, let message): "\(error.source) is not an OPML file: it is not well-formed XML (line \(line): \(message))"
        case .unreadable(let code): "cannot read \(error.source): \(String(cString: strerror(code)))"
        case .tooLarge(let limit): "\(error.source) is larger than \(limit / 1_048_576) MiB, too large for a subscription list"
        case .outOfMemory: "cannot read \(error.source): out of memory"
        }
    }
}
