import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Queue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "queue",
            abstract: "List the queue, or change it: the episodes `singlecast play --queue` plays one after the other.",
            discussion: """
                An episode heard to its end leaves the queue. The terminal UI shares it (view 3).
                """,
            subcommands: [List.self, Add.self, Remove.self, Move.self, Clear.self],
            defaultSubcommand: List.self)
    }
}

extension Singlecast.Queue: BriefLibraryCommand {
    /// Brief when it lists the queue.
    static func isBrief(_ arguments: [String]) -> Bool {
        arguments.allSatisfy { $0.hasPrefix("-") || $0 == List.configuration.commandName }
    }
}

extension Singlecast.Queue {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the queue, numbered.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the queue as JSON.")
        var json = false

        func run() async throws {
            let queue = try await global.openLibrary().queue()
            if json {
                try printJSON(queue.map { ListedEpisodeJSON(number: $0.number, podcast: $0.podcast, entry: $0.entry) })
            } else if queue.isEmpty {
                print("The queue is empty.")
            } else {
                let rows = queue.map { (number: $0.number, podcast: $0.podcast, entry: $0.entry) }
                print(EpisodeTable.render(rows, showsLength: true, width: TTY.outputWidth))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add episodes to the end of the queue.",
            discussion: """
                Episodes are numbered as `singlecast episodes` lists them; with --new, as `singlecast new` \
                does; with --found, as the last `singlecast find` did.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: EpisodeSelection
        @OptionGroup var episodes: NumberList

        func run() async throws {
            let library = try await global.openLibrary()
            let chosen = try await selection.episodes(try episodes.numbers(), library: library)
            let additions = try await library.enqueue(episodeIDs: chosen.map(\.entry.id))
            for (episode, addition) in zip(chosen, additions) {
                print(Words.queueAddition(addition, podcast: episode.podcast, entry: episode.entry))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Take episodes out of the queue.",
            discussion: "Episodes are numbered as `singlecast queue` lists them.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var entries: NumberList

        func run() async throws {
            let library = try await global.openLibrary()
            let queue = try await library.queue()
            let removed = try entries.numbers().map { try Self.entry($0, of: queue) }
            try await library.dequeue(episodeIDs: removed.map(\.entry.id))
            for entry in removed { print("removed from the queue: \(Words.episode(entry.podcast, entry.entry))") }
        }

        /// The entry numbered `number`, or the error naming it.
        static func entry(_ number: Int, of queue: [QueueEntry]) throws -> QueueEntry {
            guard queue.indices.contains(number - 1) else { throw LibraryError.noSuchQueueEntry(number: number, count: queue.count) }
            return queue[number - 1]
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move", abstract: "Move an episode of the queue to another place, the others keeping their order.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The episode's number in `singlecast queue`.")
        var from: Int

        @Argument(help: "The place it goes to.")
        var to: Int

        func validate() throws {
            if from < 1 || to < 1 { throw ValidationError("Places in the queue are numbered from 1.") }
        }

        func run() async throws {
            let library = try await global.openLibrary()
            let queue = try await library.queue()
            let moved = try Remove.entry(from, of: queue)
            _ = try Remove.entry(to, of: queue)
            try await library.moveInQueue(episodeID: moved.entry.id, to: to)
            print("moved to \(to) in the queue: \(Words.episode(moved.podcast, moved.entry))")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the queue.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let count = try await global.openLibrary().clearQueue()
            print(count == 0 ? "The queue was empty." : "cleared the queue: \(count) episode\(count == 1 ? "" : "s")")
        }
    }
}
