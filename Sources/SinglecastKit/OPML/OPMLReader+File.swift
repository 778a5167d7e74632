import Foundation

extension OPMLReader {
    /// Reads the OPML file at `file` (on the blocking-IO threads).
    public static func read(file: URL) async throws -> OPMLDocument {
        try await OffPool.run {
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw OPMLError.unreadable(source: file.path, errno: errno) }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            let data: Data
            do {
                data = try handle.readToEnd() ?? Data()
            } catch {
                // A folder, or a read that failed after the open.
                throw OPMLError.unreadable(source: file.path, errno: Self.errorNumber(of: error) ?? EIO)
            }
            return try parse(data, source: file.path)
        }
    }

    /// The system error number behind a Foundation file error, when it has one.
    private static func errorNumber(of error: any Error) -> Int32? {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying.map { Int32($0.code) } ?? ((error as NSError).domain == NSPOSIXErrorDomain ? Int32((error as NSError).code) : nil)
    }
}
