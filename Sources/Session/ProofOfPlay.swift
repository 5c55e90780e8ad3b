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
        /// A SMIL presentation's zone (its region's name) and the element's `xml:id`; `nil` for a
        /// playlist item.
        public var region: String?
        public var id: String?
    }

    private var current: (item: String, at: Double)?
    /// What each zone of a SMIL presentation shows, by its region's name.
    private var zones: [String: (item: String, id: String?, at: Double)] = [:]
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

    /// Upright stops, or mpv's process ended under the item playing (and every zone's).
    public mutating func stopped(at now: Double) -> [Record] {
        let out = zones.keys.sorted().flatMap { leaveZone($0, at: now, .stopped) }
        return close(at: now, .stopped) + out
    }

    /// A SMIL presentation's zone `region` shows `item` (its element's `xml:id`), or nothing
    /// (`nil`): what it showed before ended. Zones are recorded each on its own.
    public mutating func zone(_ region: String, shows item: String?, id: String?, at now: Double) -> [Record] {
        let out = leaveZone(region, at: now, .ended)
        if let item { zones[region] = (item, id, now) }
        return out
    }

    private mutating func leaveZone(_ region: String, at now: Double, _ outcome: Outcome) -> [Record] {
        guard let z = zones.removeValue(forKey: region) else { return [] }
        var r = Self.record(z.item, from: z.at, to: now, outcome, reason: nil)
        (r.region, r.id) = (region, z.id)
        return [r]
    }

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
