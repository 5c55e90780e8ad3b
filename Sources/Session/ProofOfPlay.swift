/// What played, for the proof-of-play log: the player's events in, one record per item played
/// (or that could not play) out. Times are given (seconds since the epoch): a value, tested as one.
public struct ProofOfPlay: Sendable {
    /// How an item's play ended.
    public enum Outcome: String, Codable, Sendable {
        /// Played to its end (or its image duration).
        case ended
        /// Left for another before its end: `next`, `previous`, a clip, a new playlist.
        case skipped
        /// Could not play: the reason says why.
        case failed
        /// Stood still and was loaded again.
        case stalled
        /// Upright stopped, or mpv's process ended, while it played.
        case stopped
    }

    /// One line of the log.
    public struct Record: Sendable, Hashable {
        public var item: String
        /// When it started and ended (seconds since the epoch).
        public var start: Double
        public var end: Double
        /// How long it played (ms precision).
        public var seconds: Double
        public var outcome: Outcome
        public var reason: String?
    }

    private var current: (item: String, at: Double)?
    private var leaving = false

    public init() {}

    /// An item started; the one before it ended (or was left, when ``leave(at:)`` said so).
    public mutating func playing(_ item: String, at now: Double) -> [Record] {
        let out = close(at: now, leaving ? .skipped : .ended)
        current = (item, now)
        return out
    }

    /// The next item was asked for (a step, a clip, a new playlist): the one playing is left.
    public mutating func leave(at now: Double) { leaving = current != nil }

    /// An item could not play: the one playing, or one that never started.
    public mutating func failed(_ item: String, reason: String, at now: Double) -> [Record] {
        if current?.item == item { return close(at: now, .failed, reason: reason) }
        return [Self.record(item, from: now, to: now, .failed, reason: reason)]
    }

    /// The item playing stood still and is loaded again.
    public mutating func stalled(at now: Double) -> [Record] { close(at: now, .stalled) }

    /// Nothing plays now: the item playing ended.
    public mutating func idle(at now: Double) -> [Record] { close(at: now, leaving ? .skipped : .ended) }

    /// Upright stops, or mpv's process ended under the item playing.
    public mutating func stopped(at now: Double) -> [Record] { close(at: now, .stopped) }

    private mutating func close(at now: Double, _ outcome: Outcome, reason: String? = nil) -> [Record] {
        defer { (current, leaving) = (nil, false) }
        guard let c = current else { return [] }
        return [Self.record(c.item, from: c.at, to: now, outcome, reason: reason)]
    }

    static func record(_ item: String, from start: Double, to end: Double, _ outcome: Outcome, reason: String?)
        -> Record
    {
        Record(
            item: item, start: start, end: end, seconds: ((end - start) * 1000).rounded() / 1000, outcome: outcome,
            reason: reason)
    }
}
