import Foundation

extension URL {
    /// The URL as text with its password hidden: `https://user:***@host/feed.xml`.
    ///
    /// Use it wherever a URL is shown or written for people: tables, JSON, error messages,
    /// logs, exports. A URL without a password reads as ``absoluteString``.
    public var redacted: String { absoluteString.redactingURLPasswords }
}

extension String {
    /// This text with the password of every URL in it hidden
    /// (`https://user:secret@host/` becomes `https://user:***@host/`); the rest is unchanged.
    ///
    /// For text that may hold URLs (an error's details, a log line); for a `URL` use ``URL/redacted``.
    public var redactingURLPasswords: String {
        var text = self
        let hasAt = text.withUTF8 { bytes in
            bytes.baseAddress.map { memchr($0, Int32(UInt8(ascii: "@")), bytes.count) != nil } ?? false
        }
        guard hasAt else { return self }
        // `scheme://user:` then a password up to the last `@` of the authority.
        return replacing(#/([A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s:@]*):[^/?#\s]*@/#) { "\($0.output.1):***@" }
    }
}
