import Foundation
import SinglecastKit

/// The sentences of `sync` (beside `Words.swift`, whose other sentences change with other work).
extension Words {
    /// `gpodder.example:8080` (the port only when the URL gives one).
    static func syncServer(_ server: URL) -> String {
        let host = server.host(percentEncoded: false) ?? server.absoluteString
        return server.port.map { "\(host):\($0)" } ?? host
    }

    /// `~/.netrc`, `$NETRC (/path)`, `SINGLECAST_SYNC_PASSWORD`, `the prompt`.
    static func passwordSource(_ source: SyncPasswordSource, home: String?) -> String {
        switch source {
        case .netrc(let path):
            if let home, path == home + "/.netrc" { return "~/.netrc" }
            return path
        case .environment: return SyncPassword.environmentVariable
        case .prompt: return "the password typed"
        }
    }

    /// What a failed sync says: the server, what failed, and for a refusal, the user and
    /// where the password came from.
    static func syncFailure(_ error: SyncError, source: SyncPasswordSource?, home: String?) -> String {
        let server = syncServer(error.server)
        switch error.reason {
        case .unauthorized(let user):
            let hint =
                switch source {
                case .netrc, .environment: "check the password in \(passwordSource(source!, home: home))"
                case .prompt: "check the password typed"
                case nil: "check the password"
                }
            return "\(server) refused user \(user): \(hint)"
        case .status(let code, let request):
            return "\(server) answered \(httpStatus(code)) \(syncRequest(request)); \(syncAftermath(request))"
        case .transport(let reason, let request):
            return "could not reach \(server) \(syncRequest(request)): \(transport(reason)); \(syncAftermath(request))"
        case .malformed(let request):
            return "\(server) sent an answer that is not the gpodder API's JSON \(syncRequest(request)); "
                + syncAftermath(request)
        case .noAPI:
            return "\(server) answers neither as a gpodder.net API server nor as Nextcloud's GPodder Sync "
                + "(check --server, or name the API with --api)"
        case .noDevices:
            return "\(server) (Nextcloud GPodder Sync) keeps one list of subscriptions per user, without devices"
        }
    }

    /// `to the login`, `for the episode actions`, …
    static func syncRequest(_ request: SyncRequest) -> String {
        switch request {
        case .login: "to the login"
        case .device: "when the device was registered"
        case .devices: "for the list of devices"
        case .subscriptions: "for the subscription changes"
        case .subscriptionUpload: "to the subscription changes sent"
        case .actions: "for the episode actions"
        case .actionUpload: "to the episode actions sent"
        }
    }

    /// What a failure leaves: nothing changed when it came before anything was applied; what
    /// was to be sent waits for the next sync otherwise.
    static func syncAftermath(_ request: SyncRequest) -> String {
        switch request {
        case .login, .device, .devices, .subscriptions, .actions: "nothing was changed here"
        case .subscriptionUpload, .actionUpload: "what was not sent is sent by the next sync"
        }
    }

    /// `connection refused`, `timed out`, …
    static func transport(_ reason: HTTPError.Reason) -> String {
        switch reason {
        case .connectTimeout: "timed out while connecting"
        case .readTimeout: "timed out waiting for an answer"
        case .connectionClosed: "the connection closed before the whole answer arrived"
        case .unreachable(let cause): Self.cause(cause)
        case .bodyTooLarge(let limit): "the answer is larger than \(limit / 1_048_576) MiB"
        case .certificateNotTrusted: "its certificate is not trusted"
        case .certificateExpired: "its certificate has expired"
        case .certificateWrongHost: "its certificate is for another host"
        case .tlsHandshakeFailed(let detail): "the TLS handshake failed (\(detail))"
        case .redirect(let problem): redirect(problem)
        case .unsupportedURL: "not an http or https URL"
        case .status(let code): "HTTP \(code)"
        case .unauthorized: "user name and password refused"
        }
    }

    /// `Synced with HOST: subscriptions here +1 -0, there +2 -0; actions received 5, applied 3, sent 12`.
    static func syncSummary(_ report: SyncReport, server: String, fetchFailures: Int) -> String {
        var line =
            "Synced with \(server): subscriptions here +\(report.addedHere) -\(report.removedHere), "
            + "there +\(report.addedThere) -\(report.removedThere); actions received \(report.actionsReceived), "
            + "applied \(report.actionsApplied), sent \(report.actionsSent)"
        if report.actionsWaiting > 0 { line += "; \(report.actionsWaiting) waiting for their episodes" }
        if report.rewrittenURLs > 0 {
            line += "; \(report.rewrittenURLs) feed URL\(report.rewrittenURLs == 1 ? "" : "s") rewritten by the server"
        }
        if report.playedWithoutLength > 0 {
            line += "; \(report.playedWithoutLength) played mark\(report.playedWithoutLength == 1 ? "" : "s") "
                + "not sent (the episode's length is unknown)"
        }
        if fetchFailures > 0 { line += "; \(fetchFailures) feed\(fetchFailures == 1 ? "" : "s") failed" }
        return line
    }

    /// The line for actions the server refused: they are not sent again.
    static func syncRefused(_ report: SyncReport, server: String) -> String {
        let status = report.refusalStatus.map { " (HTTP \($0))" } ?? ""
        let count = report.actionsRefused
        let which = report.refusedActions.joined(separator: ", ") + (count > report.refusedActions.count ? ", …" : "")
        return "\(server) refused \(count) episode action\(count == 1 ? "" : "s")\(status): \(which); "
            + "\(count == 1 ? "it is" : "they are") not sent again"
    }
}
