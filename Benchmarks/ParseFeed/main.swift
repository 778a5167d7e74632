// Parses a feed file with SinglecastKit's streaming parser, as `singlecast episodes FILE`
// does, without storing or printing: the parse alone, for Benchmarks/bench.py.
import Foundation
import SinglecastKit

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: parse-feed FILE\n".utf8))
    exit(64)
}
do {
    let feed = try FeedLoader.load(file: URL(fileURLWithPath: CommandLine.arguments[1]))
    print("\(feed.episodes.count) episodes")
} catch {
    FileHandle.standardError.write(Data("error: \(error.localizedDescription)\n".utf8))
    exit(1)
}
