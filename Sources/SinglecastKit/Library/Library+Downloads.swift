import Foundation
import GRDB

/// What happened when a process asked to own an episode's download.
public enum DownloadClaim: Equatable, Sendable {
    /// The caller owns the download now; the record is in the waiting state.
    case claimed(DownloadRecord)
    /// The file is already complete.
    case alreadyDownloaded(DownloadRecord)
    /// Another live process owns it.
    case ownedElsewhere(DownloadRecord)
}

extension Library {
    /// Every entry of the progress buffer, oldest first.
    public func downloads() throws -> [DownloadRecord] {
        try writer.read { db in try DownloadRecord.order(Column("id")).fetchAll(db) }
    }

    /// The entry for one enclosure URL, if it was ever asked for.
    public func download(enclosureURL: String) throws -> DownloadRecord? {
        try writer.read { db in
            try DownloadRecord.filter(DownloadRecord.Columns.enclosureURL == enclosureURL).fetchOne(db)
        }
    }

    /// The entry with the given id.
    public func download(id: Int64) throws -> DownloadRecord? {
        try writer.read { db in try DownloadRecord.fetchOne(db, key: id) }
    }

    /// Makes `processID` the one owner of the download of `candidate.enclosureURL`, in one
    /// transaction, unless the file is complete or a live process already owns it.
    /// `isAlive` tells whether a recorded owner still runs; `completeFileSize` gives the size of
    /// a complete file at a path (nil when there is none); `chooseFile` names the file for a new
    /// entry, given the files other entries already use.
    public func claimDownload(
        _ candidate: DownloadRecord,
        processID: Int32,
        isAlive: (Int32) -> Bool,
        completeFileSize: (String) -> Int64?,
        chooseFile: (_ filesInUse: Set<String>) -> String
    ) throws -> DownloadClaim {
        try writer.write { db in
            if var existing = try DownloadRecord
                .filter(DownloadRecord.Columns.enclosureURL == candidate.enclosureURL).fetchOne(db)
            {
                if [.waiting, .downloading].contains(existing.state), let owner = existing.ownerPID {
                    if owner == processID { return .claimed(existing) }
                    if isAlive(owner) { return .ownedElsewhere(existing) }
                }
                if let size = completeFileSize(existing.file) {
                    if existing.state == .completed, existing.receivedBytes == size {
                        return .alreadyDownloaded(existing)
                    }
                    existing.state = .completed
                    existing.receivedBytes = size
                    existing.expectedBytes = size
                    existing.ownerPID = nil
                    existing.updatedAt = Date()
                    try existing.update(db)
                    return .alreadyDownloaded(existing)
                }
                existing.state = .waiting
                existing.ownerPID = processID
                existing.message = nil
                existing.background = candidate.background
                existing.mediaType = candidate.mediaType ?? existing.mediaType
                existing.episodeTitle = candidate.episodeTitle
                existing.updatedAt = Date()
                try existing.update(db)
                return .claimed(existing)
            }
            let filesInUse = Set(try String.fetchAll(db, sql: "SELECT file FROM download"))
            var record = candidate
            record.file = chooseFile(filesInUse)
            record.updatedAt = Date()
            if let size = completeFileSize(record.file) {
                record.state = .completed
                record.receivedBytes = size
                record.expectedBytes = size
                record.ownerPID = nil
                try record.insert(db)
                return .alreadyDownloaded(record)
            }
            record.state = .waiting
            record.ownerPID = processID
            try record.insert(db)
            return .claimed(record)
        }
    }

    /// Inserts `record` unless an entry already has its enclosure URL or its file; returns it
    /// as inserted, or nil.
    public func insertIfNew(_ record: DownloadRecord) throws -> DownloadRecord? {
        try writer.write { db in
            var record = record
            try record.insert(db, onConflict: .ignore)
            return db.changesCount > 0 ? record : nil
        }
    }

    /// Saves how far a download has got. Returns false when the entry is no longer waiting or
    /// downloading because another process paused or cancelled it: the owner should stop.
    @discardableResult
    public func recordProgress(
        id: Int64, receivedBytes: Int64, expectedBytes: Int64?, bytesPerSecond: Double? = nil
    ) throws -> Bool {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE download SET state = 'downloading', receivedBytes = ?,
                      expectedBytes = COALESCE(?, expectedBytes), bytesPerSecond = ?, updatedAt = ?
                    WHERE id = ? AND state IN ('waiting', 'downloading')
                    """,
                arguments: [receivedBytes, expectedBytes, bytesPerSecond, Date(), id])
            return db.changesCount > 0
        }
    }

    /// Saves a download's new state; owners are released unless it is waiting or downloading.
    public func recordState(
        id: Int64, _ state: DownloadState, receivedBytes: Int64? = nil, expectedBytes: Int64? = nil,
        file: String? = nil, message: String? = nil
    ) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE download SET state = ?, receivedBytes = COALESCE(?, receivedBytes),
                      expectedBytes = COALESCE(?, expectedBytes), file = COALESCE(?, file),
                      message = ?, bytesPerSecond = NULL, updatedAt = ?,
                      ownerPID = CASE WHEN ? IN ('waiting', 'downloading') THEN ownerPID ELSE NULL END
                    WHERE id = ?
                    """,
                arguments: [state.rawValue, receivedBytes, expectedBytes, file, message, Date(), state.rawValue, id])
        }
    }

    /// Rewrites every entry through `reconcile` in one transaction (the buffer rebuild).
    public func reconcileDownloads(_ reconcile: (DownloadRecord) -> DownloadRecord) throws {
        try writer.write { db in
            for record in try DownloadRecord.fetchAll(db) {
                let updated = reconcile(record)
                if updated != record { try updated.update(db) }
            }
        }
    }
}
