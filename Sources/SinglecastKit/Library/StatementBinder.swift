import GRDB
import GRDBSQLite

/// Binds values to a statement's consecutive parameters, then runs it, with SQLite's C API:
/// the one piece of the library that goes around GRDB, for the statements that run once per
/// episode in bulk, where GRDB costs more.
///
/// - Saving a feed (``EpisodeColumns``): GRDB's binding of text copies each string into a new
///   C string that SQLite then measures and copies again, where this binder hands SQLite the
///   string's own bytes with their length. (Reading rows with GRDB's `Row.fetchCursor` costs
///   no more than a reader of our own, so listings use it.)
/// - Indexing for search (``FindIndex``): the text of every episode and transcript, a third of
///   a gigabyte in a large library.
/// - Changing an episode's playback (``Library/changePlayback(episodeID:_:at:recordsAction:db:)``),
///   which a sync runs for every action it receives.
///
/// The figures (`Benchmarks/ab.py`, `Benchmarks/sync.py`) are in `Benchmarks/README.md`.
///
/// Statements run this way skip GRDB's per-statement bookkeeping (its argument validation and
/// transaction observers); the library registers no observer.
struct StatementBinder {
    let handle: SQLiteStatement
    var index: Int32 = 1

    /// SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(statement: Statement) {
        handle = statement.sqliteStatement
        sqlite3_reset(handle)
    }

    /// Binds `values` to `statement` and runs it.
    static func execute(_ statement: Statement, _ values: DatabaseValue...) throws {
        var binder = StatementBinder(statement: statement)
        for value in values { binder.bind(value) }
        try binder.execute()
    }

    mutating func bind(_ value: DatabaseValue) {
        switch value.storage {
        case .string(var text):
            // With its length: SQLite need not measure a description of kilobytes again.
            text.withUTF8 { bytes in
                guard let start = bytes.baseAddress else {
                    _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)  // a null pointer binds NULL
                    return
                }
                start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    _ = sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                }
            }
        case .int64(let number): sqlite3_bind_int64(handle, index, number)
        case .double(let number): sqlite3_bind_double(handle, index, number)
        case .null: sqlite3_bind_null(handle, index)
        case .blob: _ = value.bind(to: handle, at: index)
        }
        index += 1
    }

    func execute() throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
    }
}
