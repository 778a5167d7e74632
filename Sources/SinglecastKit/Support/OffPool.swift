import NIOPosix

/// Runs blocking work (file system calls, `fsync`, opening a database) on NIO's blocking-IO
/// thread pool, so that it never holds one of the few threads that run Swift tasks.
enum OffPool {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// Starts the pool's threads now, from a thread that would otherwise wait, rather than on
    /// the first ``run(_:)`` (reading the CPU quota and starting the threads take a fraction of
    /// a millisecond).
    static func start() {
        _ = NIOThreadPool.singleton
    }
}
