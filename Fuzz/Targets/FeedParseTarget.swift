import Foundation

/// libFuzzer's entry: the input is a whole feed document, parsed from bytes to a `Feed`
/// through `FeedInputFilter`, as `singlecast` reads a file or an HTTP body. The document is
/// handed over in chunks whose size depends on its length (or whole), so that chunk boundaries
/// fall everywhere: inside UTF-8 sequences, the XML declaration and markup.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedParse(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let document = UnsafeRawBufferPointer(start: start, count: count)
    let chunkSize = count % 3 == 0 ? max(count, 1) : count % 61 + 1
    let parser = FeedParser(baseURL: URL(string: "https://example.com/podcast/feed.xml"), source: "fuzz.xml")
    do {
        var offset = 0
        while offset < count {
            let end = min(offset + chunkSize, count)
            try parser.parse(UnsafeRawBufferPointer(rebasing: document[offset..<end]))
            _ = parser.takeEpisodes()
            offset = end
        }
        _ = try parser.finish()
    } catch {
        _ = error.localizedDescription
    }
    return 0
}
