public import MPV
public import OrientationCore
public import Playback
public import Wire

/// What the session asks of the player, each handed to ``PlaybackCore`` as an input (the core
/// decides; the player carries its effects out).
extension Player {
    /// Applies the interface orientation the policy decided (and the layout, when given).
    public func apply(
        _ o: InterfaceOrientation, strategy: AppliedStrategy, layout: PlayerLayout? = nil,
        panel: InterfaceOrientation = .portrait
    ) {
        feed(.apply(o, strategy, layout, panel: panel))
    }
    public func setLayout(_ l: PlayerLayout) { feed(.layout(l)) }
    /// Hides the overlays (during a transition) or shows them again, laid out anew.
    public func setOverlaysHidden(_ hidden: Bool) { feed(.overlaysHidden(hidden)) }
    public func setOverlays(_ content: OverlayContent) { feed(.overlays(content)) }
    /// Changes some of what the overlays show, leaving the rest (a message the player set itself).
    public func updateOverlays(_ change: @Sendable (inout OverlayContent) -> Void) {
        feed(.overlays(core.overlays.changed(by: change)))
    }
    /// Pauses playback (the screen is off) or resumes it.
    public func setPaused(_ paused: Bool) { feed(.pause(paused)) }
    /// Plays `file` once, then goes back to the loop where it was.
    public func playClip(_ file: String) { feed(.clip(file, position: mpv.value(.timePosition))) }
    /// Goes to the next entry of the playlist; returns it once mpv has started it.
    @discardableResult public func next() async -> String? { await step(.next) }
    /// Goes to the previous entry of the playlist; returns it once mpv has started it.
    @discardableResult public func previous() async -> String? { await step(.previous) }

    private func step(_ step: PlaylistStep) async -> String? {
        lastRequest += 1
        let request = lastRequest
        return await withCheckedContinuation { reply in
            replies[request] = reply
            feed(.step(step, request: request))
        }
    }

    // MARK: - A wall, and taps

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

    /// Starts the playlist, or the idle scene when it is empty (a SMIL index in it: the index).
    public func start() { feed(.start) }

    /// Replaces the playlist (a reload) and plays it from its start; the same list changes nothing.
    public func setPlaylist(_ items: [String]) { feed(.setPlaylist(items)) }
}
