import SinglecastKit

/// The sentences both front ends say alike, in one place: the command line and the terminal UI
/// each word the library's values, and where they say the same thing it is written here once.
public enum PlayerWords {
    /// Why the player could not play the audio: `it is not audio mpv can play`, …
    public static func failure(_ failure: PlayerFailure) -> String {
        switch failure.kind {
        case .notAudio: "it is not audio mpv can play"
        case .httpStatus(let status): "the server answered \(status)"
        case .loadingFailed: "it could not be opened"
        case .audioOutputFailed: "mpv could not open an audio output"
        case .other: failure.playerError.map { "mpv says: \($0)" } ?? "mpv could not play it"
        }
    }
}
