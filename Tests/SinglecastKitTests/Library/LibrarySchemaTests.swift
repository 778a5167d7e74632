import Foundation
import GRDB
import Testing

@testable import SinglecastKit

@Suite struct LibrarySchemaTests {
    /// The script that makes what `db` holds, written as ``LibrarySchema/script`` is: the
    /// statements SQLite's schema table lists, in its order, without FTS5's shadow tables.
    private static func script(of db: Database) throws -> String {
        try String.fetchAll(
            db,
            sql: """
                SELECT sql || ';' FROM sqlite_master
                WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                  AND name NOT IN (SELECT name FROM pragma_table_list WHERE type = 'shadow')
                ORDER BY rowid
                """
        ).joined(separator: "\n")
    }

    /// What a database holds: its schema, as SQLite lists it, and the migrations it records.
    private func contents(_ database: DatabaseQueue) throws -> (schema: [String], migrations: [String]) {
        try database.read { db in
            (
                try String.fetchAll(
                    db, sql: "SELECT type || ' ' || name || ' ' || tbl_name || ': ' || IFNULL(sql, '') FROM sqlite_master ORDER BY type, name"),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            )
        }
    }

    /// A new library made by the script and one made by the migrations hold the same schema
    /// and record the same migrations; the script is the one the migrations' schema gives.
    @Test func theScriptBuildsWhatTheMigrationsBuild() throws {
        let migrated = try DatabaseQueue()
        try Library.migrator.migrate(migrated)
        let scripted = try DatabaseQueue()
        try scripted.writeWithoutTransaction(LibrarySchema.createIfEmpty)
        #expect(try contents(scripted).migrations == LibrarySchema.migrations)
        try Library.migrator.migrate(scripted)
        let (schema, migrations) = try contents(migrated)
        #expect(schema.count > 40)
        #expect(try contents(scripted).schema == schema)
        #expect(try contents(scripted).migrations == migrations)
        let script = try migrated.read(Self.script(of:))
        #expect(script == LibrarySchema.script, "LibrarySchema.script should be:\n\(script)")
    }

    /// The script holds every migration: one added since is run on each new library, one at
    /// a time, until the script is made again.
    @Test func theScriptHoldsEveryMigration() {
        #expect(LibrarySchema.migrations == Library.migrator.migrations)
    }

    /// A database that holds anything is left to the migrations, which take it from where it is.
    @Test func aDatabaseThatIsNotEmptyIsLeftToTheMigrations() throws {
        let partly = try DatabaseQueue()
        try Library.migrator.migrate(partly, upTo: "v3")
        try partly.writeWithoutTransaction(LibrarySchema.createIfEmpty)
        #expect(try contents(partly).migrations == ["v1", "v2", "v3"])
        try Library.migrator.migrate(partly)
        let migrated = try DatabaseQueue()
        try Library.migrator.migrate(migrated)
        #expect(try contents(partly).schema == contents(migrated).schema)
    }

    /// A library opened in a new folder is made by the script, and opens again as it was.
    @Test func aNewLibraryIsMadeByTheScript() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("singlecast-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try await Library.open(directory: folder)
        let saved = try await library.saveFeed(Feed(podcast: Podcast(title: "Show"), episodes: [Episode(title: "One")]), feedKey: "k")
        try await library.close()
        let reopened = try await Library.open(directory: folder)
        #expect(try await reopened.episodes(podcastID: saved.podcast.id).map(\.episode.title) == ["One"])
        let script = try await reopened.writer.read(Self.script(of:))
        #expect(script == LibrarySchema.script)
    }
}
