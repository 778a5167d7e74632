import Dispatch
import Foundation
import SinglecastKit

/// The terminal UI: browse the library, listen and download with keys, in the shape of Bubble
/// Tea. Messages (keys, the terminal's size, timers, what the library, the player and the
/// downloads report) go through ``UIUpdate/update(_:_:)``, whose commands ``Effects`` carries
/// out; after each message ``UIView/render(_:)`` draws the state into a canvas, and the
/// terminal is sent what differs from the last frame.
public enum TerminalUI {
    /// What the UI works on.
    public struct Configuration: Sendable {
        public var library: Library
        public var libraryDirectory: URL
        public var environment: [String: String]
        /// The `singlecast` program, to start the daemon with.
        public var executablePath: String
        /// The settings (the player, its options, the speed, how far `f` and `b` jump).
        public var settings: Settings
        /// What each key does.
        public var keyMap: KeyMap
        public var colors: UIColors

        public init(
            library: Library, libraryDirectory: URL, environment: [String: String], executablePath: String,
            settings: Settings, keyMap: KeyMap, colors: UIColors
        ) {
            self.library = library
            self.libraryDirectory = libraryDirectory
            self.environment = environment
            self.executablePath = executablePath
            self.settings = settings
            self.keyMap = keyMap
            self.colors = colors
        }

        /// The iTunes Search API's base URL: `SINGLECAST_ITUNES_URL`, else Apple's.
        var searchBaseURL: URL {
            environment["SINGLECAST_ITUNES_URL"].flatMap(URL.init(string:)) ?? PodcastSearch.defaultBaseURL
        }

        /// The colours, unless `NO_COLOR` is set (to anything but nothing). A `dumb` terminal gets no UI at all.
        var colorsToUse: UIColors? {
            (environment["NO_COLOR"] ?? "").isEmpty ? colors : nil
        }
    }

    /// Runs the UI on the terminal of standard input and output until it is quit; returns the
    /// exit status (0 after `q`, 128 + the signal's number after SIGTERM, SIGHUP or SIGINT),
    /// or nil, having changed nothing, when ncurses cannot drive the terminal. The terminal is
    /// restored before it returns, whichever way the UI ended.
    public static func run(_ configuration: Configuration) async -> Int32? {
        let (messages, messageInput) = AsyncStream.makeStream(of: Message.self)
        let send: @Sendable (Message) -> Void = { messageInput.yield($0) }
        // Before the terminal opens: ncurses leaves alone the signals that are not at their default.
        let signals = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { send(.signal(number)) }
            source.resume()
            return source
        }
        defer {
            for source in signals { source.cancel() }
        }
        guard let opened = await TerminalScreen.open(colors: configuration.colorsToUse, send: send) else { return nil }
        let clock = UIClock()
        let effects = Effects(configuration: configuration, clock: clock, send: send)
        let (commands, commandInput) = AsyncStream.makeStream(of: Command.self)
        let worker = Task {
            for await command in commands { await effects.perform(command) }
        }
        let watch = LibraryWatch.start(directory: configuration.libraryDirectory) { send(.libraryChanged) }

        var state = UIState(width: opened.width, height: opened.height, glyphs: opened.capabilities.unicode ? .unicode : .ascii)
        state.keyMap = configuration.keyMap
        state.skipForward = Double(configuration.settings[.skipForward].value?.integer ?? 30)
        state.skipBack = Double(configuration.settings[.skipBack].value?.integer ?? 10)
        var drawn = UIView.render(state)
        opened.screen.draw(drawn)
        for command in UIUpdate.startCommands { commandInput.yield(command) }
        var status: Int32 = 0
        var downloadsAtQuit = DownloadsAtQuit.pause
        loop: for await message in messages {
            let (next, commandsToRun) = UIUpdate.update(state, message)
            state = next
            for command in commandsToRun {
                if case .quit(let code, let downloads) = command {
                    status = code
                    downloadsAtQuit = downloads
                    break loop
                }
                commandInput.yield(command)
            }
            let frame = UIView.render(state)
            if frame != drawn {
                opened.screen.draw(frame)
                drawn = frame
            }
        }
        commandInput.yield(.quit(status: status, downloads: downloadsAtQuit))
        commandInput.finish()
        await worker.value
        watch.stop()
        await opened.screen.close()
        return status
    }
}
