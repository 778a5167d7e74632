import Foundation
import SinglecastKit

// For PlayerTests: plays a file with the player named by SINGLECAST_PLAYER, writes "started"
// on standard output once the audio plays, then waits. The test kills this process (SIGKILL)
// and checks that the player dies with it.
//
//     player-probe FILE

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: player-probe FILE\n".utf8))
    exit(64)
}
let environment = ProcessInfo.processInfo.environment
let player = MpvPlayer(
    executable: try PlayerExecutable.locate(environment: environment),
    libraryDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
    terminalOutput: .discard, environment: environment)
let session = try await player.play(PlaybackRequest(source: .file(CommandLine.arguments[1])))
for await event in session.events {
    switch event {
    case .started:
        FileHandle.standardOutput.write(Data("started\n".utf8))
        try await session.setPaused(true)
    case .ended(let end):
        FileHandle.standardOutput.write(Data("ended \(end.reason)\n".utf8))
        exit(1)
    default:
        break
    }
}
