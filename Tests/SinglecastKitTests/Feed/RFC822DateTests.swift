import Foundation
import SinglecastKit
import Testing

private func utc(_ iso8601: String) -> Date {
    try! Date(iso8601, strategy: .iso8601)
}

@Suite struct RFC822DateTests {
    @Test(arguments: [
        ("Wed, 02 Oct 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 13:00:00 UT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 13:00:00 UTC", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 13:00:00 Z", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 15:00:00 +0200", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 08:00:00 -0500", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 08:00:00 EST", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 09:00:00 EDT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 07:00:00 CST", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 08:00:00 CDT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 06:00:00 MST", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 07:00:00 MDT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 05:00:00 PST", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 06:00:00 PDT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 15:00:00 +02:00", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 14:00:00 GMT+0100", "2002-10-02T13:00:00Z"),
        // Deviations
        ("Wed, 02 Oct 2002 13:00 GMT", "2002-10-02T13:00:00Z"),  // no seconds
        ("Wed, 02 Oct 02 13:00:00 GMT", "2002-10-02T13:00:00Z"),  // two-digit year
        ("Fri, 02 Oct 98 13:00:00 GMT", "1998-10-02T13:00:00Z"),
        ("Thu, 01 Jan 70 00:00:00 GMT", "1970-01-01T00:00:00Z"),  // RFC 2822: 50-99 are 19xx
        ("Wed, 01 Jan 50 00:00:00 GMT", "1950-01-01T00:00:00Z"),
        ("Sat, 01 Jan 49 00:00:00 GMT", "2049-01-01T00:00:00Z"),  // 00-49 are 20xx
        ("Sat, 01 Jan 00 00:00:00 GMT", "2000-01-01T00:00:00Z"),
        ("Wed, 02 Oct 2002 14:00:00 BST", "2002-10-02T13:00:00Z"),  // British Summer Time, +01:00
        ("Wed, 02 Oct 2002 14:00:00 CET", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 15:00:00 CEST", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 15:00:00 EET", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 16:00:00 EEST", "2002-10-02T13:00:00Z"),
        ("Mon, 02 Sept 2002 13:00:00 GMT", "2002-09-02T13:00:00Z"),
        ("Wednesday, 02 October 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),  // full names
        ("Mon, 02 Oct 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),  // wrong weekday
        ("02 Oct 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),  // no weekday
        ("  Wed,  2   Oct 2002  13:00:00   GMT  ", "2002-10-02T13:00:00Z"),  // extra whitespace
        ("Wed,02 Oct 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),
        ("wed, 02 OCT 2002 13:00:00 gmt", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 13:00:00", "2002-10-02T13:00:00Z"),  // no zone
        ("Wed, 02 Oct 2002 13:00:00 XYZ", "2002-10-02T13:00:00Z"),  // unknown zone
        ("Wed, 02 Oct 2002", "2002-10-02T00:00:00Z"),  // no time
        ("Wed, Oct 02 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),  // month first
        ("Thu, 29 Feb 2024 23:59:59 +0000", "2024-02-29T23:59:59Z"),
        ("Sat, 01 Jan 2000 00:30:00 +0100", "1999-12-31T23:30:00Z"),
        ("Wed, 02 Oct 2002 13:00:00.500 GMT", "2002-10-02T13:00:00.500Z"),
    ])
    func parses(string: String, expected: String) {
        #expect(RFC822Date.parse(string) == utc(expected))
    }

    @Test(arguments: [
        "", "   ", "garbage", "Wed, ", "Wed, 02", "Wed, 02 Foo 2002 13:00:00 GMT", "Wed, 32 Oct 2002 13:00:00 GMT",
        "Thu, 29 Feb 2023 13:00:00 GMT", "Wed, 02 Oct 2002 25:00:00 GMT", "Wed, 02 Oct 2002 13:61:00 GMT",
        "Wed, 02 Oct 2002 13:00:00 +9999", "Wed, 02 Oct 20021 13:00:00 GMT", "Ju, 02 Oct 2002", "Wed, 02 Oct 2002 13",
        "2024-06-01T12:00:00Z",
    ])
    func rejects(string: String) {
        #expect(RFC822Date.parse(string) == nil)
    }
}

@Suite struct RFC3339DateTests {
    @Test(arguments: [
        ("2024-06-01T12:00:00Z", "2024-06-01T12:00:00Z"),
        ("2024-06-01T12:00:00z", "2024-06-01T12:00:00Z"),
        ("2024-06-01T12:00:00.25Z", "2024-06-01T12:00:00.250Z"),
        ("2024-06-01T12:00:00.123456789Z", "2024-06-01T12:00:00.123Z"),
        ("2024-06-01T14:00:00+02:00", "2024-06-01T12:00:00Z"),
        ("2024-06-01T07:00:00-0500", "2024-06-01T12:00:00Z"),
        ("2024-06-01T14:00:00.5+02:00", "2024-06-01T12:00:00.500Z"),
        ("2024-06-01 12:00:00Z", "2024-06-01T12:00:00Z"),
        ("2024-06-01T12:00:00", "2024-06-01T12:00:00Z"),
        ("2024-06-01T12:00Z", "2024-06-01T12:00:00Z"),
        ("2024-06-01", "2024-06-01T00:00:00Z"),
        (" 2024-06-01T12:00:00Z\n", "2024-06-01T12:00:00Z"),
    ])
    func parses(string: String, expected: String) throws {
        let date = try #require(RFC3339Date.parse(string))
        #expect(abs(date.timeIntervalSince(utc(expected))) < 0.001)
    }

    @Test(arguments: [
        "", "garbage", "2024-13-01T12:00:00Z", "2024-02-30", "24-06-01T12:00:00Z", "2024-06-01T12:00:00+25:00",
        "2024-06-01T12:00:00Zjunk", "2024-06-01T", "Sat, 01 Jun 2024 12:00:00 GMT",
    ])
    func rejects(string: String) {
        #expect(RFC3339Date.parse(string) == nil)
    }
}
