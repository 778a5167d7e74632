import ArgumentParser
import Foundation
import SinglecastKit
import Synchronization

/// The library, opened while the configuration is read and the arguments are parsed. Nearly
/// every command opens it, and opening it (with a connection ready to read) and parsing take
/// about as long, each on a core of its own, so the command finds the library open
/// (``GlobalOptions/openLibrary()``). It opens on a thread
/// of its own because NIO's thread pool starts its threads on first use, which began the
/// opening only once the parsing had ended (figures in `Benchmarks/README.md`). Only a library
/// that exists is opened ahead, so that nothing is created before a command asks for it, and
/// not for help or the version. At the end, ``closeAll()`` closes it, and every library the
/// command was given.
enum EarlyLibrary {
    private static let opening = Mutex<(directory: URL, task: Task<Library?, any Error>)?>(nil)

    /// Starts opening the library in `directory` when `arguments` (the process's, without its
    /// name) begin with a subcommand of `root` and ask for no help; with one connection when
    /// the subcommand says its work is brief (``BriefLibraryCommand``).
    static func start<Root: ParsableCommand>(
        for root: Root.Type, arguments: [String], directory: URL
    ) {
        guard let first = arguments.first,
            let command = root.configuration.subcommands.first(where: { $0.configuration.commandName == first }),
            !InformationRequest.isAsked(in: arguments)
        else { return }
        let isBrief = (command as? any BriefLibraryCommand.Type)?.isBrief(Array(arguments.dropFirst())) ?? false
        let access: Library.Access = isBrief ? .serial : .concurrent
        let task = Task {
            try await withCheckedThrowingContinuation { opened in
                Thread.detachNewThread {
                    opened.resume(with: Result { try Library.openExistingBlocking(directory: directory, access: access) })
                }
            }
        }
        opening.withLock { $0 = (directory, task) }
    }

    /// The library opened ahead in `directory`, if any (once; later calls open their own).
    static func take(directory: URL) async throws -> Library? {
        guard let early = opening.withLock({ current in defer { current = nil }; return current }) else { return nil }
        guard early.directory == directory else {
            await close(early.task)
            return nil
        }
        return try await early.task.value
    }

    /// The libraries the command was given (``GlobalOptions/openLibrary()``), closed by
    /// ``closeAll()``.
    private static let given = Mutex<[Library]>([])

    /// Has ``closeAll()`` close `library`, which the command was given.
    static func closeAtEnd(_ library: Library) {
        given.withLock { $0.append(library) }
    }

    /// Closes the library opened ahead if no command took it, and those the command was given,
    /// so that their logs are copied into the database and removed before the process ends.
    /// Left to their last release, which another thread may hold for a moment after the
    /// command has returned, the closes could come after the exit.
    static func closeAll() async {
        if let early = opening.withLock({ current in defer { current = nil }; return current }) {
            await close(early.task)
        }
        for library in given.withLock({ given in defer { given = [] }; return given }) {
            try? await library.close()
        }
    }

    /// Closes it before the process may end: left to its last release, the close could come
    /// after the exit.
    private static func close(_ task: Task<Library?, any Error>) async {
        guard let library = try? await task.value else { return }
        try? await library.close()
    }
}

/// A command that reads the library, or writes a little to it, and ends: the library opened
/// ahead for it has one connection (``Library/Access/serial``), which opens faster. Any
/// command works with either access; this only chooses the faster one.
protocol BriefLibraryCommand {
    /// Whether the command, given `arguments` (those after its name), does only such work.
    static func isBrief(_ arguments: [String]) -> Bool
}

extension BriefLibraryCommand {
    static func isBrief(_ arguments: [String]) -> Bool { true }
}
