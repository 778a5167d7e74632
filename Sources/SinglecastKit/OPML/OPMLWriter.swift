import Foundation

/// One feed to write into an OPML file.
public struct OPMLFeed: Equatable, Sendable {
    public var title: String
    public var feedURL: URL

    public init(title: String, feedURL: URL) {
        self.title = title
        self.feedURL = feedURL
    }
}

/// Writes OPML 2.0 subscription lists, as gPodder and newsboat read them.
public enum OPMLWriter {
    /// The document: `<head>` with the title and the date, one `<outline type="rss">` per feed.
    public static func document(title: String, feeds: [OPMLFeed], created: Date = Date()) -> Data {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>\(escape(title))</title>",
            "    <dateCreated>\(RFC822Date.format(created))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        for feed in feeds {
            let name = escape(feed.title)
            lines.append(#"    <outline type="rss" text="\#(name)" title="\#(name)" xmlUrl="\#(escape(feed.feedURL.absoluteString))"/>"#)
        }
        lines += ["  </body>", "</opml>", ""]
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// Text made safe for an element or a double-quoted attribute.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            case "\t": escaped += "&#9;"
            default:
                // Control characters XML 1.0 forbids are left out.
                if character.value < 0x20 && character != "\r" { continue }
                escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
