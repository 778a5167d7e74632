import Foundation

/// The size of a regular file at `path`; nil when there is none (a folder is not a file).
func fileSize(atPath path: String) -> Int64? {
    var status = stat()
    guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(status.st_size)
}
