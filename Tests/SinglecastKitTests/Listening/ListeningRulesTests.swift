import Foundation
import Testing

@testable import SinglecastKit

@Suite struct ListeningRulesTests {
    @Test(arguments: [
        (Playback(), nil, 0.0),
        (Playback(position: 100), nil, 95.0),
        (Playback(position: 3), nil, 0.0),
        (Playback(position: 100, playedAt: Date()), nil, 0.0),
        (Playback(playedAt: Date()), nil, 0.0),
        (Playback(position: 100), 750.0, 750.0),
        (Playback(position: 100), 0.0, 0.0),
        (Playback(position: 100), -5.0, 0.0),
    ] as [(Playback, Double?, Double)])
    func startsFiveSecondsBeforeTheSavedPositionUnlessAskedOrPlayed(playback: Playback, requested: Double?, start: Double) {
        #expect(ListeningRules.startPosition(for: playback, requested: requested) == start)
    }

    @Test(arguments: [
        // The last 30 seconds of ten minutes (2 % would be 12 s).
        (570.0, 600.0, true), (569.0, 600.0, false),
        // The last 2 % of an hour (72 s) is wider than 30 s.
        (3528.0, 3600.0, true), (3527.0, 3600.0, false),
        // The last 2 % of three hours (216 s) is wider than 30 s.
        (10584.0, 10800.0, true), (10583.0, 10800.0, false),
        // A short file: within 30 s of its end is the whole of it.
        (1.0, 20.0, true),
        (3600.0, 3600.0, true), (4000.0, 3600.0, true),
        // Without a known length nothing counts as finished.
        (3599.0, nil, false), (10.0, 0.0, false),
    ] as [(Double, Double?, Bool)])
    func finishedWithinThirtySecondsOrTwoPercentOfTheEnd(position: Double, duration: Double?, finished: Bool) {
        #expect(ListeningRules.isFinished(position: position, duration: duration) == finished)
    }

    @Test func savesAtLeastEveryFourSeconds() {
        #expect(ListeningRules.isSaveDue(elapsed: nil))
        #expect(!ListeningRules.isSaveDue(elapsed: .milliseconds(3999)))
        #expect(ListeningRules.isSaveDue(elapsed: .seconds(4)))
    }
}
