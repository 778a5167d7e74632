#ifndef CSQLITE_SETTINGS_H
#define CSQLITE_SETTINGS_H

/// Turns off SQLite's memory statistics, which take a process-wide lock on every allocation
/// SQLite makes (`sqlite3_config` is variadic, so Swift cannot call it). Returns SQLITE_OK, or
/// SQLITE_MISUSE once SQLite is in use (then nothing changes). Not thread-safe: call it before
/// any thread uses SQLite.
int csqlite_disable_memory_statistics(void);

#endif
