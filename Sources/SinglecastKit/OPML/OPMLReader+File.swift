import Foundation

extension OPMLReader {
    /// Reads the OPML file at `file` (on the blocking-IO threads).
    public static func read(file: URL) async throws -> OPMLDocument {
        try await OffPool.run {
            let data: Data
            do {
                let handle = try FileHandle(forReadingFrom: file)
                defer { try? handle.close() }
                data = try handle.readToEnd() ?? Data()
            } catch {
                let detail = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)
                    .map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
                throw OPMLError.unreadable(source: file.path, detail: detail)
            }
            return try parse(data, source: file.path)
        }
    }
}
