import Foundation
import SinglecastKit

// For PlayerTests: plays a file with the player named by SINGLECAST_PLAYER, writes "started"
// on standard output once the audio plays, pauses, then waits. The test kills this process
// (SIGKILL) and checks that the player dies with it. With --interactive, the player reads keys
// from the terminal and plays on (to try by hand: its `q` ends it with "ended quit").
//
//     player-probe FILE [--interactive]

let interactive = CommandLine.arguments.count == 3 && CommandLine.arguments[2] == "--interactive"
guard CommandLine.arguments.count == 2 || interactive else {
    FileHandle.standardError.write(Data("usage: player-probe FILE [--interactive]\n".utf8))
    exit(64)
}
let environment = ProcessInfo.processInfo.environment
let player = MpvPlayer(
    executable: try PlayerExecutable.locate(configured: environment[PlayerExecutable.variable], environment: environment),
    libraryDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
    terminalOutput: interactive ? .standardError : .discard, environment: environment)
let session = try await player.play(PlaybackRequest(source: .file(CommandLine.arguments[1]), interactive: interactive))
for await event in session.events {
    switch event {
    case .started:
        FileHandle.standardOutput.write(Data("started\n".utf8))
        if !interactive { try await session.setPaused(true) }
    case .ended(let end):
        FileHandle.standardOutput.write(Data("ended \(end.reason)\n".utf8))
        exit(0)
    default:
        break
    }
}
