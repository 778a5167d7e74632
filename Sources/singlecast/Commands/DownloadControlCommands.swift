import ArgumentParser
import Foundation
import SinglecastKit

/// What `pause`, `resume` and `cancel` act on.
struct DownloadSelection: ParsableArguments {
    @Argument(help: "Download ids as `singlecast downloads` shows them (or episode numbers, with --episodes).")
    var ids: [Int64] = []

    @Flag(help: "Every download.")
    var all = false

    @Flag(name: .shortAndLong, help: "Read the numbers as episode numbers of the current podcast.")
    var episodes = false

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("Give download ids, or --all.") }
    }

    /// Sends `command` for the selection to the daemon (started if needed) and prints its answer.
    func send(_ command: ControlRequest.Command, global: GlobalOptions) throws {
        let library = try global.openLibrary()
        var ids = self.ids
        if episodes {
            guard let podcast = try library.currentPodcast() else { throw LibraryError.noCurrentPodcast }
            let requests = try DownloadRequests.make(numbers: ids.map { Int($0) }, podcast: podcast, library: library)
            ids = try requests.map { request in
                guard let id = try library.download(enclosureURL: request.enclosure.url)?.id else {
                    throw ValidationError("Episode \(request.episode.title) has never been downloaded.")
                }
                return id
            }
        }
        let reply = try global.daemonClient.sendStartingDaemon(
            ControlRequest(command: command, ids: all ? nil : ids, all: all ? true : nil),
            executable: global.executablePath)
        for message in reply.messages ?? [] { print(message) }
    }
}

extension Singlecast {
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause downloads, keeping what has arrived.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: DownloadSelection
        func run() async throws { try selection.send(.pause, global: global) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume paused or interrupted downloads in the background.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: DownloadSelection
        func run() async throws { try selection.send(.resume, global: global) }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel downloads and remove their partial files.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: DownloadSelection
        func run() async throws { try selection.send(.cancel, global: global) }
    }
}
