import Foundation
import SinglecastKit
import Synchronization

/// The one way the executable writes to standard output and standard error: whole buffers with
/// `write(2)`, retried when a signal interrupts it (EINTR) or a non-blocking descriptor is full
/// (EAGAIN), under a lock per stream so that lines from several tasks never interleave.
///
/// A failed write never goes unseen. When the reader of standard output has gone
/// (`singlecast episodes URL --json | head`), the process stops at once, quietly, with status
/// 141 (128 + SIGPIPE): what the shell reports for a tool that SIGPIPE ends, as it ends this
/// process too while SIGPIPE is not ignored. Once SwiftNIO has run, SIGPIPE is ignored and the
/// closed pipe arrives here as EPIPE. Any other failure to write
/// standard output (a full disk, a closed descriptor) is said on standard error and ends the
/// command with status 1. A failure to write standard error itself is ignored: there is
/// nowhere left to say it.
enum StandardStreams {
    /// The exit status when standard output's reader has gone.
    static let closedOutputStatus: Int32 = 141

    /// Writes all of `bytes` to `descriptor` (`STDOUT_FILENO` or `STDERR_FILENO`).
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard !bytes.isEmpty else { return }
        let failure =
            descriptor == STDERR_FILENO
            ? errorLock.withLock { _ in writeAll(bytes, to: descriptor) }
            : outputLock.withLock { _ in writeAll(bytes, to: descriptor) }
        guard let failure, descriptor == STDOUT_FILENO else { return }
        if failure == EPIPE { _exit(closedOutputStatus) }
        printError(Words.outputFailed(errno: failure))
        _exit(1)
    }

    /// Writes all of `bytes`, or returns the error that stopped it.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            case let error:
                return error
            }
        }
        return nil
    }

    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    static func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { write($0, to: descriptor) }
    }

    /// Writes words for a person (lines, tables, warnings) without the control characters a
    /// feed, a server or a file could have put in them; their line breaks stay.
    static func write(words text: String, to descriptor: Int32) {
        write(TerminalText.sanitized(text, keepingLineBreaks: true), to: descriptor)
    }

    private static let outputLock = Mutex(())
    private static let errorLock = Mutex(())
}

/// `print` as the executable's commands use it: through ``StandardStreams``, so that a closed
/// pipe or a full disk ends the command with a non-zero status, and words only (see
/// ``StandardStreams/write(words:to:)``). (The standard library's `print` buffers in stdio and
/// drops a failed write, so the command would exit 0 with its output cut short.)
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    StandardStreams.write(words: items.map { "\($0)" }.joined(separator: separator) + terminator, to: STDOUT_FILENO)
}
