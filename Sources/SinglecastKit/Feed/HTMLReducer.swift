/// Reduces the tokens of show notes' HTML to paragraphs and links. Text is gathered as UTF-8
/// bytes in one buffer, and element names are told apart by their bytes: a listing reduces
/// thousands of notes, and a `String` per line or per element name was most of the work.
///
/// The elements open are kept as libxml2's HTML parser kept them, by HTML 4's rules: a start
/// tag ends the open elements it cannot be inside (`<p>` ends a `<p>`, `<li>` an `<li>`); an
/// end tag ends its element and those opened inside it, unless one of them ranks above it
/// (`</p>` does not end a `<div>` opened inside); text before any element is a paragraph.
/// Where libxml2 dropped everything after a stray end tag at the start or after `</html>`,
/// that text is kept.
struct HTMLReducer: HTMLTokenReceiver {
    /// The paragraphs so far, between blank lines, the lines of one between line breaks.
    private(set) var body: [UInt8] = []
    private(set) var links: [String] = []
    /// The line being read, and whether the paragraph being read has a line in `body` already.
    private var line: [UInt8] = []
    private var paragraphHasLine = false
    /// The link being read: its URL and where its text starts in `line`.
    private var openLink: (url: String, start: Int)?
    /// The elements open, innermost last.
    private var openElements: [OpenElement] = []
    /// How many of them are elements whose text is not shown.
    private var skippedDepth = 0
    /// Whether the body has begun (and not ended): text outside it is put in a paragraph of
    /// its own.
    private var hasBody = false

    /// What an element does to the text.
    private enum Role {
        case block, listItem, lineBreak, link, skipped, inline
    }

    /// What the reducer knows of an element: plain values, looked up for every tag.
    private struct Element {
        var role = Role.inline
        /// It has no content and no end tag (`<br>`): it is never open.
        var isVoid = false
        /// `html`, `head` or `body`: never open.
        var isDocument = false
        /// `html` or `body`: its end tag ends every element.
        var endsEverything = false
        /// It may come before the body.
        var isHead = false
        /// How its end tag ranks: one ends no open element that ranks above it (libxml2's
        /// `htmlEndPriority`).
        var endTagRank = 100
        /// The start tags that end it when it is the innermost open element, as a set of their
        /// ``startTagBit``s.
        var endedBy: UInt64 = 0
        /// Its own bit among the start tags that end an element (0 when its start tag ends none).
        var startTagBit: UInt64 = 0
    }

    private struct OpenElement {
        let key: UInt64
        let role: Role
        let endTagRank: Int
        let endedBy: UInt64
    }

    /// The elements that are not plain inline ones.
    private static let elements: ElementTable = {
        var elements: [UInt64: Element] = [:]
        func set(_ names: [String], _ change: (inout Element) -> Void) {
            for name in names { change(&elements[HTMLTagName.key(of: name), default: Element()]) }
        }
        set(["p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "tr", "section", "article",
             "header", "footer", "dl", "dt", "dd", "figure", "hr", "blockquote"]) { $0.role = .block }
        set(["script", "style", "title"]) { $0.role = .skipped }
        set(["li"]) { $0.role = .listItem }
        set(["br"]) { $0.role = .lineBreak }
        set(["a"]) { $0.role = .link }
        set(["area", "base", "basefont", "br", "col", "embed", "frame", "hr", "img", "input", "isindex", "link",
             "meta", "param", "source", "track", "wbr"]) { $0.isVoid = true }
        set(["html", "head", "body"]) { $0.isDocument = true }
        set(["html", "body"]) { $0.endsEverything = true }
        set(["html", "head", "title", "meta", "link", "base", "script", "style"]) { $0.isHead = true }
        for (names, rank) in [(["div"], 150), (["td", "th"], 160), (["tr"], 170), (["thead", "tbody", "tfoot"], 180),
                              (["table"], 190)] {
            set(names) { $0.endTagRank = rank }
        }
        var bits: [String: UInt64] = [:]
        for (_, enders) in endedByStartTags {
            for ender in enders where bits[ender] == nil {
                precondition(bits.count < 64, "more start tags end elements than a UInt64 has bits")
                bits[ender] = 1 << UInt64(bits.count)
                set([ender]) { $0.startTagBit = bits[ender]! }
            }
        }
        for (ended, enders) in endedByStartTags {
            set(ended) { $0.endedBy |= enders.reduce(0) { $0 | bits[$1]! } }
        }
        return ElementTable(elements)
    }()

    /// The elements by ``HTMLTagName/key``, in a table of open addressing: a `Dictionary`
    /// hashes each key with SipHash, and a listing looks up every tag of thousands of notes.
    private struct ElementTable {
        private var keys: [UInt64]
        private var values: [Element]
        private let mask: Int

        init(_ elements: [UInt64: Element]) {
            var size = 64
            while size < elements.count * 4 { size *= 2 }
            mask = size - 1
            keys = Array(repeating: 0, count: size)  // no name has the key 0
            values = Array(repeating: Element(), count: size)
            for (key, element) in elements {
                var slot = HTMLTagName.firstSlot(of: key, mask: mask)
                while keys[slot] != 0 { slot = (slot + 1) & mask }
                keys[slot] = key
                values[slot] = element
            }
        }

        /// The element named by `key`, or a plain inline one.
        subscript(key: UInt64) -> Element {
            var slot = HTMLTagName.firstSlot(of: key, mask: mask)
            while true {
                let found = keys[slot]
                if found == key { return values[slot] }
                if found == 0 { return Element() }
                slot = (slot + 1) & mask
            }
        }
    }

    /// The start tags that end an open element when it is the innermost: HTML 4's rules, as
    /// libxml2 2.9 writes them (`htmlStartClose`).
    private static var endedByStartTags: [([String], [String])] {
        let rules = """
            a: a fieldset table td th
            address: dd dl dt form li ul
            b: center p td th
            big: p
            caption: col colgroup tbody tfoot thead tr
            col: col colgroup tbody tfoot thead tr
            colgroup: colgroup tbody tfoot thead tr
            dd: dt
            dir: dd dl dt form ul
            dl: form li
            dt: dd dl
            font: center td th
            form: form
            h1 h2 h3 h4 h5 h6: fieldset form li p table
            i: center p td th
            legend: fieldset
            li: li
            listing: dd dl dt fieldset form li table ul
            menu: dd dl dt form ul
            ol: form
            option: optgroup option
            p: address blockquote body caption center col colgroup dd dir div dl dt fieldset form frameset \
            h1 h2 h3 h4 h5 h6 head hr li listing menu ol p pre table tbody td tfoot th title tr ul xmp
            pre: dd dl dt fieldset form li table ul
            s: p
            script: noscript
            small: p
            span: td th
            strike: p
            style: body frameset
            tbody: tbody tfoot
            td: tbody td tfoot th tr
            tfoot: tbody
            th: tbody td tfoot th tr
            thead: tbody tfoot
            title: body frameset
            tr: tbody tfoot tr
            tt: p
            u: p td th
            ul: address form menu pre
            xmp: dd dl dt fieldset form li table ul
            """
        return rules.split(separator: "\n").map { rule in
            let parts = rule.split(separator: ":")
            return (parts[0].split(separator: " ").map(String.init), parts[1].split(separator: " ").map(String.init))
        }
    }

    private static let paragraph = HTMLTagName.key(of: "p")
    private static let href = HTMLTagName.key(of: "href")
    private static let bullet = Array("• ".utf8)

    /// Reduces `html` in place of what was read before, with the entity names met before in
    /// `entities`. One reducer reads the notes of a whole listing, its buffers kept.
    mutating func read(_ html: String, entities: HTMLEntities) {
        var html = html
        html.withUTF8 { read(utf8: $0, entities: entities) }
    }

    /// Reads HTML given as its UTF-8 bytes.
    mutating func read(utf8 html: UnsafeBufferPointer<UInt8>, entities: HTMLEntities) {
        body.removeAll(keepingCapacity: true)
        links = []  // handed over with the text, so not this reducer's alone to empty in place
        line.removeAll(keepingCapacity: true)
        paragraphHasLine = false
        openLink = nil
        openElements.removeAll(keepingCapacity: true)
        skippedDepth = 0
        hasBody = false
        HTMLTokenizer.read(html, into: &self, entities: entities)
        close(downTo: 0)
        endParagraph()
    }

    /// The paragraphs, then the links one a line (`[1] https://…`) after a blank line, as one
    /// text: the list goes on the end of `body`, which holds more than the paragraphs after.
    mutating func textWithLinks() -> String {
        for (index, link) in links.enumerated() {
            if index > 0 {
                body.append(0x0A)
            } else if !body.isEmpty {
                body.append(contentsOf: [0x0A, 0x0A])
            }
            body.append(UInt8(ascii: "["))
            body.append(contentsOf: String(index + 1).utf8)
            body.append(contentsOf: [UInt8(ascii: "]"), 0x20])
            body.append(contentsOf: link.utf8)
        }
        return body.withUnsafeBufferPointer { String(knownValidUTF8: $0) }
    }

    mutating func startTag(_ name: HTMLTagName, attributes: HTMLAttributes) {
        let element = Self.elements[name.key]
        while let innermost = openElements.last, innermost.endedBy & element.startTagBit != 0 {
            close(downTo: openElements.count - 1)
        }
        if !element.isHead { hasBody = true }
        if !element.isVoid && !element.isDocument {
            openElements.append(
                OpenElement(key: name.key, role: element.role, endTagRank: element.endTagRank, endedBy: element.endedBy))
        }
        start(element.role, attributes: attributes)
        if element.isVoid { end(element.role) }
    }

    private mutating func start(_ role: Role, attributes: HTMLAttributes?) {
        switch role {
        case .skipped: skippedDepth += 1
        case .lineBreak: endLine()
        case .block: endParagraph()
        case .listItem:
            endParagraph()
            line.append(contentsOf: Self.bullet)
        case .link:
            if let href = Self.webLink(attributes?.value(of: Self.href)) { openLink = (href, line.count) }
        case .inline: break
        }
    }

    mutating func endTag(_ name: HTMLTagName) {
        let element = Self.elements[name.key]
        if element.endsEverything {
            close(downTo: 0)
            // Text after it is a paragraph of its own, as libxml2 read it.
            hasBody = false
            return
        }
        for index in openElements.indices.reversed() {
            if openElements[index].key == name.key {
                close(downTo: index)
                return
            }
            if openElements[index].endTagRank > element.endTagRank { return }
        }
    }

    /// Ends the open elements from the innermost down to the one at `index`.
    private mutating func close(downTo index: Int) {
        while openElements.count > index {
            end(openElements.removeLast().role)
        }
    }

    private mutating func end(_ role: Role) {
        switch role {
        case .skipped: skippedDepth = max(0, skippedDepth - 1)
        case .block, .listItem: endParagraph()
        case .link:
            guard let link = openLink else { return }
            openLink = nil
            let text = Self.trimmed(line, from: link.start)
            guard line[text].elementsEqual(link.url.utf8) == false else { return }
            let number = (links.firstIndex(of: link.url) ?? { links.append(link.url); return links.count - 1 }()) + 1
            line.append(contentsOf: [0x20, UInt8(ascii: "[")])
            line.append(contentsOf: String(number).utf8)
            line.append(UInt8(ascii: "]"))
        case .lineBreak, .inline: break
        }
    }

    /// Appends text, every run of white space (a no-break space too) as one space.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        if !hasBody && openElements.isEmpty && bytes.contains(where: { !HTMLSyntax.isBlank($0) }) {
            hasBody = true
            let paragraph = Self.elements[Self.paragraph]
            openElements.append(
                OpenElement(key: Self.paragraph, role: .block, endTagRank: paragraph.endTagRank, endedBy: paragraph.endedBy))
            start(.block, attributes: nil)
        }
        guard skippedDepth == 0 else { return }
        let count = bytes.count
        // Runs of text with single spaces go in one copy; a line's first text takes no space.
        var run = 0
        var index = 0
        var follows = line.last.map { $0 == 0x20 } ?? true
        while index < count {
            if index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                if Self.isPlain(word, afterSpace: follows) {
                    follows = word >> 56 == 0x20
                    index += 8
                    continue
                }
            }
            let byte = bytes[index]
            if byte == 0x20 {
                if follows {
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    run = index + 1
                }
                follows = true
                index += 1
            } else if byte == 0x09 || byte == 0x0A || byte == 0x0D || (byte == 0xC2 && index + 1 < count && bytes[index + 1] == 0xA0) {
                line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                if !follows { line.append(0x20) }
                follows = true
                index += byte == 0xC2 ? 2 : 1
                run = index
            } else {
                follows = false
                index += 1
            }
        }
        line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<count]))
    }

    /// Whether eight bytes of text are copied as they are: no tab, line break or other
    /// control, no no-break space (nor any other character starting with 0xC2), and no space
    /// after a space. Most words of show notes are; they are looked at a byte at a time
    /// otherwise. A byte flagged wrongly (a borrow past a space) only costs that slower look.
    private static func isPlain(_ word: UInt64, afterSpace: Bool) -> Bool {
        let lows = UInt64(0x0101_0101_0101_0101)
        let highs = UInt64(0x8080_8080_8080_8080)
        let spaces = word ^ (lows &* 0x20)
        let nbsp = word ^ (lows &* 0xC2)
        let spaceFlags = (spaces &- lows) & ~spaces & highs
        let special = ((word &- lows &* 0x20) & ~word | (nbsp &- lows) & ~nbsp) & highs
        let leadingSpace: UInt64 = afterSpace ? spaceFlags & 0x80 : 0
        return special | spaceFlags & (spaceFlags << 8) | leadingSpace == 0
    }

    private mutating func endLine() {
        let finished = Self.trimmed(line)
        if !finished.isEmpty && !Self.isBulletAlone(line[finished]) {
            if paragraphHasLine {
                body.append(0x0A)
            } else if !body.isEmpty {
                body.append(0x0A)
                body.append(0x0A)
            }
            body.append(contentsOf: line[finished])
            paragraphHasLine = true
        }
        // No slice of the line outlives this point: emptied while one held its storage, the
        // line would be given new storage for every line of every note.
        line.removeAll(keepingCapacity: true)
        openLink = nil
    }

    private mutating func endParagraph() {
        endLine()
        paragraphHasLine = false
    }

    /// Whether a trimmed line is a list item's bullet, `•`, and nothing else.
    private static func isBulletAlone(_ bytes: ArraySlice<UInt8>) -> Bool {
        let start = bytes.startIndex
        return bytes.count == 3 && bytes[start] == 0xE2 && bytes[start + 1] == 0x80 && bytes[start + 2] == 0xA2
    }

    /// The range of `bytes` from `start` without the spaces, tabs and line breaks at either end.
    private static func trimmed(_ bytes: [UInt8], from start: Int = 0) -> Range<Int> {
        var lower = start
        var upper = bytes.count
        while lower < upper, HTMLSyntax.isBlank(bytes[lower]) { lower += 1 }
        while upper > lower, HTMLSyntax.isBlank(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// A link's `href` when it is an http(s) URL, trimmed.
    private static func webLink(_ href: [UInt8]?) -> String? {
        guard let href else { return nil }
        let link = href[trimmed(href)]
        // Lower case for the letters compared; `|` leaves `:` and `/` as they are.
        let scheme = link.lazy.map { $0 | 0x20 }
        guard scheme.starts(with: http) || scheme.starts(with: https) else { return nil }
        return String(decoding: link, as: UTF8.self)
    }

    private static let http = Array("http://".utf8)
    private static let https = Array("https://".utf8)
}
