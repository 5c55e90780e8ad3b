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
        var within = (t - origin).truncatingRemainder(dividingBy: round)
        if within < 0 { within += round }
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
        var within = (t - origin - offset(of: index)).truncatingRemainder(dividingBy: round)
        if within < 0 { within += round }
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
