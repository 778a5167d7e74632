import Foundation
import Synchronization

/// Notices writes to the library by any process (the command line in another terminal, the
/// daemon, this UI): SQLite appends every commit to the write-ahead log, so a change of the
/// log's or the database's modification time or size means there is something new to read.
/// It looks twice a second on a thread of its own (`stat` is a file-system call).
final class LibraryWatch: Sendable {
    private let stopped = Mutex(false)

    /// Starts watching the library in `directory`, calling `onChange` after each change.
    static func start(directory: URL, onChange: @escaping @Sendable () -> Void) -> LibraryWatch {
        let watch = LibraryWatch()
        let files = ["library.sqlite", "library.sqlite-wal"].map { directory.appendingPathComponent($0).path }
        let thread = Thread {
            var last = Self.signature(files)
            while !watch.stopped.withLock({ $0 }) {
                usleep(500_000)
                let current = Self.signature(files)
                if current != last {
                    last = current
                    onChange()
                }
            }
        }
        thread.name = "library watch"
        thread.start()
        return watch
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    /// The files' modification times and sizes.
    private static func signature(_ files: [String]) -> [Int] {
        files.flatMap { path -> [Int] in
            var info = stat()
            guard stat(path, &info) == 0 else { return [0, 0, 0] }
            return [info.st_mtim.tv_sec, info.st_mtim.tv_nsec, Int(info.st_size)]
        }
    }
}
