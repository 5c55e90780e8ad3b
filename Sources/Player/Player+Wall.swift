public import MPV
public import Playback
public import Wire

/// A wall's group followed, and what a tap reaches (the touch check).
extension Player {
    /// Follows a wall's group (``PlaybackCore``'s rules: its schedule on the group's clock, each
    /// item started at its instant), or stops following (`nil`: the speed goes back to 1).
    public func follow(_ link: GroupLink?) {
        group = link
        feed(.follow(announces: link.map { $0.announce != nil }))
    }

    /// Starts or stops the touch check.
    public func touchCheck(_ command: TouchCheckCommand) { feed(.touchCheck(command)) }

    /// Where the touch check stands; `nil` before the first.
    public var touchCheckReport: TouchCheckReport? { core.touchCheckReport }

    /// A tap at the window's point (`x`, `y`) in pixels, as mpv takes a touch or a click: it
    /// reaches what is bound to a tap (the touch check, or an action).
    public func tap(x: Int, y: Int) throws(MPVError) {
        try mpv.command(["mouse", String(x), String(y), "0", "single"])
    }

    /// The next clip is the group's: it starts at `groupTime` (held at its first frame until then).
    public func startClip(at groupTime: Double) { feed(.groupClip(at: groupTime)) }
}
