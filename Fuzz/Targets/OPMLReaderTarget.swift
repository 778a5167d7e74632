import Foundation

/// libFuzzer's entry: the input is a whole OPML document.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOPMLReader(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    do {
        _ = try OPMLReader.parse(Data(bytes: start, count: count), source: "fuzz.opml")
    } catch {
        _ = error.localizedDescription
    }
    return 0
}
