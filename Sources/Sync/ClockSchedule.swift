public import Wire

/// What a wall plays when, derived from the group's clock alone: the playlist's items one after
/// the other from `origin`, round and round. Every node with the same playlist and the same clock
/// computes the same item and position, so a node that starts late (or reboots) finds its place
/// without asking anyone.
public struct ClockSchedule: Sendable, Hashable {
    /// Each item's length, in seconds, in the playlist's order.
    public var durations: [Double]
    /// The group time (Unix seconds) at which a round of the playlist started; any round start
    /// will do, as the rounds repeat.
    public var origin: Double

    /// `nil` when there is nothing to schedule: no item, or one that is not a positive, finite length.
    public init?(durations: [Double], origin: Double = 0) {
        guard !durations.isEmpty, durations.allSatisfy({ $0.isFinite && $0 > 0 }), origin.isFinite else { return nil }
        self.durations = durations
        self.origin = origin
    }

    /// One round of the playlist, in seconds.
    public var round: Double { durations.reduce(0, +) }

    /// Where item `index` starts within a round.
    public func offset(of index: Int) -> Double { durations.prefix(index).reduce(0, +) }

    /// The item playing at group time `t` and the position in it.
    public func at(_ t: Double) -> (item: Int, position: Double) {
        var within = Self.wrapped(t - origin, round)
        for (index, d) in durations.enumerated() {
            if within < d { return (index, within) }
            within -= d
        }
        // Rounding left a hair past the last item's end: the first item's start.
        return (0, 0)
    }

    /// How long until item `index`'s scheduled end, when the schedule has it playing at `t`;
    /// `nil` when another item is scheduled then.
    public func remaining(item index: Int, at t: Double) -> Double? {
        guard durations.indices.contains(index) else { return nil }
        let within = Self.wrapped(t - origin - offset(of: index), round)
        guard within < durations[index] else { return nil }
        return durations[index] - within
    }

    /// How far item `index` at `position` is ahead of where the schedule has it at `t`, in
    /// seconds (negative: behind), taken at the item's nearest scheduled run: a position just past
    /// the end of a round and one just before its start are both near, not a round apart.
    public func error(item index: Int, position: Double, at t: Double) -> Double {
        let scheduled = (t - origin - offset(of: index)).truncatingRemainder(dividingBy: round)
        var e = (position - scheduled).truncatingRemainder(dividingBy: round)
        if e > round / 2 { e -= round }
        if e <= -round / 2 { e += round }
        return e
    }
}

extension ClockSchedule {
    /// The schedule of `durations` in which `anchor`'s item starts at its time: its origin the
    /// first round's start after the epoch, to the microsecond, so that every anchor of one
    /// schedule (another item, another round) gives that schedule back.
    public init?(durations: [Double], anchor: ScheduleAnchor) {
        guard !durations.isEmpty, anchor.item >= 0, durations.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            return nil
        }
        let before = durations.prefix(anchor.item % durations.count).reduce(0, +)
        let round = durations.reduce(0, +)
        self.init(
            durations: durations, origin: Self.microseconds(Self.wrapped(Self.microseconds(anchor.at - before), round)))
    }

    /// The item that starts next after `t`, and when (to the microsecond).
    public func next(after t: Double) -> ScheduleAnchor {
        let rounds = ((t - origin) / round).rounded(.down)
        let now = at(t).item
        let at =
            now + 1 < durations.count ? origin + rounds * round + offset(of: now + 1) : origin + (rounds + 1) * round
        return ScheduleAnchor(item: (now + 1) % durations.count, at: Self.microseconds(at))
    }

    static func microseconds(_ t: Double) -> Double { (t * 1_000_000).rounded() / 1_000_000 }

    /// `t` taken round `round`, into 0 ..< `round` (before the origin too).
    static func wrapped(_ t: Double, _ round: Double) -> Double {
        let r = t.truncatingRemainder(dividingBy: round)
        return r < 0 ? r + round : r
    }
}
