import Foundation

/// A raw client of a Unix domain socket, for poking the daemon with arbitrary bytes.
public enum UnixSocket {
    /// Connects to `path`; returns the descriptor, or nil when nobody listens.
    public static func connect(_ path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Sends `bytes` and returns everything the other side sends until it closes (at most
    /// 10 seconds of waiting).
    public static func exchange(_ path: String, _ bytes: Data) -> String? {
        guard let descriptor = connect(path) else { return nil }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written <= 0 { break }
            offset += written
        }
        var reply = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { break }
            reply.append(contentsOf: chunk[..<count])
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
