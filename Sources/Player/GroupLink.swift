public import Sync

/// A wall's group as the player reads it: the group's time now (`nil` while it is not known),
/// which item starts when (`nil` while not known), and, for a leader, how to say its next item.
public struct GroupLink: Sendable {
    public var groupTime: @Sendable () -> Double?
    public var anchor: @Sendable () -> ScheduleAnchor?
    public var announce: (@Sendable (ScheduleAnchor) -> Void)?

    public init(
        groupTime: @escaping @Sendable () -> Double?,
        anchor: @escaping @Sendable () -> ScheduleAnchor? = { ScheduleAnchor(item: 0, at: 0) },
        announce: (@Sendable (ScheduleAnchor) -> Void)? = nil
    ) {
        (self.groupTime, self.anchor, self.announce) = (groupTime, anchor, announce)
    }
}
