import Foundation

/// libFuzzer's entry: the input is a whole feed document, parsed from bytes to a `Feed`
/// through `FeedInputFilter`, as `singlecast` reads a file or an HTTP body. The document is
/// handed over in chunks whose size depends on its length (or whole), so that chunk boundaries
/// fall everywhere: inside UTF-8 sequences, the XML declaration and markup. Every text read
/// must be valid UTF-8: the reader makes its strings without checking that again.
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
            parser.takeEpisodes().forEach(checkText)
            offset = end
        }
        let feed = try parser.finish()
        for text in [feed.podcast.title, feed.podcast.description, feed.podcast.author] { checkUTF8(text) }
        feed.episodes.forEach(checkText)
    } catch {
        _ = error.localizedDescription
    }
    return 0
}

private func checkText(_ episode: Episode) {
    for text in [episode.title, episode.guid, episode.link, episode.description, episode.chaptersURL] { checkUTF8(text) }
}

private func checkUTF8(_ text: String?) {
    guard let text else { return }
    precondition(String(validating: text.utf8, as: UTF8.self) != nil, "a text read is not UTF-8")
}
