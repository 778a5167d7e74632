#ifndef CSQLITE_SETTINGS_H
#define CSQLITE_SETTINGS_H

/// Turns off SQLite's memory statistics, which take a process-wide lock on every allocation
/// SQLite makes (`sqlite3_config` is variadic, so Swift cannot call it). Returns SQLITE_OK, or
/// SQLITE_MISUSE once SQLite is in use (then nothing changes). Not thread-safe: call it before
/// any thread uses SQLite.
int csqlite_disable_memory_statistics(void);

/// Sets how large a statement journal (the pages one statement changed, kept to undo just that
/// statement) grows in memory before SQLite moves it to a temporary file. Returns as
/// `csqlite_disable_memory_statistics` does, under the same conditions.
int csqlite_set_statement_journal_spill(int bytes);

#endif
