import Foundation

/// The pieces of downloaded episodes' file names: derived from the episode title, safe on any
/// POSIX file system, and never carrying a feed's tracking query string. ``EpisodesFolder``
/// puts them together: it is the one owner of a download's name.
public enum FileNaming {
    /// The longest file name produced, in UTF-8 bytes, extension and clash tag included
    /// (most Linux file systems allow 255; the rest leaves room for `.part.meta` and an
    /// extension added at completion).
    public static let maximumNameBytes = 200

    /// A safe file name for an episode.
    ///
    /// - The title without HTML tags (`Notes with <em>markup</em>` → `Notes with markup`),
    ///   with `/`, NUL and control characters replaced, runs of whitespace
    ///   collapsed to one space, and leading `-`, `.` and spaces removed; when nothing is
    ///   left, the URL's last path component, else `episode`.
    /// - An extension from the URL's path when it is a known media extension (query strings
    ///   are ignored), else from `announcedType`, else none (``EpisodesFolder`` then picks one
    ///   from the response's `Content-Type` at completion).
    /// - At most ``maximumNameBytes`` UTF-8 bytes, cut between whole characters.
    public static func safeName(forTitle title: String, url: URL?, announcedType: String?) -> String {
        let ext = url.flatMap(fileExtension(forURL:)) ?? announcedType.flatMap(fileExtension(forMIMEType:))
        var base = clean(withoutTags(title))
        if base.isEmpty {
            let last = url?.deletingPathExtension().lastPathComponent ?? ""
            base = clean(last == "/" ? "" : last)
        }
        if base.isEmpty { base = "episode" }
        if let ext, base.lowercased().hasSuffix("." + ext) {
            base = clean(String(base.dropLast(ext.count + 1)))
            if base.isEmpty { base = "episode" }
        }
        return join(base, ext)
    }

    /// The media extension of a file name (`mp3` of `Title.mp3`), lowercased; nil when the
    /// name has none (`Ep. 12`, `Version 2.0`, `Title.chapters.json`).
    static func mediaExtension(of name: String) -> String? {
        let ext = (name as NSString).pathExtension.lowercased()
        return mediaExtensions.contains(ext) && name.count > ext.count + 1 ? ext : nil
    }

    /// A file name without its media extension (`Title` of `Title.mp3`; `Ep. 12` stays whole).
    static func stem(of name: String) -> String {
        guard let ext = mediaExtension(of: name) else { return name }
        return String(name.dropLast(ext.count + 1))
    }

    /// The tag that tells apart episodes whose titles give the same name: ` [a1b2c3]`, the
    /// ``stableHash(_:)`` of the enclosure URL.
    static func clashTag(forEnclosureURL url: String) -> String {
        " [" + stableHash(url) + "]"
    }

    /// Six hex digits of the 64-bit FNV-1a hash of `text` (``StableHash/mixBytes(_:)``: stable
    /// across runs and machines, unlike Swift's seeded `Hasher`).
    static func stableHash(_ text: String) -> String {
        var hash = StableHash()
        var text = text
        text.withUTF8 { hash.mixBytes(UnsafeRawBufferPointer($0)) }
        let hex = String(hash.value, radix: 16)
        return String(String(repeating: "0", count: max(0, 16 - hex.count)) + hex).prefix(6).description
    }

    /// The usual extension for a media type (`audio/mpeg` → `mp3`), parameters ignored.
    public static func fileExtension(forMIMEType type: String) -> String? {
        let essence = type.split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch essence {
        case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg", "audio/x-mp3", "audio/mpg": return "mp3"
        case "audio/mp4", "audio/x-m4a", "audio/m4a", "audio/mp4a-latm": return "m4a"
        case "audio/x-m4b", "audio/m4b": return "m4b"
        case "audio/aac", "audio/x-aac", "audio/aacp": return "aac"
        case "audio/ogg", "application/ogg", "audio/vorbis", "audio/x-ogg": return "ogg"
        case "audio/opus": return "opus"
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave": return "wav"
        case "audio/flac", "audio/x-flac": return "flac"
        case "audio/webm", "video/webm": return "webm"
        case "audio/x-matroska": return "mka"
        case "video/x-matroska": return "mkv"
        case "video/mp4": return "mp4"
        case "video/x-m4v": return "m4v"
        case "video/quicktime": return "mov"
        case "video/3gpp", "audio/3gpp": return "3gp"
        case "application/pdf": return "pdf"
        case "application/epub+zip": return "epub"
        default: return nil
        }
    }

    /// What follows an episode file's stem in the name of an extra: `chapters.json`, or a
    /// transcript's language (letters, digits, `-` and `_` only) and its format's extension:
    /// `en.vtt`, `pt-br.srt`, `txt`.
    static func extraSuffix(for extra: Extra) -> String {
        switch extra.kind {
        case .chapters:
            return "chapters.json"
        case .transcript:
            let ext = TranscriptFormat(Transcript(url: extra.url, type: extra.type))?.fileExtension ?? "txt"
            let language = String((extra.language ?? "").lowercased().unicodeScalars.filter {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }.prefix(35).map(Character.init))
            return language.isEmpty || language == "chapters" ? ext : language + "." + ext
        }
    }

    /// Extensions taken from an enclosure URL's path (anything else, such as `.php`, is not
    /// the media's extension).
    static let mediaExtensions: Set<String> = [
        "mp3", "m4a", "m4b", "aac", "ogg", "oga", "opus", "wav", "flac", "webm", "mka", "mkv",
        "mp4", "m4v", "mov", "3gp", "pdf", "epub",
    ]

    static func fileExtension(forURL url: URL) -> String? {
        let ext = url.pathExtension.lowercased()
        return mediaExtensions.contains(ext) ? ext : nil
    }

    /// `text` without the HTML tags some feeds leave in titles: `<` followed by a letter, `/` or
    /// `!`, up to the next `>`; a `<` that starts no tag (`a < b`) stays.
    static func withoutTags(_ text: String) -> String {
        guard text.contains("<") else { return text }
        var result = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            let next = rest.index(after: open)
            guard next < rest.endIndex, rest[next].isLetter || rest[next] == "/" || rest[next] == "!",
                let close = rest[next...].firstIndex(of: ">")
            else {
                result += rest[...open]
                rest = rest[next...]
                continue
            }
            result += rest[..<open]
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Replaces `/`, NUL and control characters, collapses whitespace, trims, and drops
    /// leading `-` and `.`.
    static func clean(_ text: String) -> String {
        var result = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace
                || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format && scalar.value < 0xFF
            if isSpace {
                pendingSpace = !result.isEmpty
                continue
            }
            let mapped: Unicode.Scalar = scalar == "/" ? "-" : scalar
            if result.isEmpty && (mapped == "-" || mapped == ".") { continue }
            if pendingSpace {
                result.unicodeScalars.append(" ")
                pendingSpace = false
            }
            result.unicodeScalars.append(mapped)
        }
        return result
    }

    /// `base` + `suffix` + `.ext`, with `base` cut between characters to fit ``maximumNameBytes``.
    static func join(_ base: String, _ ext: String?, suffix: String = "") -> String {
        let tail = suffix + (ext.map { "." + $0 } ?? "")
        let budget = maximumNameBytes - tail.utf8.count
        var cut = ""
        var used = 0
        for character in base {
            let size = character.utf8.count
            guard used + size <= budget else { break }
            cut.append(character)
            used += size
        }
        while let last = cut.last, last == " " || last == "." { cut.removeLast() }
        if cut.isEmpty { cut = "episode" }
        return cut + tail
    }
}
