import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps a library private to its user, as ssh and gpg keep theirs: it holds private feeds'
/// URLs with their tokens and the sync account. The folder is 0700 and the database with its
/// log and shared-memory files 0600, whatever the umask; the episodes keep the umask's modes.
enum LibraryPrivacy {
    static let folderMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    /// The suffixes of the files SQLite keeps beside a database in WAL mode.
    static let companionSuffixes = ["-wal", "-shm"]

    /// Makes `directory` and the database at `databasePath` (creating both when missing)
    /// private; returns the paths of those that existed with looser modes and were tightened.
    /// The database file is made before SQLite opens it because SQLite gives its log and
    /// shared-memory files the database file's mode.
    static func secure(directory: URL, databasePath: String) throws -> [String] {
        var tightened: [String] = []
        var made = mkdir(directory.path, folderMode) == 0
        if !made && errno == ENOENT {
            try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            made = mkdir(directory.path, folderMode) == 0
        }
        if !made, try tighten(directory.path, to: folderMode) { tightened.append(directory.path) }
        // mkdir's mode passed through the umask; the folder is private whatever it was.
        _ = chmod(directory.path, folderMode)
        let created = open(databasePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if created >= 0 {
            _ = fchmod(created, fileMode)
            close(created)
        } else if errno == EEXIST {
            for path in [databasePath] + companionSuffixes.map({ databasePath + $0 }) where try tighten(path, to: fileMode) {
                tightened.append(path)
            }
        } else {
            throw LibraryError.unusableDatabase(path: databasePath, detail: String(cString: strerror(errno)))
        }
        return tightened
    }

    /// Takes away from `path` every permission `mode` does not give; whether it had any (false
    /// for a file that does not exist).
    private static func tighten(_ path: String, to mode: mode_t) throws -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let current = status.st_mode & 0o7777
        guard current & ~mode != 0 else { return false }
        guard chmod(path, current & mode) == 0 else {
            throw LibraryError.unusableDatabase(path: path, detail: String(cString: strerror(errno)))
        }
        return true
    }
}
