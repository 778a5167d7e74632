import Foundation
import Synchronization

/// A client connection to mpv's JSON IPC socket: lines out, lines in.
///
/// A thread of its own reads (a blocking `read` per chunk, off the threads that run Swift
/// tasks) and hands over each line; writes are short lines that mpv reads at once, sent by
/// the caller.
final class MpvSocket: Sendable {
    private let descriptor: Int32
    private let writing = Mutex(())

    /// Connects to the socket at `path`; nil while nobody listens there (not created yet).
    static func connect(path: String) -> MpvSocket? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return MpvSocket(descriptor: descriptor)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The descriptor is closed only here, once nothing can use it: never a number reused
    /// by another file.
    deinit {
        close(descriptor)
    }

    /// Starts the reading thread: `onLine` gets each line (without its newline), `onClose` is
    /// called once when the other side has closed (or ``shutDown()`` was called), after the last line.
    func startReading(onLine: @escaping @Sendable (ArraySlice<UInt8>) -> Void, onClose: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: chunk[..<count])
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    onLine(pending[start..<newline])
                    start = newline + 1
                }
                pending.removeSubrange(..<start)
            }
            onClose()
        }
        thread.name = "singlecast mpv IPC"
        thread.start()
    }

    /// Sends one line (with its newline). Throws when the other side has gone.
    func send(_ line: Data) throws(PlayerError) {
        let sent = writing.withLock { _ in
            line.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return false }
                    offset += written
                }
                return true
            }
        }
        guard sent else { throw .playbackEnded }
    }

    /// Ends the connection both ways: the reading thread sees its end and stops.
    func shutDown() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
