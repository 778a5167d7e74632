import NIOPosix

/// Runs blocking work (file system calls, `fsync`, opening a database) on NIO's blocking-IO
/// thread pool, so that it never holds one of the few threads that run Swift tasks.
enum OffPool {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
