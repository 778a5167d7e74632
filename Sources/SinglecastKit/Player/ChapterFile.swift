import Foundation

/// Chapters as an FFmpeg metadata file (`;FFMETADATA1`), the format of mpv's `--chapters-file`.
///
/// Times are in milliseconds (`TIMEBASE=1/1000`); each chapter ends where the next begins, the
/// last one at `duration` when it is known (else one second after it starts: mpv uses only
/// the starts). In titles, `=`, `;`, `#` and `\` are escaped with a backslash, as the format
/// requires; line breaks become spaces.
enum ChapterFile {
    static func text(_ chapters: [PlaybackChapter], duration: Double? = nil) -> String {
        var text = ";FFMETADATA1\n"
        let sorted = chapters.sorted { $0.start < $1.start }
        for (index, chapter) in sorted.enumerated() {
            let start = milliseconds(chapter.start)
            let end =
                index + 1 < sorted.count
                ? milliseconds(sorted[index + 1].start)
                : max(start + 1000, duration.map(milliseconds) ?? 0)
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(max(end, start))\ntitle=\(escaped(chapter.title))\n"
        }
        return text
    }

    private static func milliseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64((seconds * 1000).rounded())
    }

    private static func escaped(_ title: String) -> String {
        var result = ""
        for character in title {
            switch character {
            case "=", ";", "#", "\\": result += "\\" + String(character)
            case "\n", "\r\n", "\r": result += " "
            default: result.append(character)
            }
        }
        return result
    }
}
