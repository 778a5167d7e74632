import Foundation

@testable import SinglecastKit
@testable import SinglecastUI

/// Podcasts, episodes and states for the update's and the view's tests.
enum UIFixtures {
    static func podcast(_ id: Int64, _ title: String) -> StoredPodcast {
        StoredPodcast(id: id, feedKey: "http://127.0.0.1/\(id).xml", podcast: Podcast(title: title), subscription: nil, playbackSpeed: nil)
    }

    static func entry(_ id: Int64, _ title: String, number: Int? = nil, duration: Int? = 600, isNew: Bool = false) -> EpisodeEntry {
        EpisodeEntry(
            id: id, number: number ?? Int(id),
            episode: Episode(
                title: title, published: Date(timeIntervalSince1970: 1_720_000_000 - Double(id) * 86_400), duration: duration,
                enclosure: Enclosure(url: "http://127.0.0.1/\(id).mp3")),
            download: nil, isNew: isNew)
    }

    /// The state after the podcasts and the first podcast's episodes were read.
    static func browsing(width: Int = 100, height: Int = 20, episodes: Int = 5) -> UIState {
        var state = UIState(width: width, height: height)
        state = UIUpdate.update(state, .podcastsLoaded([podcast(1, "First Show"), podcast(2, "日本語ポッドキャスト")])).0
        let entries = (1...max(1, episodes)).map { entry(Int64($0), "Episode \($0)") }
        let window = EpisodeWindow(podcastID: 1, filter: "", start: 0, total: episodes, entries: Array(entries.prefix(episodes)))
        return UIUpdate.update(state, .episodesLoaded(window)).0
    }

    /// Applies `messages` in order and returns the state and every command asked for.
    static func run(_ state: UIState, _ messages: [Message]) -> (UIState, [Command]) {
        var state = state
        var commands: [Command] = []
        for message in messages {
            let (next, asked) = UIUpdate.update(state, message)
            state = next
            commands += asked
        }
        return (state, commands)
    }

    static func keys(_ text: String) -> [Message] {
        text.map { .key(.character($0)) }
    }
}
