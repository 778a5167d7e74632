extension Library {
    /// What the queue does once listening to `episodeID` ended, for the command line and the
    /// terminal UI alike, as ``ListeningRules`` say: an episode heard to its end leaves the
    /// queue, and when its audio played to the end the episode that followed it is returned, to
    /// play next; after the listener's "next", the queue's first when the episode is not queued
    /// (as the UI's `n`). Nil otherwise, and for an episode that is not queued.
    public func advanceQueue(after episodeID: Int64, _ end: ListeningEnd) async throws -> QueueEntry? {
        let next = try await queueEntry(
            after: episodeID, removing: ListeningRules.leavesQueue(after: end), orFirst: end.reason == .next)
        return ListeningRules.startsNextInQueue(after: end) ? next : nil
    }
}
