/// libFuzzer's entry: the input, read as UTF-8, is an `<itunes:duration>`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEpisodeDuration(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    _ = EpisodeDuration.parse(text)
    return 0
}
