/// libFuzzer's entry: the input, read as UTF-8, is given to both date parsers, and every date
/// RFC 822 parses is written back in RFC 822.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedDates(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    if let date = RFC822Date.parse(text) {
        _ = RFC822Date.format(date)
    }
    _ = RFC3339Date.parse(text)
    return 0
}
