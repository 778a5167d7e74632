extension String {
    /// A string of bytes known to be valid UTF-8, made without checking them again. For text
    /// checked once already: what libxml2 hands over of input the feed's filter made valid
    /// UTF-8 (not of an encoding it converts itself: it may leave that invalid) and what the
    /// show notes' reducer writes (cut from a string's bytes at ASCII bytes only). Checking it
    /// twice was a tenth of a large feed's parse and of a listing's notes. Debug builds and the
    /// fuzz targets check it anyway.
    init(knownValidUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        assert(String(validating: bytes, as: UTF8.self) != nil, "text that is not UTF-8")
        self = unsafe String(copying: UTF8Span(unchecked: bytes.span))
    }
}
