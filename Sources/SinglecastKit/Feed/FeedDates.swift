import Foundation

/// Parses the dates of RSS (`<pubDate>`): RFC 822 as updated by RFC 1123 and 2822,
/// `"Wed, 02 Oct 2002 13:00:00 GMT"`.
///
/// Lenient the way feeds need it: the weekday may be missing or wrong, seconds may be
/// missing, years may have two digits (00–49 mean 20xx), month and day names may be written
/// out (`"Sept"`, `"September"`, `"Thursday"`), the month may come before the day, and the
/// zone may be a name (`UT`, `GMT`, `Z`, `EST`…`PDT`, a few European ones), `+hhmm`, `+hh:mm`
/// or missing (then UTC); an unknown zone name counts as UTC. Anything after the zone is ignored.
/// Hand-written, without `DateFormatter`, for speed and locale independence.
public enum RFC822Date {
    /// The date, or nil when `s` is not an RFC 822 date.
    public static func parse(_ s: String) -> Date? {
        var s = s
        return s.withUTF8 { bytes in
            var scanner = DateScanner(bytes)
            return scanner.rfc822()
        }
    }

    /// `date` as RFC 822 writes it in UTC, as HTTP and OPML use it: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

/// Parses the dates of Atom (`<published>`, `<updated>`): RFC 3339, the internet profile of
/// ISO 8601, `"2024-06-01T12:00:00.5+02:00"`.
///
/// Lenient: `T` may be a space, seconds and the zone may be missing (then UTC), the zone may be
/// written `+hhmm`, and a date alone means midnight UTC.
public enum RFC3339Date {
    /// The date, or nil when `s` is not an RFC 3339 date.
    public static func parse(_ s: String) -> Date? {
        var s = s
        return s.withUTF8 { bytes in
            var scanner = DateScanner(bytes)
            return scanner.rfc3339()
        }
    }
}

/// A cursor over the bytes of a date.
private struct DateScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skip(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// Skips whitespace, and with `separators` also the `,`, `-` and `/` between parts of a date.
    private mutating func skipSpaces(andSeparators separators: Bool = false) {
        while let byte = current {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case 0x2C, 0x2D, 0x2F:
                guard separators else { return }
                index += 1
            default:
                return
            }
        }
    }

    /// A run of 1 to `maxDigits` digits, with how many there were.
    private mutating func number(maxDigits: Int) -> (value: Int, digits: Int)? {
        var value = 0
        var digits = 0
        while let byte = current, byte >= 0x30, byte <= 0x39 {
            guard digits < maxDigits else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
            index += 1
        }
        return digits > 0 ? (value, digits) : nil
    }

    /// A run of letters.
    private mutating func word() -> Slice<UnsafeBufferPointer<UInt8>>? {
        let start = index
        while let byte = current, (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x7A {
            index += 1
        }
        return index > start ? bytes[start..<index] : nil
    }

    /// A `.fff` fraction of a second, or 0.
    private mutating func fraction() -> Double? {
        guard skip(0x2E) || skip(0x2C) else { return 0 }
        let start = index
        guard number(maxDigits: 18) != nil else { return nil }
        return Double("0." + String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// `hh:mm[:ss[.fff]]`.
    private mutating func time() -> (seconds: Int, fraction: Double)? {
        guard let hour = number(maxDigits: 2), skip(0x3A), let minute = number(maxDigits: 2) else { return nil }
        var second = 0
        var fraction = 0.0
        if skip(0x3A) {
            guard let s = number(maxDigits: 2), let f = self.fraction() else { return nil }
            second = s.value
            fraction = f
        }
        guard hour.value <= 23, minute.value <= 59, second <= 60 else { return nil }
        return (hour.value * 3600 + minute.value * 60 + second, fraction)
    }

    /// `+hhmm`, `+hh:mm` or `+hh` (or with `-`), in seconds east of UTC; nil without a sign.
    private mutating func numericZone() -> Int?? {
        let sign: Int
        if skip(0x2B) { sign = 1 } else if skip(0x2D) { sign = -1 } else { return .some(nil) }
        guard let first = number(maxDigits: 4) else { return nil }
        var hours = first.value
        var minutes = 0
        switch first.digits {
        case 4:
            hours = first.value / 100
            minutes = first.value % 100
        case 1, 2:
            if skip(0x3A) {
                guard let m = number(maxDigits: 2) else { return nil }
                minutes = m.value
            }
        default:
            return nil
        }
        guard hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    mutating func rfc822() -> Date? {
        skipSpaces()
        var monthFirst: Int?
        if let name = word() {
            if let month = Self.month(named: name) {
                monthFirst = month
            } else {
                guard Self.isWeekday(name) else { return nil }
            }
        }
        skipSpaces(andSeparators: true)
        if monthFirst == nil, current.map({ !(0x30...0x39).contains($0) }) ?? false,
            let name = word()
        {
            monthFirst = Self.month(named: name)  // "Thursday, Sept 5 2024"
            guard monthFirst != nil else { return nil }
            skipSpaces(andSeparators: true)
        }
        guard let day = number(maxDigits: 2) else { return nil }
        skipSpaces(andSeparators: true)
        let month: Int
        if let monthFirst {
            month = monthFirst
        } else {
            guard let name = word(), let m = Self.month(named: name) else { return nil }
            month = m
            skipSpaces(andSeparators: true)
        }
        guard let yearNumber = number(maxDigits: 4) else { return nil }
        let year: Int
        switch yearNumber.digits {
        case 4: year = yearNumber.value
        case 2: year = yearNumber.value + (yearNumber.value < 50 ? 2000 : 1900)
        case 3: year = yearNumber.value + 1900
        default: return nil
        }
        skipSpaces(andSeparators: true)
        var seconds = 0
        var fraction = 0.0
        var offset = 0
        if current != nil {
            guard let t = time() else { return nil }
            (seconds, fraction) = t
            skipSpaces()
            if let name = word() {
                offset = Self.zoneOffset(name) ?? 0
                skipSpaces()
            }
            guard let zone = numericZone() else { return nil }  // also after a name: "GMT+0100"
            offset += zone ?? 0
        }
        return Self.date(year: year, month: month, day: day.value, seconds: seconds - offset, fraction: fraction)
    }

    mutating func rfc3339() -> Date? {
        skipSpaces()
        guard let year = number(maxDigits: 4), year.digits == 4, skip(0x2D),
            let month = number(maxDigits: 2), skip(0x2D),
            let day = number(maxDigits: 2)
        else { return nil }
        var seconds = 0
        var fraction = 0.0
        var offset = 0
        if skip(0x54) || skip(0x74) || skip(0x20) {
            guard let t = time() else { return nil }
            (seconds, fraction) = t
            if !(skip(0x5A) || skip(0x7A)) {
                guard let zone = numericZone() else { return nil }
                offset = zone ?? 0
            }
        }
        skipSpaces()
        guard current == nil else { return nil }
        return Self.date(year: year.value, month: month.value, day: day.value, seconds: seconds - offset, fraction: fraction)
    }

    /// The date `seconds` after midnight UTC of a day, nil for days that do not exist.
    private static func date(year: Int, month: Int, day: Int, seconds: Int, fraction: Double) -> Date? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static let months: [StaticString] = [
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ]
    private static let weekdays: [StaticString] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Whether `word` is the start of `name` (a lowercase name), ignoring case.
    private static func word(_ word: Slice<UnsafeBufferPointer<UInt8>>, begins name: StaticString) -> Bool {
        word.count <= name.utf8CodeUnitCount
            && zip(word, UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Whether `word` is `name` or its start of three letters or more ("Sep", "Sept").
    private static func word(_ word: Slice<UnsafeBufferPointer<UInt8>>, abbreviates name: StaticString) -> Bool {
        word.count >= 3 && Self.word(word, begins: name)
    }

    /// 1...12 for a month's name or its abbreviation ("Sep", "Sept").
    private static func month(named name: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        months.firstIndex { word(name, abbreviates: $0) }.map { $0 + 1 }
    }

    private static func isWeekday(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        weekdays.contains { word(name, abbreviates: $0) }
    }

    /// Seconds east of UTC of a zone name.
    private static func zoneOffset(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        zoneOffsets.first { $0.name.utf8CodeUnitCount == name.count && word(name, begins: $0.name) }?.offset
    }

    /// Seconds east of UTC for the zone names feeds use.
    private static let zoneOffsets: [(name: StaticString, offset: Int)] = [
        ("gmt", 0), ("ut", 0), ("utc", 0), ("z", 0),
        ("est", -5 * 3600), ("edt", -4 * 3600), ("cst", -6 * 3600), ("cdt", -5 * 3600),
        ("mst", -7 * 3600), ("mdt", -6 * 3600), ("pst", -8 * 3600), ("pdt", -7 * 3600),
        ("bst", 3600), ("cet", 3600), ("cest", 2 * 3600), ("eet", 2 * 3600), ("eest", 3 * 3600),
    ]
}
