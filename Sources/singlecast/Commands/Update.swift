import ArgumentParser
import Foundation
import SinglecastKit
import Synchronization

extension Singlecast {
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Refresh subscriptions and show how many episodes are new.",
            discussion: """
                Feeds are fetched concurrently (8 connections, 2 per host) with conditional \
                requests, so an unchanged feed costs one round trip. With --download, the new \
                episodes of subscriptions whose policy is `--auto new` are downloaded (all new \
                episodes of the podcasts named, when some are), with their transcripts and chapters \
                for subscriptions with `--extras`. The systemd timer runs `update --if-due \
                --changes-only` every 15 minutes: it updates once the config file's [update] every has \
                passed since the last timed update, and names only the podcasts that changed or failed. \
                Exit status: 0 when every feed updated, 1 when any failed.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Subscriptions to update (@N, feed URL or part of the title); all by default.")
        var podcasts: [String] = []

        @Flag(inversion: .prefixedNo, help: "Download the new episodes afterwards (config: update.download).")
        var download: Bool?

        @Flag(help: "With --download: hand the episodes to the background daemon.")
        var background = false

        @Option(help: "With --download: how many downloads run at once (config: jobs).")
        var jobs: Int?

        @Flag(help: "Print the result of each update as JSON.")
        var json = false

        @Flag(
            help: """
                Update only once the set time has passed since the last update run with --if-due, as the \
                systemd timer runs it; else do nothing (config: update.every).
                """)
        var ifDue = false

        @Flag(help: "Name only the podcasts that changed or failed, without a summary, and a sync only when it changed something: nothing when nothing changed.")
        var changesOnly = false

        @Flag(
            inversion: .prefixedNo,
            help: "Sync with the remembered sync server before and after the update (see `singlecast sync`; config: update.sync).")
        var sync: Bool?

        func validate() throws {
            if background && download != true { throw ValidationError("--background goes with --download.") }
            if ifDue && !podcasts.isEmpty { throw ValidationError("--if-due updates every subscription: it takes no PODCAST.") }
            if changesOnly && json { throw ValidationError("--changes-only and --json do not go together.") }
            try JobsOption.validate(jobs)
        }

        /// EX_TEMPFAIL of `sysexits.h`: another update is running; try again later.
        static let temporaryFailureStatus: Int32 = 75

        func run() async throws {
            try await SignalGuard.runCancelling { [self] in try await update() }
        }

        private func update() async throws {
            let settings = try global.configuration(flags: [
                .updateDownload: ("--download", download.map(SettingValue.boolean)),
                .updateSync: ("--sync", self.sync.map(SettingValue.boolean)),
            ])
            let download = settings[.updateDownload].value?.boolean ?? false
            let sync = settings[.updateSync].value?.boolean ?? false
            let lock: UpdateLock
            do {
                lock = try await UpdateLock.acquire(libraryDirectory: global.libraryDirectory)
            } catch let running as AnotherUpdateIsRunning {
                printError("Error: \(Words.anotherUpdateIsRunning(running))")
                throw ExitCode(Self.temporaryFailureStatus)
            }
            defer { withExtendedLifetime(lock) {} }
            let library = try await global.openLibrary()
            let began = Date()
            if ifDue, !settings.updateSchedule.isDue(now: began, last: try await library.lastTimedUpdate()) { return }
            var named: Set<Int64>?
            if !podcasts.isEmpty {
                named = Set(try await library.podcasts(matching: podcasts.map { FeedReference($0) }).map { try $0.get().id })
            }
            let syncRun = sync ? try await SyncRun.prepare(global: global, library: library) : nil
            // With --json, the syncs' objects and the update's list go out as one document at the end.
            let oneDocument = json && syncRun != nil
            var synced = true
            var syncBefore: SyncRun.Outcome?
            if let syncRun {
                if oneDocument {
                    syncBefore = try await syncRun.perform()
                    synced = syncBefore?.succeeded ?? false
                } else {
                    synced = try await syncRun.sync(json: json, changesOnly: changesOnly)
                }
            }
            let results = try await SubscriptionUpdate(
                global: global, library: library, json: json, printsJSON: !oneDocument, changesOnly: changesOnly
            ).run(podcastIDs: named)
            if ifDue, UpdateSchedule.counts(results.map(\.status)) { try await library.recordTimedUpdate(at: began) }
            if download {
                let buffer = try await global.progressBuffer(library)
                // Files left by a lost database are taken back first: they are not fetched again.
                for update in results { try await buffer.adoptCompleteFiles(of: update.podcast) }
                let eligible = try await Self.eligible(library: library, named: named)
                if !eligible.isEmpty {
                    try await DownloadRun(global: global, jobs: jobs, json: json, background: background)
                        .start(eligible, buffer: buffer)
                }
            }
            if let syncRun {
                if oneDocument {
                    let syncAfter = try await syncRun.perform()
                    synced = (syncAfter?.succeeded ?? false) && synced
                    try printJSON(
                        UpdateSyncJSON(
                            syncBefore: syncBefore.map(syncRun.json), update: results.map(UpdateJSON.init),
                            syncAfter: syncAfter.map(syncRun.json)))
                } else {
                    synced = try await syncRun.sync(json: json, changesOnly: changesOnly) && synced
                }
            }
            if !synced || results.contains(where: { if case .failed = $0.status { true } else { false } }) {
                throw ExitCode.failure
            }
        }

        /// The new episodes `--download` fetches: not deleted, not complete, of podcasts whose
        /// policy is `new` (or of the podcasts named).
        static func eligible(library: Library, named: Set<Int64>?) async throws
            -> [DownloadRequest]
        {
            let listed = try await library.newEpisodes()
            return listed.compactMap { item -> DownloadRequest? in
                guard let enclosure = item.entry.episode.enclosure, !item.entry.isDeleted,
                    item.entry.download?.state != .completed
                else { return nil }
                let wanted = named.map { $0.contains(item.podcast.id) } ?? (item.podcast.subscription?.autoDownload == .new)
                guard wanted else { return nil }
                return DownloadRequest(
                    podcastTitle: item.podcast.podcast.title, episode: item.entry.episode, enclosure: enclosure,
                    fetchedByUpdate: true)
            }
        }
    }
}

/// Runs an update of subscriptions and reports it: a live line on a terminal, a line per
/// podcast when piped, JSON with --json, then a summary.
struct SubscriptionUpdate {
    var global: GlobalOptions
    var library: Library
    var json: Bool
    /// With `json`: print the list (else the caller prints it inside a document of its own).
    var printsJSON = true
    /// Print only the podcasts that changed or failed, and no summary.
    var changesOnly = false

    /// Updates the subscriptions with these ids (all of them when nil).
    func run(podcastIDs: Set<Int64>?) async throws -> [PodcastUpdate] {
        var summaries = try await library.subscriptions()
        if let podcastIDs { summaries = summaries.filter { podcastIDs.contains($0.podcast.id) } }
        let live = !json && !changesOnly && TTY.isTerminal(stdout: true)
        let counter = Mutex((done: 0, failed: 0))
        let total = summaries.count
        let results = try await withHTTPSession(global.httpConfiguration(compressed: true)) { session in
            await FeedUpdater(library: library, session: session).update(summaries) { update in
                let (done, failed) = counter.withLock { counter in
                    counter.done += 1
                    if case .failed = update.status { counter.failed += 1 }
                    return (counter.done, counter.failed)
                }
                for warning in update.warnings { printError("warning: \(Words.warning(warning))") }
                if live {
                    let failures = failed > 0 ? " … \(failed) failed" : ""
                    StandardStreams.write("\u{1B}[2K\rUpdating \(done) of \(total)\(failures)", to: STDOUT_FILENO)
                } else if !json && (!changesOnly || Self.isChange(update)) {
                    printNow(Self.line(update))
                }
            }
        }
        if json {
            if printsJSON { try printJSON(results.map(UpdateJSON.init)) }
            return results
        }
        if live {
            StandardStreams.write("\u{1B}[2K\r", to: STDOUT_FILENO)
            for update in results where Self.isChange(update) { printNow(Self.line(update)) }
        }
        if changesOnly { return results }
        let added = results.reduce(0) { $0 + $1.newCount }
        let failed = results.filter { if case .failed = $0.status { true } else { false } }.count
        printNow("Updated \(results.count) podcast\(results.count == 1 ? "" : "s"): \(added) new episode\(added == 1 ? "" : "s")"
            + (failed > 0 ? ", \(failed) failed" : ""))
        return results
    }

    /// Whether an update is worth a line when only changes are: new episodes, a move, a gone feed or a failure.
    static func isChange(_ update: PodcastUpdate) -> Bool {
        update.newCount > 0 || update.status != .ok && update.status != .notModified
    }

    /// `Title: 3 new`, `Title: not modified`, `Title: error: …`
    static func line(_ update: PodcastUpdate) -> String {
        let title = update.podcast.podcast.title.isEmpty ? update.podcast.feedKey.redactingURLPasswords : update.podcast.podcast.title
        switch update.status {
        case .ok: return "\(title): \(update.newCount) new"
        case .moved: return "\(title): \(update.newCount) new, \(Words.status(update.status))"
        case .failed(let failure): return "\(title): error: \(Words.failure(failure))"
        case .notModified, .gone: return "\(title): \(Words.status(update.status))"
        }
    }
}

/// The `--json` shape of one podcast's update.
/// `update --sync --json`: the sync before the update, the update's list, and the sync after,
/// in one document (a sync that failed is `null`; its error is on standard error).
struct UpdateSyncJSON: Encodable {
    var syncBefore: SyncJSON?
    var update: [UpdateJSON]
    var syncAfter: SyncJSON?

    enum CodingKeys: String, CodingKey { case syncBefore, update, syncAfter }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(syncBefore, forKey: .syncBefore)
        try container.encode(update, forKey: .update)
        try container.encode(syncAfter, forKey: .syncAfter)
    }
}

struct UpdateJSON: Encodable {
    var title: String
    var feedURL: String
    var status: String
    var new: Int
    /// Why it failed: in words, and as a value (`error.kind` and its details).
    var message: String?
    var error: UpdateFailure?
    var movedFrom: String?

    init(_ update: PodcastUpdate) {
        title = update.podcast.podcast.title
        feedURL = update.podcast.feedKey.redactingURLPasswords
        status = update.status.name
        new = update.newCount
        if case .failed(let failure) = update.status {
            message = Words.failure(failure)
            error = failure
        }
        if case .moved(let from, _) = update.status { movedFrom = from.redactingURLPasswords }
    }
}
