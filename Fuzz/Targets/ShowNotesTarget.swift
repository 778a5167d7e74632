/// libFuzzer's entry: the input, read as UTF-8, is an episode's show notes, reduced to text as
/// a listing, the details pane and search reduce them (``HTMLTokenizer``, `ShowNotes`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShowNotes(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let notes = ShowNotes(String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self))
    // The reduction makes its text without checking it is UTF-8 again: it must be.
    precondition(String(validating: notes.text.utf8, as: UTF8.self) != nil, "the notes' text is not UTF-8")
    _ = notes.paragraphs
    return 0
}
