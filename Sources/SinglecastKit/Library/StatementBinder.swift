import GRDB
import GRDBSQLite

/// Binds values to a statement's consecutive parameters, then runs it, with SQLite's C API:
/// the one piece of the library that goes around GRDB, for the two statements that run once
/// per episode in bulk, where GRDB costs more.
///
/// - Saving a feed (``EpisodeColumns``). Measured on November 25, 2026 with
///   `Benchmarks/ab.py BINDER_BUILD GRDB_BUILD --runs 21` (21 interleaved rounds, medians):
///   saving a 20,000-item feed into a new library, `episodes FILE --json`, took 0.393 s
///   (0.37 s CPU) with this binder and 0.463 s (0.44 s CPU) with
///   `statement.setUncheckedArguments(StatementArguments(values))` and `execute()`, 15 % more
///   wall time and 19 % more CPU; `execute(arguments:)` was 17 % and 19 % slower. In a
///   profile the difference lies in GRDB's binding of text, which copies each string into a
///   new C string (`utf8CString`) that SQLite then measures and copies again; this binder
///   hands SQLite the string's own bytes with their length. (Reading rows with GRDB's
///   `Row.fetchCursor` instead of a reader of our own was within 2 % on every figure of the
///   same benchmark, so listings use it.)
/// - Changing an episode's playback (``Library/changePlayback(episodeID:_:at:recordsAction:db:)``),
///   which a sync runs for every action it receives. Measured the same day, 11 interleaved
///   rounds of the receiving sync of `Benchmarks/sync.py` (10,000 actions applied), medians:
///   66.6 ms with this binder, 73.8 ms with GRDB's `execute(arguments:)` of the same
///   statements, 11 % more.
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
