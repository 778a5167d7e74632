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

    @Test func writesActionsAsJSONEncoderDoes() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        let actions = [
            SyncWire.SentAction(
                EpisodeAction(
                    podcastURL: "https://a/feed?x=\"1\"&y=\\", episodeURL: "https://a/caf\u{E9} \u{1F600}\n\t\u{1}.mp3",
                    guid: "g/1", kind: .play, timestamp: at, started: 5, position: 1390, total: 3723), device: "laptop"),
            SyncWire.SentAction(
                EpisodeAction(podcastURL: "https://a/feed", episodeURL: "https://a/2.mp3", kind: .download, timestamp: at),
                device: nil),
            SyncWire.SentAction(
                EpisodeAction(
                    podcastURL: "https://a/feed", episodeURL: "https://a/3.mp3", kind: .play, timestamp: at, started: nil,
                    position: nil, total: nil), device: nil, total: -1),
        ]
        func objects(_ data: Data) throws -> [[String: String]] {
            let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
            return list.map { $0.mapValues { "\($0)" } }
        }
        let written = SyncWire.SentAction.json(actions)
        #expect(try objects(written) == objects(try JSONEncoder().encode(actions)))
        #expect(try objects(written)[0]["episode"] == "https://a/caf\u{E9} \u{1F600}\n\t\u{1}.mp3")
        #expect(SyncWire.SentAction.json([]) == Data("[]".utf8))
    }

    @Test(arguments: [
        ("https://a.example/feed.xml", true), ("http://a.example/", true), ("file:///home/me/feed.xml", false),
        ("https://user:secret@a.example/feed", false), ("feed.xml", false), ("ftp://a.example/feed", false),
        ("HTTPS://A.example/Feed", true), ("https://a.example:8443/f?user=x@y", true), ("https://@a.example/", false),
        ("https:///feed.xml", false), ("https://:80/feed", false), ("https://a.example/a b.mp3", false),
        ("httpx://a.example/", false), ("http:/a.example/", false),
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
        #expect(stream.received.playIndex["https://a/1.mp3"].map { stream.received.plays[$0].position } == 20, "the newer of the two")
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
        #expect(stream.received.count == 5000 && stream.received.plays.count == 5000)
    }
}

/// The direct reading of one action (``ActionReader``) agrees with `JSONDecoder` wherever it
/// reads at all, and reads the shapes servers send.
@Suite struct ActionReaderTests {
    static let usual = [
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20", "started": 0, "position": 120, "total": 600, "device": "phone"}"#,
        #"{"podcast":"https:\/\/a\/feed","episode":"https:\/\/a\/caf\u00e9.mp3","action":"PLAY","timestamp":"2023-11-14T22:13:20Z","position":"120.7","guid":"g\"1\"","device":null,"x":true}"#,
        #" { "podcast" : "https://a/feed" , "episode" : "https://a/2.mp3" , "action" : "new" , "timestamp" : 1700000000 } "#,
        #"{"podcast": "https://a/feed", "episode": "https://a/3.mp3", "action": "download", "timestamp": "2023-11-14T22:13:20", "position": null, "guid": 5}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/4.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20", "position": " 42 ", "started": true, "total": -5}"#,
        #"{"podcast":"https://a/feed","episode":"https://a/caf\u00E9.mp3","action":"play","timestamp":"2023-11-14T22:13:20","position":-0}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/5.mp3", "action": "DeLeTe", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/6.mp3", "action": "pl\u0041y", "timestamp": "2023-11-14T22:13:20", "position": 1}"#,
    ]

    static let skipped = [
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "PL@Y", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "plays", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "flattr", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": 3, "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": "yesterday"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": null}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": false}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new"}"#,
        #"{"podcast": "https://a/feed", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "", "episode": "https://a/1.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": 5, "episode": "https://a/1.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20", "position": "soon"}"#,
        #"{}"#,
    ]

    /// Left to the decoder: valid JSON the reader does not take on, and malformed JSON.
    static let unsure = [
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20", "position": 120.5}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20", "position": 1e2}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": 1700000000.5, "position": 1}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "play", "timestamp": "2023-11-14T22:13:20", "position": 1234567890123456}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20", "extra": {"a": 1}}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20", "extra": []}"#,
        #"{"podcast": "https://a/feed", "podcast": "https://b/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podc\u0061st": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/\ud800.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/\ud83d\ude00.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        #"{"podcast": "https://a/feed", "episode": "https://a/\x.mp3", "action": "new", "timestamp": "2023-11-14T22:13:20"}"#,
        "{\"podcast\": \"https://a/\tfeed\", \"episode\": \"https://a/1.mp3\", \"action\": \"new\", \"timestamp\": \"2023-11-14T22:13:20\"}",
        #"{"podcast": "https://a/feed" "episode": "https://a/1.mp3"}"#,
        #"{"podcast": "https://a/feed", }"#,
        #"{"podcast": "https://a/feed", "position": 012}"#,
        #"{"podcast": "https://a/feed", "position": -}"#,
        #"{"podcast": "https://a/feed", "position": nul}"#,
        #"{"podcast": "https://a/feed"} x"#,
        #"{"podcast": "https://a/feed""#,
        #"3"#, #""text""#, #"null"#, #"[]"#, "",
    ]

    static func read(_ bytes: [UInt8]) -> ActionReader.Outcome {
        var podcast = ActionReader.LastPodcast()
        return bytes.withUnsafeBufferPointer { ActionReader.read($0, podcast: &podcast) }
    }

    static func decoded(_ bytes: [UInt8]) -> SyncWire.Lenient<SyncWire.ReceivedAction>? {
        try? JSONDecoder().decode(SyncWire.Lenient<SyncWire.ReceivedAction>.self, from: Data(bytes))
    }

    @Test(arguments: usual)
    func readsTheUsualShapesAsTheDecoderDoes(element: String) throws {
        let bytes = Array(element.utf8)
        let expected = try #require(Self.decoded(bytes)?.value)
        #expect(Self.read(bytes) == .action(expected))
    }

    @Test(arguments: skipped)
    func leavesOutWhatTheDecoderLeavesOut(element: String) throws {
        let bytes = Array(element.utf8)
        let decoded = try #require(Self.decoded(bytes))
        #expect(decoded.value == nil)
        #expect(Self.read(bytes) == .skipped)
    }

    @Test(arguments: unsure)
    func leavesTheRestToTheDecoder(element: String) {
        #expect(Self.read(Array(element.utf8)) == .unsure)
    }

    /// Actions read one after another share the podcast URL they name alike, and each keeps
    /// its own when they differ.
    @Test func eachActionKeepsItsOwnPodcastWhenOneReaderReadsMany() {
        var podcast = ActionReader.LastPodcast()
        let feeds = ["https://a/feed", "https://a/feed", "https://b/feed", "https://a/fee", "https://a/feed"]
        let read = feeds.enumerated().map { index, feed in
            let element = #"{"podcast": "\#(feed)", "episode": "https://a/\#(index).mp3", "action": "new", "timestamp": 1}"#
            return Array(element.utf8).withUnsafeBufferPointer { ActionReader.read($0, podcast: &podcast) }
        }
        let podcasts = read.map { outcome -> String? in
            guard case .action(let action) = outcome else { return nil }
            return action.podcastURL
        }
        #expect(podcasts == feeds)
    }

    @Test func leavesBytesThatAreNotUTF8ToTheDecoder() {
        let element = Array(#"{"podcast": "https://a/feed", "episode": "https://a/1.mp3", "action": "new", "timestamp": 1}"#.utf8)
        #expect(Self.read(element) != .unsure)
        let feed = element.firstRange(of: Array("feed".utf8))!.lowerBound
        var bytes = element
        bytes[feed] = 0xFF
        #expect(Self.read(bytes) == .unsure)
        // A cut four-byte sequence, as long as the U+FFFD that would replace it.
        bytes = element
        bytes.replaceSubrange(feed..<feed + 3, with: [0xF0, 0x9F, 0x98])
        #expect(Self.read(bytes) == .unsure)
    }

    @Test func readsTextBeyondASCII() {
        let element = #"{"podcast": "https://a/feed", "episode": "https://a/caf\#u{E9}-\#u{1F600}.mp3", "action": "new", "timestamp": 1}"#
        guard case .action(let action) = Self.read(Array(element.utf8)) else {
            Issue.record("not read")
            return
        }
        #expect(action.episodeURL == "https://a/caf\u{E9}-\u{1F600}.mp3")
    }

    /// A stream whose batches mix the usual shape with one the reader leaves to the decoder
    /// reads the same as the decoder reads the whole answer, however the answer comes in
    /// pieces (cutting elements, or each whole).
    @Test(arguments: [997, 65_536, Int.max])
    func aStreamReadsAsTheDecoderDoes(chunk: Int) throws {
        var elements: [String] = []
        for index in 0..<4500 {
            let position = index == 3000 ? "1.5" : "\(index % 700)"
            elements.append(
                #"{"podcast":"https://a/feed","episode":"https://a/\#(index % 3000).mp3","action":"\#(index % 5 == 0 ? "new" : "play")","timestamp":"2023-11-14T22:\#(10 + index % 40):20","position":\#(position)}"#)
            if index % 1000 == 0 { elements.append(Self.skipped[index / 1000]) }
        }
        let answer = Array(#"{"timestamp": 9, "actions": [\#(elements.joined(separator: ",\n"))]}"#.utf8)
        var stream = ActionStream()
        for start in stride(from: 0, to: answer.count, by: min(chunk, answer.count)) {
            try stream.feed(answer[start..<min(answer.count, start + chunk)])
        }
        #expect(try stream.finish() == 9)
        let decoded = try JSONDecoder().decode(SyncWire.EpisodeActions.self, from: Data(answer))
        let expected = ReceivedActions(decoded.actions)
        #expect(stream.received.count == expected.count)
        #expect(stream.received.ignored == decoded.ignored)
        #expect(stream.received.plays == expected.plays)
        #expect(stream.received.kept == expected.kept)
    }
}
