import Foundation
import Testing

@testable import SinglecastKit

@Suite struct LibraryPrivacyTests {
    static func mode(_ path: String) -> mode_t {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return status.st_mode & 0o7777
    }

    static func temporaryFolder() throws -> URL {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("privacy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        return parent
    }

    @Test func aNewLibraryIsPrivateWhateverTheUmask() async throws {
        let parent = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("deeper/singlecast")
        let library = try await Library.open(directory: directory)
        try await library.replaceSearchResults([])
        let database = Library.databasePath(in: directory)
        #expect(Self.mode(directory.path) == 0o700)
        #expect(Self.mode(database) == 0o600)
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
        #expect(Self.mode(database + "-wal") == 0o600)
        #expect(Self.mode(database + "-shm") == 0o600)
        #expect(library.tightenedPaths.isEmpty)
        try await library.close()
    }

    @Test func anExistingLibraryIsTightenedOnOpenAndSaysWhat() async throws {
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Library.open(directory: directory).close()
        let database = Library.databasePath(in: directory)
        chmod(directory.path, 0o755)
        chmod(database, 0o644)
        let opened = try await Library.open(directory: directory)
        #expect(opened.tightenedPaths == [directory.path, database])
        #expect(Self.mode(directory.path) == 0o700)
        #expect(Self.mode(database) == 0o600)
        try await opened.close()
        let again = try await Library.open(directory: directory)
        #expect(again.tightenedPaths.isEmpty)
        try await again.close()
    }
}
