import Foundation
import Testing

@testable import SinglecastKit

/// The gpodder API's JSON: read leniently, written strictly.
@Suite struct SyncWireTests {
    @Test(arguments: [
        ("2009-12-12T09:00:00", 1_260_608_400.0),
        ("2009-12-12T09:00:00Z", 1_260_608_400.0),
        ("2009-12-12t09:00:00z", 1_260_608_400.0),
        ("2009-12-12 09:00:00", 1_260_608_400.0),
        ("2009-12-12T09:00:00.5", 1_260_608_400.5),
        ("2009-12-12T09:00:00.250Z", 1_260_608_400.25),
        ("2009-12-12T11:00:00+02:00", 1_260_608_400.0),
        ("2009-12-12T04:00:00-0500", 1_260_608_400.0),
        ("1970-01-01T00:00:00", 0.0),
        ("2024-02-29T23:59:59", 1_709_251_199.0),
    ])
    func readsTimestamps(text: String, seconds: Double) {
        #expect(SyncWire.seconds(fromTimestamp: text) == seconds)
    }

    @Test(arguments: [
        "", "2009-12-12", "2009-12-12T09:00", "2009-13-12T09:00:00", "2009-12-12T25:00:00", "o009-12-12T09:00:00",
        "2009-12-12T09:00:00 ", "2009-12-12T09:00:00+", "2009-12-12T09:00:00.", "2009-12-12T09:00:00Zjunk", "-009-12-12T09:00:00",
    ])
    func refusesGarbageTimestamps(text: String) {
        #expect(SyncWire.seconds(fromTimestamp: text) == nil)
    }

    @Test func writesPlainUTCTimestamps() {
        #expect(SyncWire.timestamp(Date(timeIntervalSince1970: 1_260_608_400.9)) == "2009-12-12T09:00:00")
        #expect(SyncWire.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00")
    }

    @Test func readsActionsLeniently() throws {
        let json = """
            {"timestamp": "1700000005", "unknown": {"x": 1}, "actions": [
              {"podcast": "https://a.example/feed", "episode": "https://a.example/1.mp3", "action": "PLAY",
               "timestamp": "2023-11-14T22:13:20Z", "started": "10", "position": "120.7", "total": 3600, "device": "phone",
               "extra": true},
              {"podcast": "https://a.example/feed", "episode": "https://a.example/2.mp3", "action": "flattr",
               "timestamp": "2023-11-14T22:13:20"},
              {"podcast": "https://a.example/feed", "episode": "https://a.example/3.mp3", "action": "new",
               "timestamp": "yesterday"},
              {"podcast": "https://a.example/feed", "action": "download", "timestamp": "2023-11-14T22:13:20"},
              {"podcast": "https://a.example/feed", "episode": "https://a.example/4.mp3", "action": "play",
               "timestamp": "2023-11-14T22:13:20"},
              {"podcast": "https://a.example/feed", "episode": "https://a.example/5.mp3", "action": "delete",
               "timestamp": "2023-11-14T22:13:21", "guid": "g5", "position": null}
            ]}
            """
        let decoded = try JSONDecoder().decode(SyncWire.EpisodeActions.self, from: Data(json.utf8))
        #expect(decoded.timestamp == 1_700_000_005)
        #expect(decoded.ignored == 4, "unknown type, bad time, no episode, a play without a position")
        #expect(
            decoded.actions == [
                SyncWire.ReceivedAction(
                    podcastURL: "https://a.example/feed", episodeURL: "https://a.example/1.mp3", kind: .play,
                    timestamp: 1_700_000_000, started: 10, position: 120, total: 3600),
                SyncWire.ReceivedAction(
                    podcastURL: "https://a.example/feed", episodeURL: "https://a.example/5.mp3", guid: "g5", kind: .delete,
                    timestamp: 1_700_000_001),
            ])
    }

    @Test func anAnswerWithoutItsTimestampIsMalformed() {
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(SyncWire.EpisodeActions.self, from: Data(#"{"actions": []}"#.utf8))
        }
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(SyncWire.SubscriptionChanges.self, from: Data("<html>".utf8))
        }
    }

    @Test func readsUpdateURLs() throws {
        let result = try JSONDecoder().decode(
            SyncWire.UploadResult.self,
            from: Data(#"{"timestamp": 12, "update_urls": [["http://a/feed ", "http://a/feed"], ["x"], ["same", "same"], 3]}"#.utf8))
        #expect(result.timestamp == 12)
        #expect(result.updateURLs.map { [$0.old, $0.new] } == [["http://a/feed ", "http://a/feed"]])
    }

    @Test func sendsOnlyTheFieldsOfEachType() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_000.75)
        let play = EpisodeAction(
            podcastURL: "https://a/feed", episodeURL: "https://a/1.mp3", guid: "g1", kind: .play, timestamp: at, started: 5,
            position: 1390, total: 3723)
        let download = EpisodeAction(podcastURL: "https://a/feed", episodeURL: "https://a/1.mp3", kind: .download, timestamp: at)
        let played = EpisodeAction(
            podcastURL: "https://a/feed", episodeURL: "https://a/2.mp3", kind: .play, timestamp: at, started: nil, position: nil,
            total: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func text(_ action: SyncWire.SentAction) throws -> String { String(decoding: try encoder.encode(action), as: UTF8.self) }
        #expect(
            try text(SyncWire.SentAction(play, device: "laptop"))
                == #"{"action":"play","device":"laptop","episode":"https://a/1.mp3","guid":"g1","podcast":"https://a/feed","position":1390,"started":5,"timestamp":"2023-11-14T22:13:20","total":3723}"#
        )
        #expect(
            try text(SyncWire.SentAction(download, device: nil))
                == #"{"action":"download","episode":"https://a/1.mp3","podcast":"https://a/feed","timestamp":"2023-11-14T22:13:20"}"#)
        // A played mark recorded without a length takes the feed's, and is complete.
        #expect(
            try text(SyncWire.SentAction(played, device: nil, total: 1800))
                == #"{"action":"play","episode":"https://a/2.mp3","podcast":"https://a/feed","position":1800,"started":0,"timestamp":"2023-11-14T22:13:20","total":1800}"#
        )
        #expect(SyncWire.SentAction(played, device: nil).position == nil)
    }

    @Test(arguments: [
        ("https://a.example/feed.xml", true), ("http://a.example/", true), ("file:///home/me/feed.xml", false),
        ("https://user:secret@a.example/feed", false), ("feed.xml", false), ("ftp://a.example/feed", false),
    ])
    func sharesOnlyPublicHTTPURLs(url: String, shareable: Bool) {
        #expect(SyncWire.isShareable(url) == shareable)
    }
}

/// The streamed reading of an answer of episode actions, cut at any byte.
@Suite struct ActionStreamTests {
    static let answer = #"""
        { "timestamp" : 1700000009, "note": "not [an] \"actions\": [array]", "update_urls": [["a", "b"]],
          "actions" : [
            {"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20",
             "position": 10, "extra": {"nested": [1, {"x": "}]"}]}},
            {"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:30",
             "position": "20", "title": "quote \" and \\ and ] }"},
            3, "text", null,
            {"podcast": "https://a/feed", "episode": "https://a/2.mp3", "action": "download", "timestamp": "2023-11-14T22:13:20"},
            {"podcast": "https://a/feed", "episode": "https://a/2.mp3", "action": "rate", "timestamp": "2023-11-14T22:13:20"}
          ] }
        """#

    @Test(arguments: [1, 7, 64, 100_000])
    func readsAnAnswerCutAnywhere(chunk: Int) throws {
        var stream = ActionStream()
        let bytes = Array(Self.answer.utf8)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try stream.feed(bytes[start..<min(bytes.count, start + chunk)])
        }
        #expect(try stream.finish() == 1_700_000_009)
        #expect(stream.received.count == 3)
        #expect(stream.received.ignored == 4)
        #expect(stream.received.newest["https://a/1.mp3"]?.position == 20, "the newer of the two")
        #expect(stream.received.kept["download https://a/2.mp3"] != nil)
    }

    @Test func anAnswerCutShortOrNotJSONIsMalformed() throws {
        var cut = ActionStream()
        try cut.feed(Array(Self.answer.utf8).prefix(200))
        #expect(throws: (any Error).self) { try cut.finish() }
        var html = ActionStream()
        try html.feed(Array("<html><body>Maintenance</body></html>".utf8))
        #expect(throws: (any Error).self) { try html.finish() }
        var empty = ActionStream()
        #expect(throws: (any Error).self) { try empty.finish() }
    }

    @Test func readsManyActionsInBatches() throws {
        var stream = ActionStream()
        try stream.feed(Array(#"{"actions":["#.utf8))
        for index in 0..<5000 {
            let separator = index == 0 ? "" : ","
            try stream.feed(
                Array(
                    #"\#(separator){"podcast":"https://a/feed","episode":"https://a/\#(index).mp3","action":"play","timestamp":"2023-11-14T22:13:20","position":\#(index)}"#
                        .utf8))
        }
        try stream.feed(Array(#"],"timestamp":5}"#.utf8))
        #expect(try stream.finish() == 5)
        #expect(stream.received.count == 5000 && stream.received.newest.count == 5000)
    }
}
