import CLibXML2
import Foundation

/// Receives libxml2's SAX events for one document and builds the `Feed`: RSS 2.0, RSS 1.0
/// (RDF) and Atom, with the iTunes, Podcasting 2.0, `content:` and Dublin Core namespaces.
///
/// Only the direct children of the channel, an item, the channel's `<image>` and Atom's
/// `<author>` are read; text is collected only inside an element that supplies a field.
struct FeedReader {
    /// Whose children the elements at the next depth describe.
    private enum Scope {
        /// The children of `<rss>` or `<rdf:RDF>`.
        case document
        /// RSS `<channel>` or Atom `<feed>`.
        case channel
        /// RSS `<item>` or Atom `<entry>`.
        case item
        /// RSS `<image>` in the channel.
        case image
        /// Atom `<author>` in the feed.
        case author
        /// Media RSS `<media:group>` in an item.
        case mediaGroup
    }

    /// The elements the reader uses.
    private enum Element {
        case container(Scope)
        /// An element whose text supplies a field.
        case text(Field)
        /// RSS `<enclosure>`.
        case enclosure
        /// Atom `<link>`.
        case atomLink
        case itunesImage, transcript, chapters
        /// Media RSS `<media:content>`.
        case mediaContent
    }

    /// The fields that come from the text of an element.
    private enum Field {
        case title, link, description, contentEncoded, itunesSummary, atomSummary, atomContent, subtitle
        case itunesTitle, mediaTitle
        /// `<guid isPermaLink="true">`: a link, resolved like one.
        case permalinkGuid
        case guid, pubDate, published, updated, dcDate
        case duration, season, episodeNumber, explicit
        case itunesAuthor, managingEditor, newFeedURL, logo, url, name
    }

    /// A fatal error libxml2 reported.
    struct XMLError {
        var line: Int
        var message: String
    }

    /// Where the document ends early.
    struct CutOff {
        var line: Int
        var message: String
        /// The element it ends in.
        var element: String?
    }

    /// Owned by the `FeedParser`, which outlives the reader; unowned so that the million
    /// lookups of a large feed cost no reference counting.
    private let vocabulary: FeedVocabulary
    private let baseURL: URL?
    /// The URL or file path of the document, whose name is the title of last resort.
    private let source: String
    /// The entities libxml2 may ask for.
    let htmlEntities: HTMLEntityTable
    /// The libxml2 context, to stop it at a root that is not a feed's.
    private let context: xmlParserCtxtPtr
    /// Set when the caller has handed over the whole document, before libxml2 reads its end.
    var hasAllInput = false
    /// Whether libxml2 reads UTF-8 the input filter made valid, so that its text needs no
    /// second check; not when libxml2 converts an encoding itself, which it may leave invalid.
    var readsCheckedUTF8 = true

    /// Whether the root element is `<rss>`, `<rdf:RDF>` or Atom's `<feed>`.
    private(set) var isFeed = false
    /// The name of a root element that is not a feed's.
    private(set) var otherRoot: String?
    /// The first fatal error libxml2 reported (recovering from it).
    private(set) var firstError: XMLError?
    /// The line of the first fatal error before the end of the document.
    private(set) var firstFaultLine: Int?
    /// Set when libxml2 finds the document incomplete at its end.
    private(set) var cutOff: CutOff?

    private var depth = 0
    private var scopes: [(scope: Scope, depth: Int)] = []
    /// The `xml:base` URLs in scope.
    private var bases: [(url: URL, depth: Int)] = []
    /// The element whose text is being collected.
    private var capture: (field: Field, scope: Scope, depth: Int)?
    private var text: [UInt8] = []

    private var podcast = PodcastDraft()
    private var episode = EpisodeDraft()
    private(set) var episodes: [Episode] = []
    /// Every episode completed so far, including those handed over by ``takeEpisodes()``.
    private(set) var completedEpisodes = 0

    init(
        baseURL: URL?, source: String, vocabulary: FeedVocabulary, htmlEntities: HTMLEntityTable,
        context: xmlParserCtxtPtr
    ) {
        self.baseURL = baseURL
        self.source = source
        self.vocabulary = vocabulary
        self.htmlEntities = htmlEntities
        self.context = context
    }

    /// The feed read so far: the complete episodes.
    func feed() -> Feed {
        Feed(podcast: podcast.podcast(feedURL: baseURL, fallbackTitle: fallbackTitle), episodes: episodes)
    }

    /// The podcast's title when the feed gives none: the last path component of its URL (or
    /// file) without extension, else the URL's host, else the source as given.
    private var fallbackTitle: String {
        let url = baseURL ?? URL(fileURLWithPath: source)
        let name = url.deletingPathExtension().lastPathComponent
        if !name.isEmpty, name != "/" { return name }
        return url.host ?? source
    }

    /// Whether the feed names the podcast (`<title>` or `<itunes:title>`).
    var hasPodcastTitle: Bool { podcast.title != nil || podcast.itunesTitle != nil }

    /// For a document cut off inside an item: keeps the item when what arrived of it whole
    /// identifies it (a guid, a link or an enclosure), so that the next fetch of the whole feed
    /// updates it instead of adding another. The field cut off is dropped, as feedparser does.
    mutating func keepCutOffEpisode() {
        guard scopes.contains(where: { $0.scope == .item }) else { return }
        let cut = episode.episode(podcastTitle: podcast.title ?? podcast.itunesTitle ?? fallbackTitle)
        guard cut.identity != nil else { return }
        episodes.append(cut)
        completedEpisodes += 1
    }

    /// The episodes completed since the last call; they are no longer part of ``feed(source:)``.
    mutating func takeEpisodes() -> [Episode] {
        defer { episodes.removeAll(keepingCapacity: true) }
        return episodes
    }

    // MARK: - SAX events

    mutating func startElement(
        localname: UnsafePointer<xmlChar>?,
        prefix: UnsafePointer<xmlChar>?,
        uri: UnsafePointer<xmlChar>?,
        attributes attributePointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
        attributeCount: Int
    ) {
        keepReadingReferences()
        depth += 1
        guard capture == nil else { return }  // markup inside a text field: only its text counts
        let attributes = Attributes(pointers: attributePointers, count: attributeCount, vocabulary: vocabulary)
        if let base = attributes.value(.base, namespace: .xml) {
            if let url = resolve(base).flatMap(URL.init(string:)) { bases.append((url, depth)) }
        }
        let namespace = vocabulary.namespace(uri: uri, prefix: prefix)
        let name = vocabulary.name(localname)
        if depth == 1 {
            startRoot(namespace, name, localname: localname, prefix: prefix)
            return
        }
        guard let name, let element = Self.element(namespace, name),
            let parent = scopes.last, parent.depth == depth - 1
        else { return }
        switch (parent.scope, element) {
        case (_, .container(let scope)):
            guard Self.enters(scope, in: parent.scope) else { return }
            scopes.append((scope, depth))
            if scope == .item {
                episode = EpisodeDraft()
                episode.rdfAbout = attributes.value(.about, namespace: .rdf)
            }
        case (_, .text(var field)):
            if field == .guid, namespace == .rss, attributes.value(.isPermaLink) == "true" {
                field = .permalinkGuid
            }
            capture = (field, parent.scope, depth)
            text.removeAll(keepingCapacity: true)
        case (.item, .enclosure):
            if episode.enclosure == nil {
                episode.enclosure = enclosure(attributes, url: .url)
            }
        case (.item, .atomLink), (.channel, .atomLink):
            let rel = attributes.value(.rel) ?? "alternate"
            if rel == "alternate" {
                let link = attributes.value(.href).flatMap { resolve($0) }
                if parent.scope == .item { episode.link.offer(link, rank: 0) } else { podcast.link.offer(link, rank: 0) }
            } else if rel == "enclosure", parent.scope == .item, episode.enclosure == nil {
                episode.enclosure = enclosure(attributes, url: .href)
            }
        case (.channel, .itunesImage):
            podcast.imageURL.offer(attributes.value(.href).flatMap { resolve($0) }, rank: 0)
        case (.item, .transcript):
            if let url = attributes.value(.url).flatMap({ resolve($0) }),
                !episode.transcripts.contains(where: { $0.url == url })
            {
                episode.transcripts.append(
                    Transcript(
                        url: url, type: attributes.value(.type), language: attributes.value(.language),
                        rel: attributes.value(.rel)))
            }
        case (.item, .chapters):
            episode.chaptersURL = episode.chaptersURL ?? attributes.value(.url).flatMap { resolve($0) }
        case (.item, .mediaContent), (.mediaGroup, .mediaContent):
            offerMediaContent(attributes)
        default:
            break
        }
    }

    mutating func endElement() {
        keepReadingReferences()
        if let capture, capture.depth == depth {
            self.capture = nil
            if let value = trimmedText() {
                apply(capture.field, value, in: capture.scope)
            }
        }
        if let top = scopes.last, top.depth == depth {
            scopes.removeLast()
            if top.scope == .item {
                // Taken out of the draft rather than copied: each of its strings would be
                // retained here and released when the next item begins.
                var finished = EpisodeDraft()
                swap(&finished, &episode)
                episodes.append(finished.episode(podcastTitle: podcast.title ?? podcast.itunesTitle ?? fallbackTitle))
                completedEpisodes += 1
            }
        }
        if let base = bases.last, base.depth == depth {
            bases.removeLast()
        }
        depth -= 1
    }

    mutating func characters(_ bytes: UnsafePointer<xmlChar>?, count: Int32) {
        keepReadingReferences()
        guard capture != nil, let bytes else { return }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(count)))
    }

    /// Once a document is known to be ill-formed, libxml2 (2.9) drops every entity reference
    /// in text, `&amp;` and `&lt;` too; it is told again that all is well after each error.
    private func keepReadingReferences() {
        if context.pointee.wellFormed == 0 { context.pointee.wellFormed = 1 }
    }

    /// Records the fatal errors libxml2 recovers from: the first one, and where the document
    /// ends early; warnings and namespace errors are not faults.
    mutating func error(_ error: xmlError) {
        guard error.level == XML_ERR_FATAL else { return }
        let message = (error.message.map { String(cString: $0) } ?? "error \(error.code)")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let line = Int(error.line)
        if firstError == nil {
            firstError = XMLError(line: line, message: message)
        }
        if hasAllInput {
            if cutOff == nil {
                cutOff = CutOff(line: line, message: message, element: context.pointee.name.map { String(cString: $0) })
            }
        } else if firstFaultLine == nil {
            firstFaultLine = line
        }
    }

    // MARK: - Mapping

    private mutating func startRoot(
        _ namespace: FeedVocabulary.Namespace,
        _ name: FeedVocabulary.Name?,
        localname: UnsafePointer<xmlChar>?,
        prefix: UnsafePointer<xmlChar>?
    ) {
        switch (namespace, name) {
        case (.rss, .rss?), (.rdf, .RDF?):
            scopes = [(.document, 1)]
            isFeed = true
        case (.atom, .feed?):
            scopes = [(.channel, 1)]
            isFeed = true
        default:
            otherRoot = [prefix, localname].compactMap { $0.map { String(cString: $0) } }.joined(separator: ":")
            xmlStopParser(context)
        }
    }

    /// Whether the reader reads `child` inside `parent` (RSS 1.0 puts its items beside the channel).
    private static func enters(_ child: Scope, in parent: Scope) -> Bool {
        switch (parent, child) {
        case (.document, .channel), (.document, .item), (.channel, .item), (.channel, .image), (.channel, .author),
            (.item, .mediaGroup):
            true
        default: false
        }
    }

    private static func element(_ namespace: FeedVocabulary.Namespace, _ name: FeedVocabulary.Name) -> Element? {
        switch (namespace, name) {
        case (.rss, .channel): .container(.channel)
        case (.rss, .item), (.atom, .entry): .container(.item)
        case (.rss, .image): .container(.image)
        case (.atom, .author): .container(.author)
        case (.media, .group): .container(.mediaGroup)
        case (.media, .content): .mediaContent
        case (.media, .title): .text(.mediaTitle)
        case (.itunes, .title): .text(.itunesTitle)
        case (.rss, .title), (.atom, .title): .text(.title)
        case (.rss, .link): .text(.link)
        case (.rss, .description): .text(.description)
        case (.content, .encoded): .text(.contentEncoded)
        case (.itunes, .summary): .text(.itunesSummary)
        case (.atom, .summary): .text(.atomSummary)
        case (.atom, .content): .text(.atomContent)
        case (.atom, .subtitle): .text(.subtitle)
        case (.rss, .guid), (.atom, .id): .text(.guid)
        case (.rss, .pubDate): .text(.pubDate)
        case (.atom, .published): .text(.published)
        case (.atom, .updated): .text(.updated)
        case (.dublinCore, .date): .text(.dcDate)
        case (.itunes, .duration): .text(.duration)
        case (.itunes, .season): .text(.season)
        case (.itunes, .episode): .text(.episodeNumber)
        case (.itunes, .explicit): .text(.explicit)
        case (.itunes, .author): .text(.itunesAuthor)
        case (.rss, .managingEditor): .text(.managingEditor)
        case (.itunes, .newFeedURL): .text(.newFeedURL)
        case (.atom, .logo): .text(.logo)
        case (.rss, .url): .text(.url)
        case (.atom, .name): .text(.name)
        case (.rss, .enclosure): .enclosure
        case (.atom, .link): .atomLink
        case (.itunes, .image): .itunesImage
        case (.podcast, .transcript): .transcript
        case (.podcast, .chapters): .chapters
        default: nil
        }
    }

    /// Sets the field a text element supplies. Where several elements supply one field, the
    /// richest wins whatever the order (rank 0 first): `content:encoded` over `description` over
    /// `itunes:summary`, `itunes:author` over `managingEditor`, `itunes:image` over `<image>`.
    private mutating func apply(_ field: Field, _ value: String, in scope: Scope) {
        switch (scope, field) {
        case (.item, .title): episode.title = episode.title ?? value
        case (.item, .link): episode.link.offer(resolve(value), rank: 0)
        case (.item, .guid): episode.guid = episode.guid ?? value
        case (.item, .permalinkGuid): episode.guid = episode.guid ?? resolve(value) ?? value
        case (.item, .itunesTitle): episode.itunesTitle = episode.itunesTitle ?? value
        case (.item, .mediaTitle), (.mediaGroup, .mediaTitle): episode.mediaTitle = episode.mediaTitle ?? value
        case (.item, .contentEncoded), (.item, .atomContent): episode.description.offer(value, rank: 0)
        case (.item, .description), (.item, .atomSummary): episode.description.offer(value, rank: 1)
        case (.item, .itunesSummary): episode.description.offer(value, rank: 2)
        case (.item, .pubDate): episode.published.offer(FeedDate.parseRSS(value), rank: 0)
        case (.item, .published): episode.published.offer(FeedDate.parseAtom(value), rank: 0)
        case (.item, .dcDate): episode.published.offer(FeedDate.parseAtom(value), rank: 1)
        case (.item, .updated): episode.published.offer(FeedDate.parseAtom(value), rank: 2)
        case (.item, .duration): episode.duration = EpisodeDuration.parse(value)
        case (.item, .season): episode.season = Int(value)
        case (.item, .episodeNumber): episode.episodeNumber = Int(value)
        case (.item, .explicit): episode.explicit = Self.explicit(value)
        case (.channel, .title): podcast.title = podcast.title ?? value
        case (.channel, .itunesTitle): podcast.itunesTitle = podcast.itunesTitle ?? value
        case (.channel, .link): podcast.link.offer(resolve(value), rank: 0)
        case (.channel, .description): podcast.description.offer(value, rank: 0)
        case (.channel, .itunesSummary): podcast.description.offer(value, rank: 1)
        case (.channel, .subtitle): podcast.description.offer(value, rank: 2)
        case (.channel, .itunesAuthor): podcast.author.offer(value, rank: 0)
        case (.channel, .managingEditor): podcast.author.offer(value, rank: 1)
        case (.author, .name): podcast.author.offer(value, rank: 2)
        case (.image, .url): podcast.imageURL.offer(resolve(value), rank: 1)
        case (.channel, .logo): podcast.imageURL.offer(resolve(value), rank: 2)
        case (.channel, .newFeedURL): podcast.newFeedURL = podcast.newFeedURL ?? resolve(value)
        default: break
        }
    }

    private static func explicit(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "yes", "true", "explicit": true
        case "no", "false", "clean": false
        default: nil
        }
    }

    private func enclosure(_ attributes: Attributes, url name: FeedVocabulary.AttributeName) -> Enclosure? {
        guard let value = attributes.value(name), let url = resolve(value) else { return nil }
        return Enclosure(
            url: url,
            length: attributes.value(.length).flatMap { Int64($0.trimmingASCIIWhitespace()) },
            type: attributes.value(.type)
        )
    }

    /// Offers a Media RSS `<media:content>` as the episode's media file: audio first, then
    /// video (by `type` or `medium`), then one that says neither; never an image or a document.
    private mutating func offerMediaContent(_ attributes: Attributes) {
        let type = attributes.value(.type)?.lowercased()
        let medium = attributes.value(.medium)?.lowercased()
        let rank: Int
        if type?.hasPrefix("audio/") == true || medium == "audio" {
            rank = 0
        } else if type?.hasPrefix("video/") == true || medium == "video" {
            rank = 1
        } else if type == nil, medium == nil {
            rank = 2
        } else {
            return
        }
        guard let url = attributes.value(.url).flatMap({ resolve($0) }) else { return }
        let length = attributes.value(.fileSize).flatMap { Int64($0.trimmingASCIIWhitespace()) }
        episode.mediaContent.offer(Enclosure(url: url, length: length, type: attributes.value(.type)), rank: rank)
    }

    /// A link as absolute URL text: as written when it is a plain absolute URL (the usual case,
    /// which takes no parsing), else resolved against the `xml:base` in scope or the feed's URL
    /// and percent-encoded where needed, as `URL` does; nil when it is not a URL. Whitespace
    /// around it is dropped.
    private func resolve(_ string: String) -> String? {
        let string = string.trimmingASCIIWhitespace()
        guard !string.isEmpty else { return nil }
        guard !PlainURL.isAbsolute(string) else { return string }
        guard let base = bases.last?.url ?? baseURL, !PlainURL.hasScheme(string) else { return URL(string: string)?.absoluteString }
        return URL(string: string, relativeTo: base)?.absoluteString
    }

    /// The collected text without surrounding whitespace; nil when that leaves nothing.
    private func trimmedText() -> String? {
        text.withUnsafeBufferPointer { bytes in
            let trimmed = bytes.trimmingASCIIWhitespace()
            guard !trimmed.isEmpty else { return nil }
            let text = UnsafeBufferPointer(rebasing: trimmed)
            return readsCheckedUTF8 ? String(knownValidUTF8: text) : String(decoding: text, as: UTF8.self)
        }
    }
}

/// A value several elements can supply, keeping the one from the best-ranked element (0 first,
/// the first one among equals).
private struct Preferred<Value> {
    private(set) var value: Value?
    private var rank = Int.max

    mutating func offer(_ newValue: Value?, rank newRank: Int) {
        guard let newValue, newRank < rank else { return }
        value = newValue
        rank = newRank
    }
}

private struct PodcastDraft {
    var title: String?
    var itunesTitle: String?
    var link = Preferred<String>()
    var description = Preferred<String>()
    var author = Preferred<String>()
    var imageURL = Preferred<String>()
    var newFeedURL: String?

    /// The podcast; its title is `<title>`, else `<itunes:title>`, else `fallbackTitle`.
    func podcast(feedURL: URL?, fallbackTitle: String) -> Podcast {
        Podcast(
            title: title ?? itunesTitle ?? fallbackTitle, link: link.value.flatMap(URL.init(string:)), description: description.value,
            author: author.value, imageURL: imageURL.value.flatMap(URL.init(string:)), feedURL: feedURL,
            newFeedURL: newFeedURL.flatMap(URL.init(string:))
        )
    }
}

private struct EpisodeDraft {
    var title: String?
    var itunesTitle: String?
    var mediaTitle: String?
    /// RSS 1.0's `rdf:about`: the item's URI, its guid when it has no other.
    var rdfAbout: String?
    /// The best Media RSS `<media:content>`, used when there is no `<enclosure>`.
    var mediaContent = Preferred<Enclosure>()
    var guid: String?
    var link = Preferred<String>()
    var published = Preferred<Date>()
    var duration: Int?
    var description = Preferred<String>()
    var enclosure: Enclosure?
    var season: Int?
    var episodeNumber: Int?
    var explicit: Bool?
    var transcripts: [Transcript] = []
    var chaptersURL: String?

    /// The episode; `podcastTitle` names it when nothing else can.
    consuming func episode(podcastTitle: @autoclosure () -> String) -> Episode {
        let enclosure = enclosure ?? mediaContent.value
        return Episode(
            title: fallbackTitle(enclosure: enclosure) ?? podcastTitle(), guid: guid ?? rdfAbout, link: link.value,
            published: published.value, duration: duration, description: description.value, enclosure: enclosure,
            season: season, episodeNumber: episodeNumber, explicit: explicit, transcripts: transcripts,
            chaptersURL: chaptersURL
        )
    }

    /// `<title>`, else `<media:title>`, else `<itunes:title>`, else the media file's name
    /// without extension, else the date (`2024-07-03`), else the guid or link.
    private func fallbackTitle(enclosure: Enclosure?) -> String? {
        if let title = title ?? mediaTitle ?? itunesTitle { return title }
        if let file = enclosure?.location?.deletingPathExtension().lastPathComponent, !file.isEmpty, file != "/" {
            return file
        }
        if let date = published.value {
            return ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withFullDate])
        }
        return (guid ?? rdfAbout).flatMap { $0.isEmpty ? nil : $0 } ?? link.value
    }
}

/// Dates as feeds write them, whichever format they were meant to use.
private enum FeedDate {
    static func parseRSS(_ s: String) -> Date? { RFC822Date.parse(s) ?? RFC3339Date.parse(s) }
    static func parseAtom(_ s: String) -> Date? { RFC3339Date.parse(s) ?? RFC822Date.parse(s) }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks (itself when it has
    /// none, which takes no copy).
    fileprivate func trimmingASCIIWhitespace() -> String {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return self }
        return String(decoding: utf8.trimmingASCIIWhitespace(), as: UTF8.self)
    }
}
