/// The text of an attribute value as libxml2's SAX2 parser hands it over, for the feed and
/// OPML readers alike.
enum XMLAttributeText {
    /// The text of a value. Without entity substitution, libxml2 leaves `&amp;` (and `&#38;`)
    /// in attribute values as `&#38;`; every other reference is already replaced.
    static func decode(_ value: UnsafeBufferPointer<UInt8>) -> String {
        let ampersand = UInt8(ascii: "&")
        guard var next = value.firstIndex(of: ampersand) else { return String(decoding: value, as: UTF8.self) }
        var bytes: [UInt8] = []
        var copied = 0
        while true {
            let isEscaped = value[next...].starts(with: "&#38;".utf8)
            bytes.append(contentsOf: value[copied..<(next + 1)])
            copied = isEscaped ? next + 5 : next + 1
            guard let found = value[copied...].firstIndex(of: ampersand) else { break }
            next = found
        }
        bytes.append(contentsOf: value[copied...])
        return String(decoding: bytes, as: UTF8.self)
    }
}
