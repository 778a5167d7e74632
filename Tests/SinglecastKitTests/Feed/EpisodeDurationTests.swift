import SinglecastKit
import Testing

@Suite struct EpisodeDurationTests {
    @Test(arguments: [
        ("0", 0), ("45", 45), ("754", 754), ("90.5", 90), ("1:05", 65), ("75:00", 4500), ("01:05", 65),
        ("1:02:03", 3723), ("01:02:03", 3723), ("1:02:03.5", 3723), ("00:00:59", 59), ("0:0:0", 0),
        ("  12:34  ", 754), ("\n1:00:00\n", 3600), ("10:00:00", 36000),
    ])
    func parses(string: String, seconds: Int) {
        #expect(EpisodeDuration.parse(string) == seconds)
    }

    @Test(arguments: [
        "", " ", "abc", "-01:15:15", "o1:15:15", "1:2:3:4", ":", "1:", ":30", "1::2", "1.5:00", "90.", "1:02:03.",
        "1:02:03.5.5", "+5", "1 h", "12345678901234567890", "1:99999999999", "٣:٠٠",
        // Found by Fuzz/run.py episode-duration: more parts than H:M:S overflowed before being refused.
        "1:0:10:1:02:0:00:0:2:0:00:0:0:00:006.0:00:006.", "59:59:59:59:59:59:59:59:59:59:59:59",
    ])
    func rejects(string: String) {
        #expect(EpisodeDuration.parse(string) == nil)
    }
}
