import Foundation

/// Carries a feed's episodes from the parser to ``Library/saveFeed(feedKey:from:)`` while
/// the rest is still being parsed, so that parsing and storing run on two cores.
///
/// The parser's side calls ``send(_:)`` for each batch, then ``finish(_:)`` or ``fail(_:)``;
/// the library's side blocks in ``next()`` on its own thread.
public final class EpisodeStream: @unchecked Sendable {
    enum Message {
        case episodes([Episode])
        case finished(Feed)
    }

    // Every stored property is guarded by `condition`.
    private let condition = NSCondition()
    private var messages: [Message] = []
    private var failure: (any Error)?

    public init() {}

    /// Hands on a batch of episodes, in feed order.
    public func send(_ episodes: [Episode]) {
        put(.episodes(episodes))
    }

    /// Ends the stream with the rest of the feed: its podcast, warnings and last episodes.
    public func finish(_ feed: Feed) {
        put(.finished(feed))
    }

    /// Ends the stream with an error; the library then stores nothing.
    public func fail(_ error: any Error) {
        condition.lock()
        failure = error
        condition.signal()
        condition.unlock()
    }

    /// Waits for the next message; throws the error given to ``fail(_:)``.
    func next() throws -> Message {
        condition.lock()
        defer { condition.unlock() }
        while messages.isEmpty && failure == nil {
            condition.wait()
        }
        if let failure { throw failure }
        return messages.removeFirst()
    }

    private func put(_ message: Message) {
        condition.lock()
        messages.append(message)
        condition.signal()
        condition.unlock()
    }
}
