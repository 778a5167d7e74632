import Foundation
import Testing
import TestSupport

@testable import SinglecastKit

/// Each transcript format `--with-extras` saves, read into cues with their times (or none).
@Suite struct TranscriptReaderTests {
    private func cues(_ fixture: String, _ format: TranscriptFormat) throws -> [TranscriptCue] {
        try TranscriptReader.cues(file: Fixtures.url("find/\(fixture)").path, format: format)
    }

    @Test func webVTTCuesHaveTheirStartsAndLoseTheirVoiceAndStyleTags() throws {
        #expect(
            try cues("talk.vtt", .vtt) == [
                TranscriptCue(start: 1, text: "Welcome back to Loopback Databases."),
                TranscriptCue(start: 754.5, text: "SQLite's write-ahead log keeps readers and the writer apart."),
                TranscriptCue(start: 1200, text: "Thanks for listening."),
            ])
    }

    @Test func srtCuesWithCommasAndCRLFJoinTheirLines() throws {
        #expect(
            try cues("talk.srt", .srt) == [
                TranscriptCue(start: 1, text: "Willkommen zurück."),
                TranscriptCue(start: 187.25, text: "Heute geht es um Kaffeehäuser und ihre Geschichte."),
                TranscriptCue(start: 540, text: "Tschüss!"),
            ])
    }

    @Test func podcastingJSONSegmentsKeepTheirStartTimes() throws {
        #expect(try cues("talk.json", .json).map(\.start) == [0.5, 95.25, 300])
        #expect(try cues("talk.json", .json)[1].text == "Bread ovens need a sourdough starter fed daily.")
    }

    @Test func htmlAndPlainTextHaveParagraphsWithoutTimes() throws {
        #expect(
            try cues("talk.html", .html) == [
                TranscriptCue(start: nil, text: "Host: Today we talk about lighthouses & their keepers."),
                TranscriptCue(start: nil, text: "Guest: A Fresnel lens throws the light twenty miles."),
            ])
        let text = try cues("talk.txt", .text)
        #expect(text.map(\.start) == [nil, nil])
        #expect(text[1].text == "Guest: Rooftop hives give more honey than you would think, and a < b is no tag.")
    }

    @Test func aFileThatIsNotTheTranscriptItClaimsIsUnreadableByName() throws {
        let path = Fixtures.url("find/not-a-transcript.vtt").path
        #expect(throws: UnreadableTranscript(file: path, reason: .notFormat("vtt"))) { try cues("not-a-transcript.vtt", .vtt) }
        #expect(throws: UnreadableTranscript(file: path, reason: .notFormat("srt"))) { try cues("not-a-transcript.vtt", .srt) }
        #expect(throws: UnreadableTranscript(file: path, reason: .notFormat("json"))) { try cues("not-a-transcript.vtt", .json) }
        let missing = Fixtures.url("find/missing.vtt").path
        #expect(throws: UnreadableTranscript(file: missing, reason: .file(errno: ENOENT))) { try cues("missing.vtt", .vtt) }
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("binary-\(UUID().uuidString).txt")
        try Data([0xFF, 0xFE, 0x00, 0x80]).write(to: binary)
        defer { try? FileManager.default.removeItem(at: binary) }
        #expect(throws: UnreadableTranscript(file: binary.path, reason: .notText)) {
            try TranscriptReader.cues(file: binary.path, format: .text)
        }
    }

    @Test(arguments: [
        ("00:12:34.500", 754.5), ("12:34.500", 754.5), ("01:00:00,250", 3600.25), ("1:02:03", 3723.0),
        ("-01:00:00", nil), ("o1:00:00", nil), ("12", nil), ("", nil), ("1:2:3:4", nil),
    ] as [(String, Double?)])
    func timestamps(text: String, seconds: Double?) {
        #expect(TranscriptReader.timestamp(Substring(text)) == seconds)
    }
}
