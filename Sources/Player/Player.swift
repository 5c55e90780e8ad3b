import Blocking
import Files
import Foundation
public import MPV
public import OrientationCore
public import Playback
public import Sync
import Synchronization

/// The video player: libmpv carrying out what ``PlaybackCore`` decides. One actor holds the core;
/// mpv's events, the folder watch, requests and one timer at the core's next deadline are its
/// inputs, and the core's effects are carried out strictly in order. A command mpv refuses is
/// reported as ``PlayerEvent/problem(_:)`` and playback goes on.
public actor Player {
    public nonisolated let events: AsyncStream<PlayerEvent>
    let continuation: AsyncStream<PlayerEvent>.Continuation
    /// mpv now; a new one after ``restart()`` (the display went away under the old one).
    var mpv: MPVHandle
    let handleBox: Mutex<MPVHandle>
    var core: PlaybackCore
    /// The options every mpv of this player starts with.
    let options: [(String, String)]
    /// The core's time: seconds since the player was made, on its clock; and a sleep until such a time.
    let clock: PlayerClock
    var timer: (at: Double, task: Task<Void, Never>)?
    /// The live stream's server watched, and how its watch is told to end.
    var sourceWatch: (url: String, stop: SourceWatchStop)?
    var folders: (watch: DirectoryWatch, task: Task<Void, Never>)?
    var replies: [Int: CheckedContinuation<String?, Never>] = [:]
    var lastRequest = 0
    var osd = (width: 0, height: 0)
    /// The picture's display size, as mpv last said it (a wall's tile needs it).
    var picture = (width: 0, height: 0, rotate: 0)
    /// A remote item's file in the cache (`nil`: none yet); without it, URLs play as they are.
    let cached: (@Sendable (String) -> String?)?
    /// The picture's place in the window (zoom, pan, align, margins) was set by the last input.
    var placed = false
    /// Whether this mpv's video output shows a new place only when its window resizes; `nil`
    /// until asked (``PlacementNudge``).
    var placementNeedsNudge: Bool?
    var nudges = 0
    /// ``shutdown(timeout:)`` was asked for: mpv ending is expected.
    public private(set) var isShuttingDown = false
    /// The mpv now has ended, or is left alone (until a ``restart()``).
    var handleEnded = false
    /// A wall's group, while its schedule is followed (``follow(_:)``).
    var group: GroupLink?

    /// The player's mpv, for a renderer.
    public nonisolated var mpvHandle: MPVHandle { handleBox.withLock { $0 } }
    public var layout: PlayerLayout { core.layout }
    public var interface: InterfaceOrientation { core.interface }
    public var strategy: AppliedStrategy { core.strategy }
    public var overlays: OverlayContent { core.overlays }
    /// The video surface's own turn (clockwise degrees): the orientation's angle for `surface`, else 0.
    public var surfaceAngle: Int { core.surfaceAngle }
    /// The item after the one playing (``PlaybackCore/upcoming``).
    public var upcoming: String? { core.upcoming }

    /// Creates the player with the configured mpv options; `extra` options (vo=null in tests) win.
    /// The core's deadlines run on `clock` (a test's own, in tests).
    /// `cached` gives a remote item's file in the cache, or `nil` while it is not downloaded (the
    /// item waits; ``remoteChanged()`` when one comes); without it, URLs play as they are.
    /// mpv in a process of its own may still be starting when the player is made (``started()``).
    public init<C: Clock>(
        settings: PlayerSettings, extra: [(String, String)] = [], cached: (@Sendable (String) -> String?)? = nil,
        clock: C
    ) throws(MPVError)
    where C.Duration == Duration {
        self.clock = PlayerClock(clock)
        self.cached = cached
        let options = MPVHandle.options(for: settings, extra: extra)
        self.options = options
        mpv = try MPVHandle.player(options: options, hotkeys: settings.hotkeys, picture: settings.wall != nil)
        handleBox = Mutex(mpv)
        core = PlaybackCore(settings: settings, rotateByFilter: options.last { $0.0 == "vo" }?.1 == "libmpv")
        (events, continuation) = AsyncStream.makeStream(of: PlayerEvent.self)
        pump(mpv)
    }

    /// The same on the system's monotonic clock.
    public init(
        settings: PlayerSettings, extra: [(String, String)] = [], cached: (@Sendable (String) -> String?)? = nil
    ) throws(MPVError) {
        try self.init(settings: settings, extra: extra, cached: cached, clock: ContinuousClock())
    }

    /// Hands `handle`'s events to the player until they end.
    nonisolated func pump(_ handle: MPVHandle) {
        let events = handle.events
        Task { [weak self] in
            for await e in events { await self?.handle(e, from: handle) }
            await self?.ended(handle)
        }
    }

    /// An mpv's events ended: the player's ``PlayerEvent/shutdown``, unless a newer mpv took over.
    /// The stream finishes only once the player is shut down.
    func ended(_ handle: MPVHandle) {
        guard handle === mpv else { return }
        handleEnded = true
        continuation.yield(.shutdown)
        if isShuttingDown { continuation.finish() }
    }

    /// Waits until the first mpv has started (its process may still load libmpv when the player
    /// is made); throws why it could not (a bad option, a refused key binding).
    public nonisolated func started() async throws(MPVError) {
        let handle = mpvHandle
        try await Blocking.run { () throws(MPVError) in try handle.waitStarted() }
    }

    // MARK: - Requests

    /// Starts the playlist, or the idle scene when it is empty.
    public func start() { feed(.start) }

    /// Starts a new mpv after the old one ended on its own (its display went away and came back):
    /// the same options and hotkeys, the playlist from the entry that played, the same layout,
    /// orientation and overlays.
    public func restart() throws(MPVError) {
        guard !isShuttingDown else { return }
        let handle = try MPVHandle.player(
            options: options, hotkeys: core.settings.hotkeys, picture: core.settings.wall != nil)
        try handle.waitStarted()
        mpv = handle
        handleBox.withLock { $0 = handle }
        handleEnded = false
        placementNeedsNudge = nil
        pump(handle)
        feed(.restarted)
    }

    /// The display went away: nothing more is sent to this mpv (it closes its window, or lives
    /// on failing each item: what it is told is lost or refused); the core's state goes to the new
    /// one at ``restart()``.
    public func leaveAlone() { handleEnded = true }

    /// A remote item was downloaded, or a new version of it: the playlist takes it from the next
    /// item change (the item playing goes on).
    public func remoteChanged() { feed(.foldersChanged) }

    /// Replaces the playlist (a reload) and plays it from its start; the same list changes nothing.
    public func setPlaylist(_ items: [String]) { feed(.setPlaylist(items)) }
    /// Applies the interface orientation the policy decided (and the layout, when given).
    public func apply(_ o: InterfaceOrientation, strategy: AppliedStrategy, layout: PlayerLayout? = nil) {
        feed(.apply(o, strategy, layout))
    }
    public func setLayout(_ l: PlayerLayout) { feed(.layout(l)) }
    /// Hides the overlays (during a transition) or shows them again, laid out anew.
    public func setOverlaysHidden(_ hidden: Bool) { feed(.overlaysHidden(hidden)) }
    public func setOverlays(_ content: OverlayContent) { feed(.overlays(content)) }
    /// Changes some of what the overlays show, leaving the rest (a message the player set itself).
    public func updateOverlays(_ change: @Sendable (inout OverlayContent) -> Void) {
        var next = core.overlays
        change(&next)
        feed(.overlays(next))
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

    /// What the status line shows for `item`: "Test pattern" for the built-in one, else mpv's title.
    public func title(of item: String) -> String {
        if item == PlaybackCore.builtInSlate { return "" }  // the words over it say what it is
        if item == testPattern || item.hasPrefix("av://lavfi") { return "Test pattern" }
        return mpv.string("media-title") ?? item
    }

    /// Writes a PNG of what mpv shows to `path`: its window with the overlays (`window`), or the
    /// current video frame (`video`, which mpv takes with no window at all).
    public func screenshot(to path: String, window: Bool) throws(MPVError) {
        // The null output has no window: asking it costs mpv's playback loop an attempt each time.
        if window, mpv.string("current-vo") == "null" {
            throw MPVError(call: "screenshot-to-file window", message: "the null video output has no window", code: -1)
        }
        try mpv.command(["screenshot-to-file", path, window ? "window" : "video"])
    }

    /// Presses a key, as a person would (`keypress`): the way hotkeys are tested and scripted.
    public func keypress(_ key: String) throws(MPVError) { try mpv.command(["keypress", key]) }

    /// mpv's video decoder and the frames dropped for the item playing; `nil` with no video playing.
    public func decoder() -> DecoderReport? {
        guard let codec = mpv.string("video-format").flatMap({ _ in mpv.string("video-codec") }) else { return nil }
        func count(_ name: String) -> Int {
            if case .int64(let n)? = try? mpv.get(name, as: .int64) { return Int(n) }
            return 0
        }
        let hwdec = mpv.string("hwdec-current") ?? "no"
        return DecoderReport(
            hwdec: hwdec == "no" || hwdec.isEmpty ? "software" : hwdec,
            codec: codec.split(separator: " ").first.map(String.init),
            decoderDrops: count("decoder-frame-drop-count"), outputDrops: count("frame-drop-count"))
    }

    /// The live stream playing, the latency it is held at, what mpv holds of it and the speed;
    /// `nil` when no stream plays.
    public func liveStream() -> LiveStreamReport? {
        guard let stream = core.liveStream else { return nil }
        let buffered = mpv.value(.demuxerCacheDuration).map { ($0 * 1000).rounded() / 1000 }
        return LiveStreamReport(
            url: stream.url, latency: stream.latency, buffered: buffered, speed: mpv.value(.speed) ?? 1)
    }

    /// A property of the player, for status and tests.
    public func property<V: MPVConvertible>(_ p: MPVProperty<V>) throws(MPVError) -> V { try mpv.get(p) }

    /// Ends playback and waits until mpv has shut down and its core is destroyed, `timeout`
    /// seconds at the most (false when it did not end in time); the event stream finishes with
    /// ``PlayerEvent/shutdown``. The process may exit only after this.
    public func shutdown(timeout: Double = 5) async -> Bool {
        isShuttingDown = true
        timer?.task.cancel()
        sourceWatch?.stop.set()
        sourceWatch = nil
        folders?.watch.stop()
        folders?.task.cancel()
        for (_, reply) in replies { reply.resume(returning: nil) }
        replies = [:]
        let done = await mpv.shutdown(timeout: timeout)
        if handleEnded { continuation.finish() }  // else when its events end (``ended(_:)``)
        return done
    }

    // MARK: - A wall

    /// Follows a wall's group (``PlaybackCore``'s rules: its schedule on the group's clock, each
    /// item started at its instant), or stops following (`nil`: the speed goes back to 1).
    public func follow(_ link: GroupLink?) {
        group = link
        feed(.follow(announces: link.map { $0.announce != nil }))
    }

    /// How the player follows its wall; `nil` when it does not.
    public var followStatus: FollowStatus? { core.followStatus }

    /// The next clip is the group's: it starts at `groupTime` (held at its first frame until then).
    public func startClip(at groupTime: Double) { feed(.groupClip(at: groupTime)) }
}

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
