import Foundation
import Testing

@testable import SinglecastKit

@Suite struct DaemonPathsTests {
    @Test func theSocketGoesUnderTheRuntimeFolderWithAShortNameWhenThereIsOne() {
        let library = URL(fileURLWithPath: "/home/someone/" + String(repeating: "very-long-folder/", count: 12) + "singlecast")
        let paths = DaemonPaths(libraryDirectory: library, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(paths.socket.hasPrefix("/run/user/1000/singlecast-"))
        #expect(paths.socket.hasSuffix(".sock"))
        #expect(paths.socket.utf8.count < 108, "fits a socket address")
        #expect(paths.lock == library.appendingPathComponent("daemon.lock").path)
        #expect(paths.log == library.appendingPathComponent("daemon.log").path)
        // Another library gets another socket; the same library the same one.
        let other = DaemonPaths(libraryDirectory: URL(fileURLWithPath: "/tmp/other"), environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(other.socket != paths.socket)
        #expect(DaemonPaths(libraryDirectory: library, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]).socket == paths.socket)
    }

    @Test func withoutARuntimeFolderTheSocketStaysInTheLibrary() {
        let library = URL(fileURLWithPath: "/tmp/lib")
        #expect(DaemonPaths(libraryDirectory: library, environment: [:]).socket == "/tmp/lib/daemon.sock")
        #expect(DaemonPaths(libraryDirectory: library, environment: ["XDG_RUNTIME_DIR": ""]).socket == "/tmp/lib/daemon.sock")
    }
}
