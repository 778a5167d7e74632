// Parses a feed file with SinglecastKit's streaming parser, 64 KiB at a time as
// `singlecast episodes FILE` does, without storing or printing: the parse alone, for
// Benchmarks/bench.py. Episodes are counted as the parser completes them and then dropped, so
// memory shows the parser's own needs.
import Foundation
import SinglecastKit

guard CommandLine.arguments.count == 2, let handle = FileHandle(forReadingAtPath: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: parse-feed FILE\n".utf8))
    exit(64)
}
do {
    let parser = FeedParser(baseURL: nil, source: CommandLine.arguments[1])
    var count = 0
    while let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty {
        try chunk.withUnsafeBytes { try parser.parse($0) }
        count += parser.takeEpisodes().count
    }
    print("\(count + (try parser.finish()).episodes.count) episodes")
} catch {
    FileHandle.standardError.write(Data("error: \(error.localizedDescription)\n".utf8))
    exit(1)
}
