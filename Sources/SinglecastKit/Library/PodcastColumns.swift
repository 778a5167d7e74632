import Foundation
import GRDB

/// How a row of the `podcast` table becomes a ``StoredPodcast``: the columns a query selects
/// first (``selection``), read by position. GRDB finds a column by name by lowercasing and
/// hashing the name, for every column of every row, and `podcasts` reads 21 columns of each of
/// hundreds of subscriptions.
enum PodcastColumns {
    /// The columns, in the order ``selection`` lists them.
    enum Column: String, CaseIterable {
        case id, feedKey, title, link, description, author, imageURL, newFeedURL
        case subscribedAt, keepEpisodes, autoDownload, extras, queueNew, playbackSpeed
        case updateStatus, updateDetail, updatedAt, lastSuccessAt
        case etag, lastModified, bodyHash

        /// The column's position in a row that starts with ``selection``.
        var index: Int { PodcastColumns.columns.firstIndex(of: self)! }
    }

    private static let columns = Column.allCases

    /// `podcast.id, podcast.feedKey, …`: a query selects these first, its own columns after
    /// them (from position ``count``).
    static let selection = columns.map { "podcast.\($0.rawValue)" }.joined(separator: ", ")

    static var count: Int { columns.count }

    static func storedPodcast(from row: Row) -> StoredPodcast {
        let feedKey: String = row[Column.feedKey.index]
        let podcast = Podcast(
            title: row[Column.title.index], link: url(row, .link), description: row[Column.description.index],
            author: row[Column.author.index], imageURL: url(row, .imageURL),
            feedURL: feedKey.hasPrefix("file:") ? nil : URL(string: feedKey),
            newFeedURL: url(row, .newFeedURL))
        return StoredPodcast(
            id: row[Column.id.index], feedKey: feedKey, podcast: podcast, subscription: subscription(from: row),
            playbackSpeed: row[Column.playbackSpeed.index])
    }

    /// The validators of the feed's last response (for the next conditional fetch).
    static func validators(from row: Row) -> FeedValidators {
        FeedValidators(
            etag: row[Column.etag.index], lastModified: row[Column.lastModified.index],
            bodyHash: row[Column.bodyHash.index])
    }

    private static func subscription(from row: Row) -> Subscription? {
        guard let subscribedAt = date(row, .subscribedAt) else { return nil }
        var lastUpdate: UpdateResult?
        if let name: String = row[Column.updateStatus.index], let at = date(row, .updatedAt) {
            let detail: String? = row[Column.updateDetail.index]
            let status: UpdateStatus =
                switch name {
                case "ok": .ok
                case "not-modified": .notModified
                case "moved": .moved(from: detail ?? "", to: row[Column.feedKey.index])
                case "gone": .gone
                default: .failed(UpdateFailure.stored(detail ?? ""))
                }
            lastUpdate = UpdateResult(status: status, at: at)
        }
        return Subscription(
            keep: row[Column.keepEpisodes.index],
            autoDownload: AutoDownload(rawValue: row[Column.autoDownload.index] ?? "none") ?? .none,
            extras: row[Column.extras.index] ?? false, queuesNew: row[Column.queueNew.index] ?? false,
            subscribedAt: subscribedAt, lastUpdate: lastUpdate, lastSuccessAt: date(row, .lastSuccessAt))
    }

    private static func url(_ row: Row, _ column: Column) -> URL? {
        (row[column.index] as String?).flatMap(URL.init(string:))
    }

    private static func date(_ row: Row, _ column: Column) -> Date? {
        StoredDate.read(row[column.index])
    }
}
