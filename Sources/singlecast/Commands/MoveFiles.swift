import ArgumentParser
import Foundation
import SinglecastKit
import Synchronization

extension Singlecast {
    struct MoveFiles: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move-files",
            abstract: "Move downloaded episodes into the layout of the current episodes-folder and file-name settings.",
            discussion: """
                Each move is atomic and never replaces a file (a name another file has is left alone \
                and named); the library learns each new name as it is made. An interrupted run loses \
                nothing, and the next one finishes it. Transcripts and chapters move with their episode.
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let library = try await global.openLibrary()
            let mover = FileMover(library: library, libraryDirectory: global.libraryDirectory, episodes: try global.episodesFolder())
            let problems = ProblemCount()
            try await mover.moveAll { outcome in
                switch outcome {
                case .moved(let from, let to): print("moved: \(from) -> \(to)")
                case .clash, .failed:
                    problems.add()
                    printError("not moved: \(Words.moveOutcome(outcome))")
                }
            }
            if problems.count > 0 { throw ExitCode.failure }
        }
    }
}

/// How many moves went wrong, counted from the mover's reports.
private final class ProblemCount: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
