import Foundation

/// What a sync did, both ways.
public struct SyncReport: Equatable, Sendable, Codable {
    /// The server's host.
    public var server: String
    public var api: SyncDialect
    /// Subscriptions added and removed here for the server.
    public var addedHere = 0
    public var removedHere = 0
    /// Subscription changes sent to the server.
    public var addedThere = 0
    public var removedThere = 0
    /// Feed URLs the server rewrote (`update_urls`).
    public var rewrittenURLs = 0
    public var actionsReceived = 0
    /// Received actions that changed an episode here.
    public var actionsApplied = 0
    /// Received actions kept for episodes not in the library yet.
    public var actionsWaiting = 0
    public var actionsSent = 0
    /// Local actions the server refused (a 4xx answer): reported once, never sent again.
    public var actionsRefused = 0
    /// The status of the last refusal.
    public var refusalStatus: Int?
    /// The refused actions: their type and episode URL (`play https://…/1.mp3`), the first ten.
    public var refusedActions: [String] = []
    /// Played marks not sent because the episode's length is not known.
    public var playedWithoutLength = 0
    /// Podcasts subscribed for the server whose feeds are to be fetched.
    public var podcastsToFetch: [Int64] = []
    /// Podcasts unsubscribed for the server, whose unfinished downloads are to be cancelled
    /// (see ``SubscriptionRemoval/cancelUnfinishedDownloads(of:)``).
    public var podcastsRemoved: [Int64] = []

    init(server: String, api: SyncDialect) {
        self.server = server
        self.api = api
    }

    /// Whether the sync changed anything here or on the server, or has something to report:
    /// subscriptions or episode actions moved either way, feed URLs rewritten, actions refused.
    public var changedAnything: Bool {
        addedHere + removedHere + addedThere + removedThere + rewrittenURLs + actionsApplied + actionsSent
            + actionsRefused + playedWithoutLength > 0
    }
}

/// A login to a sync server made before the library was at hand
/// (``Synchronizer/logIn(to:credentials:dialect:session:)``).
public struct SyncLogin: Sendable {
    let client: SyncClient

    /// Whether it is a login as `account`: its server and user, and its dialect when known.
    func serves(_ account: SyncAccount) -> Bool {
        client.server == SyncClient.normalized(account.server) && client.credentials.user == account.user
            && (account.dialect == nil || account.dialect == client.dialect)
    }
}

/// Syncs the library with a gpodder-API server: receives the changes since the last sync and
/// applies them in one transaction, then sends this device's subscription changes and
/// episode actions (at most ``batchSize`` a request), each acknowledged once the server has
/// taken it. A failure leaves nothing half-applied and loses nothing to send: the next sync
/// picks up where this one stopped.
public struct Synchronizer: Sendable {
    public let library: Library
    public let session: HTTPSession
    public let credentials: SyncCredentials
    /// The most actions one upload carries.
    public static let batchSize = 1000

    public init(library: Library, session: HTTPSession, credentials: SyncCredentials) {
        self.library = library
        self.session = session
        self.credentials = credentials
    }

    /// Logs in to `server` in `dialect` (the one the server speaks, found by asking it, when
    /// nil), without the library: a command line that knows the account from its arguments
    /// logs in while its library opens, and hands the login to ``sync(_:caption:login:)``.
    public static func logIn(
        to server: URL, credentials: SyncCredentials, dialect: SyncDialect?, session: HTTPSession
    ) async throws -> SyncLogin {
        guard let dialect else {
            return SyncLogin(client: try await SyncClient.detect(session: session, server: server, credentials: credentials))
        }
        let client = SyncClient(session: session, server: server, credentials: credentials, dialect: dialect)
        try await client.login()
        return SyncLogin(client: client)
    }

    /// The client for the account's server, logged in (with `login` when it is this account's),
    /// in its dialect (found and remembered when not known).
    private func client(for account: SyncAccount, login: SyncLogin? = nil) async throws -> SyncClient {
        let client: SyncClient
        if let login, login.serves(account) {
            client = login.client
        } else {
            client = try await Self.logIn(to: account.server, credentials: credentials, dialect: account.dialect, session: session).client
        }
        if account.dialect == nil { try await library.recordSyncDialect(client.dialect) }
        return client
    }

    /// The account's devices (gpodder.net dialect only).
    public func devices(_ account: SyncAccount) async throws -> (devices: [SyncDevice], api: SyncDialect) {
        let client = try await client(for: account)
        return (try await client.devices(), client.dialect)
    }

    /// Syncs once as `account`, the one the library remembers (registering the device with
    /// `caption` the first time), with `login` when it was made ahead for this account.
    public func sync(_ account: SyncAccount, caption: String, login: SyncLogin? = nil) async throws -> SyncReport {
        let client = try await client(for: account, login: login)
        var report = SyncReport(server: account.server.host(percentEncoded: false) ?? "", api: client.dialect)
        let device = client.dialect == .gpodder ? account.device : nil

        // Receive everything first, the requests under way at once (the episode actions, the
        // largest answer, beside the device and its subscriptions), while the first batch to
        // send is read; then apply it all at once.
        async let receiving = client.episodeActions(since: account.actionsSince)
        async let firstBatch = outgoingBatch(after: account.sentActionID, device: device)
        let registered = try await registerDevice(account, client: client, caption: caption)
        let subscriptions = try await client.subscriptionChanges(device: account.device, since: account.subscriptionsSince)
        let actions = try await receiving
        report.actionsReceived = actions.actions.count
        let applied = try await library.applySync(
            subscriptions: subscriptions, actions: actions.actions, actionsTimestamp: actions.timestamp,
            firstSync: account.subscriptionsSince == nil, deviceRegistered: registered)
        report.addedHere = applied.added.count
        report.removedHere = applied.removed.count
        report.podcastsRemoved = applied.removed
        report.actionsApplied = applied.applied
        report.actionsWaiting = applied.waiting
        report.podcastsToFetch = applied.added.filter(\.needsFetch).map(\.id)

        // Then send this device's changes: its subscription changes first (the server may
        // rewrite feed URLs, which the episode actions then carry), then its episode actions.
        // The batch read before the apply stands unless the apply changed which podcasts are
        // followed (only their actions are sent) or the server rewrote a feed URL.
        (report.addedThere, report.removedThere, report.rewrittenURLs) = try await sendSubscriptionChanges(
            client: client, device: account.device)
        var next = try await firstBatch
        if !applied.added.isEmpty || !applied.removed.isEmpty || report.rewrittenURLs > 0 {
            next = try await outgoingBatch(after: account.sentActionID, device: device)
        }
        // Once a batch has gone to the server, while the server reads it and answers (the slow
        // part), the one before it is acknowledged, then the next one read from the library and
        // written as JSON. Not sooner, and one after the other: sooner it delays sending the
        // batch, and both at once take the core a server on the same machine needs
        // (`Benchmarks/sync.py`, figures in `Benchmarks/README.md`). Uploads and
        // acknowledgements keep their order.
        var sent: Int64?
        while let current = next {
            let (handedOver, signal) = AsyncStream<Void>.makeStream()
            let previous = sent
            async let following = meanwhile(
                after: handedOver, acknowledging: previous, readingAfter: current.last, device: device)
            report.playedWithoutLength += current.playedWithoutLength
            do {
                if !current.actions.isEmpty {
                    try await upload(
                        current.actions, encoded: current.body, client: client, report: &report,
                        handedOver: { signal.finish() })
                }
            } catch {
                // The batch before this one is acknowledged all the same.
                signal.finish()
                _ = try? await following
                throw error
            }
            signal.finish()
            sent = current.last
            next = try await following
        }
        try await acknowledgeActions(upTo: sent)
        return report
    }

    /// What the sync does while a batch is with the server, once `handedOver` ends: it
    /// acknowledges the actions up to `acknowledged` and reads the batch after `last`. When none
    /// is left, it also copies the library's log into the database file, so that closing the
    /// library after the last answer has only the last acknowledgement to copy (the copy and
    /// its syncs to disk would otherwise be paid for while closing).
    private func meanwhile(
        after handedOver: AsyncStream<Void>, acknowledging acknowledged: Int64?, readingAfter last: Int64, device: String?
    ) async throws -> OutgoingBatch? {
        for await _ in handedOver {}
        try await acknowledgeActions(upTo: acknowledged)
        let batch = try await outgoingBatch(after: last, device: device)
        if batch == nil { await library.checkpoint(emptyingLog: false) }
        return batch
    }

    /// Records that the server has the local actions up to `id`, if any.
    private func acknowledgeActions(upTo id: Int64?) async throws {
        if let id { try await library.acknowledgeActions(upTo: id) }
    }

    /// Registers the device on its first sync with gpodder.net (a device of the account, the
    /// phone's joined with --device, keeps its caption); returns whether this sync did (the
    /// library records it with what the sync receives).
    private func registerDevice(_ account: SyncAccount, client: SyncClient, caption: String) async throws -> Bool {
        guard client.dialect == .gpodder && !account.deviceRegistered else { return false }
        if try await !client.devices().contains(where: { $0.id == account.device }) {
            try await client.registerDevice(account.device, caption: caption)
        }
        return true
    }

    /// Sends the subscription changes made here since the last sync; returns how many adds and
    /// removes went, and how many feed URLs the server rewrote.
    private func sendSubscriptionChanges(client: SyncClient, device: String) async throws -> (
        added: Int, removed: Int, rewritten: Int
    ) {
        let changes = try await library.subscriptionChangesToSend()
        guard !changes.add.isEmpty || !changes.remove.isEmpty else {
            if changes.upTo > 0 { _ = try await library.acknowledgeSubscriptionChanges(upTo: changes.upTo, rewrites: []) }
            return (0, 0, 0)
        }
        let result = try await client.uploadSubscriptionChanges(device: device, add: changes.add, remove: changes.remove)
        let rewritten = try await library.acknowledgeSubscriptionChanges(upTo: changes.upTo, rewrites: result.updateURLs)
        return (changes.add.count, changes.remove.count, rewritten)
    }

    /// The local actions to send after the action `id`, at most ``batchSize`` of them.
    private struct OutgoingBatch: Sendable {
        /// The id of the last action the batch covers (sent or not).
        var last: Int64
        var actions: [SyncWire.SentAction] = []
        /// The actions as the upload sends them.
        var body = Data()
        /// Played marks left out because the episode's length is known neither from its feed
        /// nor from a downloaded file.
        var playedWithoutLength = 0
    }

    /// The next batch after the action `id`; nil when nothing is left to send.
    private func outgoingBatch(after id: Int64, device: String?) async throws -> OutgoingBatch? {
        let window = try await library.unsentActions(after: id, limit: Self.batchSize)
        guard let last = window.last else { return nil }
        var batch = OutgoingBatch(last: last.id)
        for unsent in window where unsent.isShareable {
            var total = unsent.duration
            if total == nil, let file = unsent.file {
                // A played mark whose feed gives no length: the downloaded file's own.
                total = try await OffPool.run { MediaDuration.seconds(ofFileAt: file) }.map { Int($0.rounded()) }
            }
            let sent = SyncWire.SentAction(unsent.action, device: device, total: total)
            if unsent.action.kind == .play && sent.position == nil {
                batch.playedWithoutLength += 1
                continue
            }
            batch.actions.append(sent)
        }
        if !batch.actions.isEmpty { batch.body = SyncWire.SentAction.json(batch.actions) }
        return batch
    }

    /// Uploads a batch; a batch the server refuses (4xx) is halved until the actions it
    /// refuses are found, which are reported and dropped, so that one bad action never
    /// blocks the rest of the queue.
    private func upload(
        _ batch: [SyncWire.SentAction], encoded body: Data? = nil, client: SyncClient, report: inout SyncReport,
        handedOver: @escaping @Sendable () -> Void = {}
    ) async throws {
        switch try await client.uploadEpisodeActions(body ?? SyncWire.SentAction.json(batch), handedOver: handedOver) {
        case .accepted:
            report.actionsSent += batch.count
        case .refused(let status):
            guard batch.count > 1 else {
                report.actionsRefused += 1
                report.refusalStatus = status
                if report.refusedActions.count < 10 { report.refusedActions.append("\(batch[0].action) \(batch[0].episode)") }
                return
            }
            let middle = batch.count / 2
            try await upload(Array(batch[..<middle]), client: client, report: &report)
            try await upload(Array(batch[middle...]), client: client, report: &report)
        }
    }
}

extension Synchronizer {
    /// Syncs (see ``sync(_:caption:login:)``), then finishes what the sync leaves to do: the
    /// feeds of the subscriptions it added are fetched (a failure stays with its podcast, as an
    /// update's does), and the unfinished downloads of those it removed are cancelled through
    /// the removal `removal` makes (asked for only then: it reads the whole progress buffer).
    /// Returns the report and the updates of the feeds fetched.
    public func syncAndFinish(
        _ account: SyncAccount, caption: String, login: SyncLogin? = nil,
        removal: () async throws -> SubscriptionRemoval
    ) async throws -> (report: SyncReport, updates: [PodcastUpdate]) {
        let report = try await sync(account, caption: caption, login: login)
        var updates: [PodcastUpdate] = []
        if !report.podcastsToFetch.isEmpty {
            let wanted = Set(report.podcastsToFetch)
            let summaries = try await library.subscriptions().filter { wanted.contains($0.podcast.id) }
            updates = await FeedUpdater(library: library, session: session).update(summaries)
        }
        if !report.podcastsRemoved.isEmpty {
            let removal = try await removal()
            for podcast in report.podcastsRemoved { try await removal.cancelUnfinishedDownloads(of: podcast) }
        }
        return (report, updates)
    }
}
