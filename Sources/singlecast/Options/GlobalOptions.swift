import ArgumentParser
import Foundation
import Logging
import SinglecastKit
import Synchronization

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print diagnostics to standard error.")
    var verbose = false

    /// The process environment, read once.
    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Sets up logging and returns the library in the configured folder, saying so when
    /// opening it made it private.
    func openLibrary() async throws -> Library {
        setUpLogging()
        let early = try await EarlyLibrary.take(directory: libraryDirectory)
        let library = if let early { early } else { try await Library.open(directory: libraryDirectory) }
        EarlyLibrary.closeAtEnd(library)
        if !library.tightenedPaths.isEmpty { printError(Words.madePrivate(library.tightenedPaths)) }
        return library
    }

    /// Whether logging is set up: once a process, by whatever needs it first.
    private static let loggingIsSetUp = Mutex(false)

    /// Sends diagnostics to standard error: all of them with `--verbose`, else warnings.
    func setUpLogging() {
        let verbose = verbose
        Self.loggingIsSetUp.withLock { isSetUp in
            guard !isSetUp else { return }
            isSetUp = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = verbose ? .debug : .warning
                return handler
            }
        }
    }

    /// Sends diagnostics nowhere, for the terminal UI (whose screen standard error would draw over).
    func silenceLogging() {
        Self.loggingIsSetUp.withLock { isSetUp in
            guard !isSetUp else { return }
            isSetUp = true
            LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
        }
    }

    /// The HTTP configuration: defaults, with `SINGLECAST_TIMEOUT` (seconds) as the read timeout.
    func httpConfiguration(compressed: Bool) -> HTTPSession.Configuration {
        setUpLogging()
        var configuration = HTTPSession.Configuration()
        configuration.acceptsCompression = compressed
        if let text = environment["SINGLECAST_TIMEOUT"], let seconds = Double(text), seconds > 0 {
            configuration.readTimeout = .milliseconds(Int(seconds * 1000))
            configuration.connectTimeout = .milliseconds(Int(seconds * 1000))
        }
        return configuration
    }
}

/// Runs `body` with an HTTP session and shuts the session down afterwards, whatever happens.
func withHTTPSession<T>(
    _ configuration: HTTPSession.Configuration,
    _ body: (HTTPSession) async throws -> T
) async throws -> T {
    let session = HTTPSession(configuration: configuration)
    do {
        let result = try await body(session)
        try await session.shutdown()
        return result
    } catch {
        try? await session.shutdown()
        throw error
    }
}

extension GlobalOptions {
    /// The library folder.
    var libraryDirectory: URL { LibraryLocation.directory(environment: environment) }

    /// The client of this library's download daemon.
    var daemonClient: DaemonClient { DaemonClient(libraryDirectory: libraryDirectory) }

    /// This program's path, to start the daemon with.
    var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The settings, with `flags` (each setting's flag as typed, and its value when given)
    /// above the environment and the config file. A flag's value the setting does not take is
    /// a usage error (exit 64), as is a variable's.
    func configuration(flags: [Setting: (name: String, value: SettingValue?)] = [:]) throws -> Settings {
        let given = flags.compactMapValues { flag in flag.value.map { (name: flag.name, value: $0) } }
        do {
            return try LoadedConfiguration.current(environment: environment).with(flags: given, environment: environment)
        } catch let error as ConfigurationError {
            throw ValidationError(Words.configuration(error))
        }
    }

    /// Where downloads go and what they are called, as the settings say.
    func episodesFolder() throws -> EpisodesFolder {
        try configuration().episodesFolder(libraryDirectory: libraryDirectory)
    }

    /// The progress buffer of `library`, rebuilt from the files on disk.
    func progressBuffer(_ library: Library) async throws -> ProgressBuffer {
        let buffer = ProgressBuffer(library: library, episodes: try episodesFolder())
        try await buffer.rebuild()
        return buffer
    }
}
