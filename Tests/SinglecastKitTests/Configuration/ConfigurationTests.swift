import Foundation
import TestSupport
import Testing

@testable import SinglecastKit

@Suite struct ConfigurationTests {
    static let environment = ["HOME": "/home/alice"]

    static func read(_ fixture: String, environment: [String: String] = environment) throws(ConfigurationError) -> ConfigurationFile? {
        try ConfigurationFile.read(path: Fixtures.url("config/\(fixture)").path, environment: environment)
    }

    static func error(_ fixture: String) -> ConfigurationError? {
        do {
            _ = try read(fixture)
            return nil
        } catch {
            return error
        }
    }

    @Test func everySettingIsReadWithItsLine() throws {
        let file = try #require(try Self.read("every-setting.toml"))
        let path = Fixtures.url("config/every-setting.toml").path
        let configuration = try Settings.resolve(file: file, path: path, environment: Self.environment)
        #expect(configuration[.episodesFolder] == .init(value: .text("/home/alice/Podcasts"), source: .file(path: path, line: 2)))
        #expect(configuration[.fileName].value == .text("{podcast}/{date} {title}"))
        #expect(configuration.jobs == 5)
        #expect(configuration.giveUpAfter == .seconds(1800))
        #expect(configuration[.player].value == .text("/usr/local/bin/mpv-wrapper"))
        #expect(configuration.playerOptions == ["--volume=70", "--af=loudnorm"])
        #expect(configuration.speed == 1.5)
        #expect(configuration[.skipForward].value == .integer(45))
        #expect(configuration[.skipBack].value == .integer(15))
        #expect(configuration.keep == .mostRecent(5))
        #expect(configuration.auto == .new)
        #expect(configuration[.extras].value == .boolean(true))
        #expect(configuration[.onComplete].value == .text("notify-send done"))
        #expect(configuration[.syncServer] == .init(value: .text("https://gpodder.example"), source: .file(path: path, line: 17)))
        #expect(configuration[.syncAPI].value == .text("nextcloud"))
        #expect(configuration[.updateEvery].value == .text("daily"))
        #expect(configuration[.updateDownload].value == .boolean(true))
        #expect(configuration[.updateSync] == .init(value: .boolean(true), source: .file(path: path, line: 25)))
        #expect(configuration.openTable("ui.keys")["quit"] == .init(value: .texts(["Q", "escape"]), line: 28, column: 1))
        #expect(configuration.openTable("ui.keys")["clear-filter"]?.value == .texts(["c"]))
        #expect(configuration.openTable("ui.colors")["accent"]?.value == .text("green"))
        #expect(file.warnings.isEmpty)
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws {
        let file = try ConfigurationFile.parse("give-up-after = \"30m\"\njobs = 5\n", path: "/c.toml", environment: [:])
        let environment = ["SINGLECAST_GIVE_UP_AFTER": "2h"]
        let base = try Settings.resolve(file: file, path: "/c.toml", environment: environment)
        #expect(base[.giveUpAfter] == .init(value: .text("2h"), source: .environment("SINGLECAST_GIVE_UP_AFTER")))
        #expect(base[.jobs] == .init(value: .integer(5), source: .file(path: "/c.toml", line: 2)))
        #expect(base[.speed] == .init(value: .number(1), source: .defaultValue))
        let flagged = try base.with(
            flags: [.giveUpAfter: ("--give-up-after", .text("90s")), .jobs: ("--jobs", .integer(7))], environment: environment)
        #expect(flagged[.giveUpAfter] == .init(value: .text("90s"), source: .flag("--give-up-after")))
        #expect(flagged.giveUpAfter == .seconds(90))
        #expect(flagged.jobs == 7)
    }

    @Test func aValueOfTheWrongTypeNamesTheFileLineColumnKeyAndWhatWasExpected() throws {
        let error = try #require(Self.error("wrong-type.toml"))
        #expect(error.origin == .file(path: Fixtures.url("config/wrong-type.toml").path, line: 2, column: 1))
        #expect(error.key == "episodes-folder")
        #expect(error.problem == .wrongType(expected: .path, found: .integer))
    }

    @Test func aFileThatIsNotTOMLNamesWhereTheParserStopped() throws {
        let error = try #require(Self.error("not-toml.toml"))
        guard case .file(_, let line, let column) = error.origin, case .syntax = error.problem else {
            Issue.record("not a syntax error with a place: \(error)")
            return
        }
        #expect(line == 2)
        #expect(column != nil)
    }

    @Test func aNumberOutOfItsRangeIsRefused() throws {
        let error = try #require(Self.error("out-of-range.toml"))
        #expect(error.key == "jobs")
        #expect(error.problem == .badValue(expected: .integer(1...32), found: .integer(40)))
    }

    @Test func anUnknownKeyIsAWarningWithTheNearestKnownKey() throws {
        let file = try #require(try Self.read("unknown-key.toml"))
        #expect(
            file.warnings == [
                .unknownKey("episode-folder", line: 1, nearest: "episodes-folder"),
                .unknownKey("sync.servr", line: 5, nearest: "sync.server"),
            ])
        #expect(file.values["jobs"]?.value == .integer(2))
    }

    @Test func aMissingFileIsNoError() throws {
        #expect(try ConfigurationFile.read(path: "/nonexistent/singlecast/config.toml", environment: [:]) == nil)
        let configuration = try Settings.load(environment: ["SINGLECAST_CONFIG": "/nonexistent/config.toml"])
        #expect(configuration.file == nil)
        #expect(configuration[.jobs] == .init(value: .integer(3), source: .defaultValue))
    }

    @Test func aFolderTemplateWithAnEpisodePlaceholderIsRefused() throws {
        let error = try #require(Self.error("template-with-date-folder.toml"))
        #expect(error.key == "file-name")
        #expect(error.problem == .badTemplate(.episodePlaceholderInFolder(.date)))
    }

    @Test func theFileIsFoundAsTheEnvironmentSays() {
        #expect(ConfigurationFile.path(environment: ["SINGLECAST_CONFIG": "/a/b.toml", "XDG_CONFIG_HOME": "/x"]) == "/a/b.toml")
        #expect(ConfigurationFile.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/singlecast/config.toml")
        #expect(ConfigurationFile.path(environment: ["HOME": "/h"]) == "/h/.config/singlecast/config.toml")
    }

    @Test(arguments: [
        ("SINGLECAST_GIVE_UP_AFTER", "-5m", Setting.giveUpAfter),
        ("SINGLECAST_GIVE_UP_AFTER", "soon", Setting.giveUpAfter),
    ])
    func aVariableWhoseValueTheSettingDoesNotTakeIsRefused(variable: String, value: String, setting: Setting) {
        #expect(throws: ConfigurationError(
            origin: .environment(variable), key: setting.key, problem: .badValue(expected: setting.kind, found: .text(value)))
        ) {
            try Settings.resolve(file: nil, path: "/c.toml", environment: [variable: value])
        }
    }
}
