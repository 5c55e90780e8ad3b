import Blocking
import Sync
public import Wire

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

/// What the player asks of the world outside mpv.
public struct PlayerOutside: Sendable {
    /// A remote item's file in the cache (`nil`: not yet, the item waits for
    /// ``Player/remoteChanged()``); without it, URLs play as they are.
    public var cached: (@Sendable (String) -> String?)?
    /// Whether a lost HTTP(S) stream's server serves it again (``StreamProbe`` asks the other
    /// streams, and these without it, by a TCP connection).
    public var servesHTTP: (@Sendable (String) async -> Bool)?
    /// A SMIL index from the network asks to be read again every so many seconds (its `Refresh`;
    /// `nil`: the cache's own interval).
    public var indexRefresh: (@Sendable (String, Double?) -> Void)?

    public init(
        cached: (@Sendable (String) -> String?)? = nil, servesHTTP: (@Sendable (String) async -> Bool)? = nil,
        indexRefresh: (@Sendable (String, Double?) -> Void)? = nil
    ) {
        (self.cached, self.servesHTTP, self.indexRefresh) = (cached, servesHTTP, indexRefresh)
    }

    /// Whether the server of the stream `url` answers: over HTTP for an HTTP(S) stream (with
    /// ``servesHTTP``), else by a TCP connection to its host and port.
    func answers(_ url: String) async -> Bool {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        if let servesHTTP, scheme == "http" || scheme == "https" { return await servesHTTP(url) }
        return await Blocking.run { StreamProbe.reachable(url) }
    }
}
