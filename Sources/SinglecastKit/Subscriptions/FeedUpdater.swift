import Foundation
import Synchronization

/// How one subscription's update went.
public struct PodcastUpdate: Sendable {
    /// The podcast as stored after the update.
    public var podcast: StoredPodcast
    public var status: UpdateStatus
    /// The episodes the update added.
    public var addedCount: Int
    /// How many of them `new` lists: all in an update, only the most recent in a
    /// subscription's first fetch.
    public var newCount = 0
    /// Problems the parser recovered from.
    public var warnings: [FeedWarning]
}

/// Refreshes subscriptions: feeds fetched concurrently (a bounded number of connections in
/// all and per host), each body parsed as it arrives, conditional requests that cost nothing
/// when a feed has not changed, moves followed, and failures kept to the podcast they concern.
public struct FeedUpdater: Sendable {
    public let library: Library
    public let session: HTTPSession
    /// How many feeds are fetched at once.
    public var maximumConnections = 8
    /// How many feeds of one host are fetched at once.
    public var maximumPerHost = 2

    public init(library: Library, session: HTTPSession) {
        self.library = library
        self.session = session
    }

    /// Updates `subscriptions` (those gone are skipped), calling `progress` as each finishes,
    /// and returns the updates in the order given.
    public func update(
        _ subscriptions: [PodcastSummary], progress: @escaping @Sendable (PodcastUpdate) -> Void = { _ in }
    ) async -> [PodcastUpdate] {
        let hosts = HostLimiter(limit: maximumPerHost)
        let active = subscriptions.filter { $0.podcast.subscription?.isGone != true }
        // Their saves copy the log into the database file once, at the end.
        let results = await library.savingFeeds {
            await withTaskGroup(of: (Int, PodcastUpdate).self) { group in
                var next = 0
                func startNext() {
                    guard next < active.count else { return }
                    let index = next
                    let summary = active[index]
                    next += 1
                    group.addTask {
                        let lease = await hosts.lease(URL(string: summary.podcast.feedKey)?.host ?? "")
                        // The host's connection is free once the body has arrived: the rest of the
                        // parse (for a small feed, all of it) and the save run without it.
                        let update = await self.update(summary, fetched: lease.release)
                        await lease.release()
                        return (index, update)
                    }
                }
                for _ in 0..<maximumConnections { startNext() }
                var results: [Int: PodcastUpdate] = [:]
                for await (index, update) in group {
                    results[index] = update
                    progress(update)
                    startNext()
                }
                return results
            }
        }
        return active.indices.compactMap { results[$0] }
    }

    /// Updates one subscription and records how it went; `fetched` runs once the feed's body
    /// has arrived, before it is saved.
    public func update(_ summary: PodcastSummary, fetched: @Sendable () async -> Void = {}) async -> PodcastUpdate {
        let podcast = summary.podcast
        let now = Date()
        var update = PodcastUpdate(podcast: podcast, status: .ok, addedCount: 0, warnings: [])
        var validators: FeedValidators?
        do {
            let outcome = try await fetchAndSave(summary, at: now, fetched: fetched)
            update.status = outcome.status
            validators = outcome.validators
            if let saved = outcome.saved {
                // The save recorded the update with the feed.
                update.podcast = saved.podcast
                update.addedCount = saved.addedCount
                update.newCount = saved.newCount
                update.warnings = saved.warnings
                return update
            }
        } catch let error as HTTPError where error.reason == .status(410) {
            update.status = .gone
        } catch {
            update.status = .failed(UpdateFailure(error))
        }
        let recorded = try? await library.recordUpdate(
            podcastID: podcast.id, UpdateResult(status: update.status, at: now), validators: validators)
        if let refreshed = recorded ?? nil { update.podcast = refreshed }
        return update
    }

    /// Fetches a subscription's feed (conditionally) and saves it, as it is parsed, when it
    /// changed, recording the update `now` with it. Returns the status, the validators to
    /// remember when nothing was saved, and the save.
    private func fetchAndSave(_ summary: PodcastSummary, at now: Date, fetched: @Sendable () async -> Void) async throws
        -> (status: UpdateStatus, validators: FeedValidators?, saved: SavedFeed?)
    {
        let podcast = summary.podcast
        func options(_ status: UpdateStatus) -> Library.SaveOptions {
            var options = saveOptions(summary)
            options.update = UpdateResult(status: status, at: now)
            return options
        }
        guard let url = URL(string: podcast.feedKey), !url.isFileURL else {
            var fileOptions = options(.ok)
            fileOptions.inOneTransaction = true
            let saved = try await library.saveFeed(feedKey: podcast.feedKey, options: fileOptions) { save in
                try await FeedLoader.load(file: URL(string: podcast.feedKey)!, episodes: { try await save.add($0) })
            }
            return (.ok, nil, saved)
        }
        let loader = FeedLoader(session: session)
        let body: FeedLoader.FeedBody
        switch try await loader.fetch(url, validators: summary.validators) {
        case .body(let fetched):
            body = fetched
        case .notModified(let permanentURL):
            // Unchanged, perhaps at a new URL (the everyday move from http to https): the move
            // is recorded all the same, so that later updates go there directly.
            let key = permanentURL.absoluteString
            guard key != podcast.feedKey else { return (.notModified, nil, nil) }
            try await library.recordMove(podcastID: podcast.id, to: key)
            return (.moved(from: podcast.feedKey, to: key), nil, nil)
        }
        let key = body.permanentURL.absoluteString
        let status: UpdateStatus = key == podcast.feedKey ? .ok : .moved(from: podcast.feedKey, to: key)
        let save = await library.beginSave(feedKey: key, options: options(status))
        do {
            let (feed, validators, sameBody) = try await body.parse(episodes: { try await save.add($0) }, received: fetched)
            // The publisher's word that the feed moved counts once the new URL serves a feed.
            if let announced = feed.podcast.newFeedURL, announced.absoluteString != key,
                case .body(let movedBody)? = try? await loader.fetch(announced, validators: nil),
                case let (moved, movedValidators, _)? = try? await movedBody.parse()
            {
                await save.discard()
                let movedKey = movedBody.permanentURL.absoluteString
                let movedStatus = UpdateStatus.moved(from: podcast.feedKey, to: movedKey)
                var movedOptions = options(movedStatus)
                movedOptions.validators = movedValidators
                let saved = try await library.saveFeed(moved, feedKey: movedKey, options: movedOptions)
                return (movedStatus, nil, saved)
            }
            if sameBody && key == podcast.feedKey {
                await save.discard()
                return (.notModified, validators, nil)
            }
            await save.remember(validators)
            return (status, nil, try await save.commit(feed))
        } catch {
            await save.discard()
            throw error
        }
    }

    /// How an update saves into the subscription: on its first fetch (an imported feed), only
    /// the most recent episode is marked new, as `subscribe` does; afterwards every episode
    /// the feed adds.
    private func saveOptions(_ summary: PodcastSummary) -> Library.SaveOptions {
        var options = Library.SaveOptions()
        options.makeCurrent = false
        options.newEpisodes =
            summary.episodeCount == 0 && summary.podcast.subscription?.lastSuccessAt == nil ? .mostRecent : .added
        options.podcastID = summary.podcast.id
        return options
    }
}

/// Lets at most `limit` tasks work with one host at a time; the others wait in order.
actor HostLimiter {
    private let limit: Int
    private var busy: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a place for `host`; the lease gives it back once.
    func lease(_ host: String) async -> HostLease {
        await acquire(host)
        return HostLease(host: host, limiter: self)
    }

    func acquire(_ host: String) async {
        if busy[host, default: 0] < limit {
            busy[host, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    func release(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            queue.removeFirst().resume()
            waiting[host] = queue
        } else {
            busy[host, default: 1] -= 1
        }
    }
}

/// One place taken from a ``HostLimiter``, given back by the first ``release()``.
final class HostLease: Sendable {
    private let host: String
    private let limiter: HostLimiter
    private let released = Mutex(false)

    init(host: String, limiter: HostLimiter) {
        self.host = host
        self.limiter = limiter
    }

    func release() async {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { await limiter.release(host) }
    }
}
