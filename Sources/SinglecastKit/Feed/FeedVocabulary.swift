import CLibXML2

/// The XML names and namespaces the parser knows, interned in the libxml2 context's dictionary.
///
/// libxml2 hands out every element name, attribute name, prefix and namespace URI from that
/// dictionary, so a name is recognised by comparing pointers instead of strings. Its tables
/// are buffers that the parser owning it frees (``deallocate()``): a value of pointers only,
/// which costs no reference counting on the million lookups of a large feed (as a class, each
/// lookup retained and released it; figures in `Benchmarks/README.md`).
struct FeedVocabulary {
    /// The local names of the elements the parser reads.
    enum Name: String, CaseIterable {
        // Roots and containers
        case rss, RDF, feed, channel, item, entry, image, author
        // Elements
        case title, link, description, guid, pubDate, managingEditor, url, encoded, summary
        case duration, season, episode, explicit, newFeedURL = "new-feed-url"
        case enclosure, transcript, chapters, id, published, updated, content, subtitle, logo, name, date
        case group
    }

    /// The attributes the parser reads.
    enum AttributeName: Int, CaseIterable {
        case href, rel, url, length, type, base, language
        case isPermaLink, fileSize, medium, about
    }

    /// The vocabularies of feeds.
    enum Namespace {
        /// No namespace (RSS 2.0), or the default namespace of RSS 1.0 and 0.90.
        case rss
        case rdf, atom, itunes, content, podcast, dublinCore
        /// Media RSS (`media:`).
        case media
        /// `xml:` (for `xml:base`).
        case xml
        case other
    }

    private let names: UnsafeBufferPointer<(pointer: UnsafePointer<xmlChar>, name: Name)>
    private let attributeNames: UnsafeBufferPointer<UnsafePointer<xmlChar>>
    private let namespaces: UnsafeBufferPointer<(uri: UnsafePointer<xmlChar>, namespace: Namespace)>
    /// Prefixes some feeds use without declaring them, and what they mean.
    private let conventionalPrefixes: UnsafeBufferPointer<(prefix: UnsafePointer<xmlChar>, namespace: Namespace)>

    init(dictionary: OpaquePointer) {
        func intern(_ string: String) -> UnsafePointer<xmlChar> {
            xmlDictLookup(dictionary, string, -1)!
        }
        names = Self.table(Name.allCases.map { (intern($0.rawValue), $0) })
        attributeNames = Self.table(AttributeName.allCases.map { intern("\($0)") })
        let namespaces: [(String, Namespace)] = [
            ("http://purl.org/rss/1.0/", .rss),
            ("http://my.netscape.com/rdf/simple/0.9/", .rss),
            ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", .rdf),
            ("http://www.w3.org/2005/Atom", .atom),
            ("http://purl.org/atom/ns#", .atom),  // Atom 0.3
            ("http://www.itunes.com/dtds/podcast-1.0.dtd", .itunes),
            ("http://www.itunes.com/DTDs/Podcast-1.0.dtd", .itunes),  // the legacy spelling
            ("http://purl.org/rss/1.0/modules/content/", .content),
            ("https://podcastindex.org/namespace/1.0", .podcast),
            ("http://podcastindex.org/namespace/1.0", .podcast),
            ("http://purl.org/dc/elements/1.1/", .dublinCore),
            ("http://search.yahoo.com/mrss/", .media),
            ("http://search.yahoo.com/mrss", .media),
            ("http://www.w3.org/XML/1998/namespace", .xml),
        ]
        self.namespaces = Self.table(namespaces.map { (intern($0.0), $0.1) })
        let prefixes: [(String, Namespace)] = [
            ("itunes", .itunes), ("podcast", .podcast), ("content", .content), ("dc", .dublinCore), ("media", .media),
        ]
        conventionalPrefixes = Self.table(prefixes.map { (intern($0.0), $0.1) })
    }

    /// Frees the tables; the vocabulary is not used afterwards.
    func deallocate() {
        names.deallocate()
        attributeNames.deallocate()
        namespaces.deallocate()
        conventionalPrefixes.deallocate()
    }

    /// A table holding `elements`, which are pointers and cases only.
    private static func table<Element>(_ elements: [Element]) -> UnsafeBufferPointer<Element> {
        let table = UnsafeMutableBufferPointer<Element>.allocate(capacity: elements.count)
        _ = table.initialize(from: elements)
        return UnsafeBufferPointer(table)
    }

    /// The name `localname` points to, or nil for one the parser does not read.
    func name(_ localname: UnsafePointer<xmlChar>?) -> Name? {
        names.first { $0.pointer == localname }?.name
    }

    /// The interned name of an attribute.
    func pointer(to attribute: AttributeName) -> UnsafePointer<xmlChar> {
        attributeNames[attribute.rawValue]
    }

    /// The namespace of an element or attribute; an undeclared prefix (libxml2 reports a
    /// namespace error and gives no URI) counts by its conventional meaning, as in `itunes:`.
    func namespace(uri: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) -> Namespace {
        if let uri {
            return namespaces.first { $0.uri == uri }?.namespace ?? .other
        }
        guard let prefix else { return .rss }
        return conventionalPrefixes.first { $0.prefix == prefix }?.namespace ?? .other
    }
}
