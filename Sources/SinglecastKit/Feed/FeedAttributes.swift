import CLibXML2

/// The attributes libxml2 passes to `startElementNs`: five pointers each (local name, prefix,
/// URI, start and end of the value).
struct Attributes {
    let pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int
    let vocabulary: FeedVocabulary

    /// The value of the attribute `name` in `namespace` (no namespace by default).
    func value(_ name: FeedVocabulary.AttributeName, namespace: FeedVocabulary.Namespace = .rss) -> String? {
        guard let pointers else { return nil }
        let name = vocabulary.pointer(to: name)
        for index in stride(from: 0, to: count * 5, by: 5) where pointers[index] == name {
            guard vocabulary.namespace(uri: pointers[index + 2], prefix: pointers[index + 1]) == namespace,
                let start = pointers[index + 3], let end = pointers[index + 4]
            else { continue }
            return XMLAttributeText.decode(UnsafeBufferPointer(start: start, count: end - start))
        }
        return nil
    }
}
