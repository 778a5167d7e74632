// Parses a feed file with SinglecastKit's streaming parser, as `singlecast episodes FILE`
// does, without storing or printing: the parse alone, for Benchmarks/bench.py. Episodes are
// counted as the parser hands them on and then dropped, so memory shows the parser's own needs.
import Foundation
import SinglecastKit

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: parse-feed FILE\n".utf8))
    exit(64)
}
do {
    var handedOn = 0
    let rest = try FeedLoader.load(file: URL(fileURLWithPath: CommandLine.arguments[1])) { batch in
        handedOn += batch.count
    }
    print("\(handedOn + rest.episodes.count) episodes")
} catch {
    FileHandle.standardError.write(Data("error: \(error.localizedDescription)\n".utf8))
    exit(1)
}
