import Foundation
import Testing
import TestSupport

@Suite struct ConfigCommandTests {
    @Test func withoutAFileEverySettingShowsItsDefault() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        let result = try await cli.run(["config"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Setting") == true)
        #expect(lines.contains { $0.hasPrefix("jobs ") && $0.hasSuffix("  default") && $0.contains(" 3 ") })
        #expect(lines.contains { $0.hasPrefix("episodes-folder ") && $0.contains(cli.episodesDirectory.path) })
        #expect(lines.contains { $0.hasPrefix("update.every ") && $0.contains("hourly") })
        #expect(lines.contains { $0.hasPrefix("player-mpris ") && $0.contains(" true ") && $0.hasSuffix("  default") })
    }

    @Test func theJSONNamesEachValueAndItsSourceWithTheLine() async throws {
        var cli = try CLI()
        defer { cli.removeHome() }
        try cli.writeConfig("# downloads\njobs = 5\n[sync]\nuser = \"alice\"\n")
        cli.environment["SINGLECAST_GIVE_UP_AFTER"] = "2h"
        let result = try await cli.run(["config", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["file"] as? String == cli.configFile.path)
        #expect(object["exists"] as? Bool == true)
        let settings = try #require(object["settings"] as? [[String: Any]])
        func setting(_ key: String) -> [String: Any]? { settings.first { $0["key"] as? String == key } }
        #expect(setting("jobs")?["value"] as? Int == 5)
        #expect(setting("jobs")?["source"] as? String == "file")
        #expect(setting("jobs")?["line"] as? Int == 2)
        #expect(setting("sync.user")?["line"] as? Int == 4)
        #expect(setting("give-up-after")?["source"] as? String == "environment")
        #expect(setting("give-up-after")?["name"] as? String == "SINGLECAST_GIVE_UP_AFTER")
        #expect(setting("speed")?["source"] as? String == "default")
        #expect(setting("on-complete")?["value"] is NSNull)
    }

    @Test func aBadFileStopsEveryCommandBeforeItDoesAnything() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        try cli.writeConfig(try String(contentsOf: Fixtures.url("config/wrong-type.toml"), encoding: .utf8))
        let result = try await cli.run(["podcasts"])
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: \(cli.configFile.path):2:1: episodes-folder: expected a string, found an integer\n")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("library.sqlite").path))
        #expect(try await cli.run(["config"]).status == 78)
        // The path is still told, and help still shown.
        #expect(try await cli.run(["config", "--path"]).stdout == cli.configFile.path + "\n")
        #expect(try await cli.run(["podcasts", "--help"]).status == 0)
        #expect(try await cli.run(["--generate-completion-script", "bash"]).status == 0)
    }

    @Test func anUnknownKeyIsAWarningWithTheNearestKey() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        try cli.writeConfig("episode-folder = \"~/Podcasts\"\n")
        let result = try await cli.run(["podcasts"])
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "warning: \(cli.configFile.path):1: unknown key \"episode-folder\" (did you mean \"episodes-folder\"?)\n")
    }

    @Test func aBadKeyBindingIsAnErrorNamingItsLine() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        try cli.writeConfig(try String(contentsOf: Fixtures.url("config/key-bound-twice.toml"), encoding: .utf8))
        let twice = try await cli.run(["podcasts"])
        #expect(twice.status == 78)
        #expect(
            twice.stderr
                == "Error: \(cli.configFile.path):2:1: ui.keys.forward: the key b is bound to both back and forward: give one of them other keys\n")
        try cli.writeConfig(try String(contentsOf: Fixtures.url("config/unknown-action.toml"), encoding: .utf8))
        let unknown = try await cli.run(["podcasts"])
        #expect(unknown.status == 78)
        #expect(unknown.stderr.contains("ui.keys.forwrd: \u{201C}forwrd\u{201D} is not known (did you mean \u{201C}forward\u{201D}?)"))
    }

    @Test func initWritesEveryDefaultOnceAndTheFileReadsBackWhenUncommented() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        let first = try await cli.run(["config", "--init"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "wrote \(cli.configFile.path)\n")
        let written = try String(contentsOf: cli.configFile, encoding: .utf8)
        let again = try await cli.run(["config", "--init"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("\(cli.configFile.path) exists"))
        #expect(try String(contentsOf: cli.configFile, encoding: .utf8) == written)
        // Every setting is there; uncommented, the file is valid and changes nothing.
        for key in ["episodes-folder", "file-name", "jobs", "give-up-after", "player-options", "player-mpris", "skip-back", "keep", "on-complete",
            "server", "api", "every", "quit", "accent"]
        {
            #expect(written.contains("\n# \(key) = "), "\(key)")
        }
        let uncommented = written.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("# ") && line.contains(" = ") && !line.contains("\"\"") ? String(line.dropFirst(2)) : String(line)
        }
        try cli.writeConfig(uncommented.joined(separator: "\n"))
        let shown = try await cli.run(["config"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stderr.isEmpty)
        #expect(shown.stdout.contains("file \(cli.configFile.path):"))
    }

    @Test func downloadsGoWhereTheFileSaysNamedByItsTemplate() async throws {
        let show = try await LoopbackShow.start()
        let elsewhere = show.cli.home.appendingPathComponent("Podcasts", isDirectory: true)
        try show.cli.writeConfig("episodes-folder = \"\(elsewhere.path)\"\nfile-name = \"{podcast}/{date} {title}\"\n")
        #expect(try await show.cli.run(["episodes", show.feedURL]).status == 0)
        let result = try await show.cli.run(["download", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let file = elsewhere.appendingPathComponent("Loopback Radio/2024-07-01 Episode One.mp3")
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(result.stdout.contains("done: \(file.path)"))
        try await show.stop()
    }

    @Test func aValueTheSettingDoesNotTakeIsAnError() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        try cli.writeConfig("jobs = 2\ngive-up-after = \"soon\"\n")
        let result = try await cli.run(["download", "1"])
        #expect(result.status == 78)
        #expect(
            result.stderr
                == "Error: \(cli.configFile.path):2:1: give-up-after: expected a duration such as 90s, 10m or 24h, found \"soon\"\n")
    }

    @Test func getPrintsOneValueAlone() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        try cli.writeConfig("[update]\nevery = \"daily\"\n")
        #expect(try await cli.run(["config", "--get", "update.every"]).stdout == "daily\n")
        #expect(try await cli.run(["config", "--get", "jobs"]).stdout == "3\n")
        let unknown = try await cli.run(["config", "--get", "update.evry"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("\u{201C}update.evry\u{201D} is no setting (did you mean \u{201C}update.every\u{201D}?)"))
    }

    @Test func helpNamesTheSettingBesideEachFlagThatHasOne() async throws {
        let cli = try CLI()
        defer { cli.removeHome() }
        // Help wraps its lines: words are compared, not lines.
        func help(_ command: String) async throws -> String {
            try await cli.run([command, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let download = try await help("download")
        #expect(download.contains("config: jobs)"))
        #expect(download.contains("config: give-up-after)"))
        let sync = try await help("sync")
        for key in ["sync.server", "sync.user", "sync.device", "sync.api"] { #expect(sync.contains("config: \(key))")) }
        #expect(try await help("daemon").contains("config: on-complete)"))
        #expect(try await help("play").contains("config: speed"))
        #expect(try await help("update").contains("config: update.download)"))
        #expect(try await help("subscribe").contains("config: extras)"))
    }
}
