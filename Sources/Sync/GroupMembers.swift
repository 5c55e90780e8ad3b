/// The nodes of a sync group heard lately, and which one the others take the time from: the
/// least device name among them (this node included). Every node sees the same members within a
/// heartbeat or two, so they agree without a vote; when the reference goes quiet for ``timeout``
/// seconds, the next least name takes over. Pure: times are the caller's, in seconds.
public struct GroupMembers: Sendable, Hashable {
    /// This node's device name.
    public let me: String
    /// A member not heard for this long is gone.
    public var timeout: Double
    /// Each other member, with when it was last heard.
    public private(set) var heard: [String: Double] = [:]

    public init(me: String, timeout: Double = 4.5) {
        self.me = me
        self.timeout = timeout
    }

    /// `device` was heard at `now` (its heartbeat, an answer).
    public mutating func heard(_ device: String, at now: Double) {
        guard device != me, !device.isEmpty else { return }
        heard[device] = now
    }

    /// `device` said it left (its empty presence: its last will, or its goodbye).
    public mutating func left(_ device: String) { heard[device] = nil }

    /// The members at `now`, this node included, by name; the silent ones are forgotten.
    public mutating func members(at now: Double) -> [String] {
        heard = heard.filter { now - $0.value < timeout }
        return ([me] + heard.keys).sorted()
    }

    /// The member the group's time comes from at `now`; this node when it is the least.
    public mutating func reference(at now: Double) -> String { members(at: now)[0] }
}
