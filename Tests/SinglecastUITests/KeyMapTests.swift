import Foundation
import Testing

@testable import SinglecastKit
@testable import SinglecastUI

@Suite struct KeyMapTests {
    @Test func theStandardKeysTranslateToThemselves() {
        for key in KeyMap.defaults.values.joined() {
            let action = KeyMap.defaults.first { $0.value.contains(key) }!.key
            #expect(KeyMap.standard.translate(key) == KeyMap.defaults[action]!.first)
        }
        // Keys outside the table (typed text, keys other parts of the UI handle) pass.
        #expect(KeyMap.standard.translate(.character("7")) == .character("7"))
        #expect(KeyMap.standard.translate(.interrupt) == .interrupt)
    }

    @Test func aReboundActionAnswersItsNewKeysOnly() throws {
        let map = try KeyMap(overrides: ["quit": ["Q"], "forward": ["l", "right"], "next-pane": ["tab"]])
        #expect(map.translate(.character("Q")) == .character("q"))
        #expect(map.translate(.character("q")) == nil)
        #expect(map.translate(.character("l")) == .character("f"))
        #expect(map.translate(.right) == .character("f"))
        #expect(map.translate(.character("f")) == nil)
        #expect(map.translate(.tab) == .right)
    }

    @Test func theQueueKeysAreReboundAsTheOthersAre() throws {
        let map = try KeyMap(overrides: ["enqueue": ["e"], "view-queue": ["0"], "move-up": ["up"], "up": ["k"]])
        #expect(map.translate(.character("e")) == .character(" "))
        #expect(map.translate(.character(" ")) == nil)
        #expect(map.translate(.character("0")) == .character("3"))
        #expect(map.translate(.up) == .character("K"))
        #expect(throws: SettingsTableFailure(name: "clear-queue", problem: .keyBoundTwice(key: "n", actions: ["clear-queue", "next-in-queue"]))) {
            try KeyMap(overrides: ["clear-queue": ["n"]])
        }
    }

    @Test func twoActionsMaySwapKeys() throws {
        let map = try KeyMap(overrides: ["pause": ["f"], "forward": ["p"]])
        #expect(map.translate(.character("f")) == .character("p"))
        #expect(map.translate(.character("p")) == .character("f"))
    }

    @Test func anUnknownActionIsRefusedWithTheNearestOne() {
        #expect(throws: SettingsTableFailure(name: "forwrd", problem: .unknownName("forwrd", nearest: "forward"))) {
            try KeyMap(overrides: ["forwrd": ["F"]])
        }
    }

    @Test func anUnknownKeyNameIsRefused() {
        #expect(throws: SettingsTableFailure(name: "quit", problem: .unknownKeyName("ctrl-q"))) {
            try KeyMap(overrides: ["quit": ["ctrl-q"]])
        }
    }

    @Test func aKeyBoundTwiceIsRefused() {
        #expect(throws: SettingsTableFailure(name: "forward", problem: .keyBoundTwice(key: "b", actions: ["back", "forward"]))) {
            try KeyMap(overrides: ["forward": ["b"]])
        }
        #expect(throws: SettingsTableFailure(name: "pause", problem: .keyBoundTwice(key: "space", actions: ["pause", "quit"]))) {
            try KeyMap(overrides: ["quit": ["space"], "pause": [" "], "enqueue": ["e"]])
        }
    }

    @Test func theUIFollowsTheKeyMapAndTheSkipSettings() throws {
        var state = UIFixtures.browsing()
        state.keyMap = try KeyMap(overrides: ["quit": ["Q"], "forward": ["l"]])
        state.skipForward = 45
        #expect(UIFixtures.run(state, UIFixtures.keys("q")).1.isEmpty)
        #expect(UIFixtures.run(state, UIFixtures.keys("Q")).1 == [.quit(status: 0)])
        let started = UIFixtures.run(
            state, [.key(.enter), .key(.enter), .tick(now: 10), .listening(episodeID: 1, .started(position: 100, duration: 600, speed: 1), now: 10)])
        #expect(UIFixtures.run(started.0, UIFixtures.keys("fl")).1 == [.seek(to: 145)])
    }

    @Test func colorsAreChosenByPartAndName() throws {
        let colors = try UIColors(overrides: ["accent": "Green"])
        #expect(colors.curses(.accent) == 2)
        #expect(colors.curses(.warning) == 1)
        #expect(try UIColors(overrides: ["warning": "default"]).curses(.warning) == -1)
        #expect(throws: SettingsTableFailure(name: "acent", problem: .unknownName("acent", nearest: "accent"))) {
            try UIColors(overrides: ["acent": "red"])
        }
        #expect(throws: SettingsTableFailure(name: "accent", problem: .badValue(expected: .choice(UIColors.names), found: .text("pink")))) {
            try UIColors(overrides: ["accent": "pink"])
        }
    }
}
