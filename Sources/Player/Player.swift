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
    private let continuation: AsyncStream<PlayerEvent>.Continuation
    /// mpv now; a new one after ``restart()`` (the display went away under the old one).
    private var mpv: MPVHandle
    private let handleBox: Mutex<MPVHandle>
    private var core: PlaybackCore
    /// The options every mpv of this player starts with.
    private let options: [(String, String)]
    /// The core's time: seconds since the player was made, on its clock; and a sleep until such a time.
    private let clock: PlayerClock
    private var timer: (at: Double, task: Task<Void, Never>)?
    /// The live stream's server watched, and how its watch is told to end.
    private var sourceWatch: (url: String, stop: SourceWatchStop)?
    private var folders: (watch: DirectoryWatch, task: Task<Void, Never>)?
    private var replies: [Int: CheckedContinuation<String?, Never>] = [:]
    private var lastRequest = 0
    private var osd = (width: 0, height: 0)
    /// The picture's display size, as mpv last said it (a wall's tile needs it).
    private var picture = (width: 0, height: 0, rotate: 0)
    /// A remote item's file in the cache (`nil`: none yet); without it, URLs play as they are.
    private let cached: (@Sendable (String) -> String?)?
    /// The picture's place in the window (zoom, pan, align, margins) was set by the last input.
    private var placed = false
    /// Whether this mpv's video output shows a new place only when its window resizes; `nil`
    /// until asked (``PlacementNudge``).
    private var placementNeedsNudge: Bool?
    private var nudges = 0
    /// ``shutdown(timeout:)`` was asked for: mpv ending is expected.
    public private(set) var isShuttingDown = false
    /// The mpv now has ended, or is left alone (until a ``restart()``).
    private var handleEnded = false
    /// A wall's group, while its schedule is followed (``follow(_:)``).
    private var group: GroupLink?

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
    private nonisolated func pump(_ handle: MPVHandle) {
        let events = handle.events
        Task { [weak self] in
            for await e in events { await self?.handle(e, from: handle) }
            await self?.ended(handle)
        }
    }

    /// An mpv's events ended: the player's ``PlayerEvent/shutdown``, unless a newer mpv took over.
    /// The stream finishes only once the player is shut down.
    private func ended(_ handle: MPVHandle) {
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

    /// The item playing now, starting at `groupTime` (a leader's step: the group plays on from
    /// there); `nil` when the playlist is not followed.
    public func anchorForItemStartingNow(at groupTime: Double) -> ScheduleAnchor? {
        core.anchorForItemStartingNow(at: groupTime)
    }

    /// The next clip is the group's: it starts at `groupTime` (held at its first frame until then).
    public func startClip(at groupTime: Double) { feed(.groupClip(at: groupTime)) }

    // MARK: - The loop

    private func handle(_ e: MPVEvent, from handle: MPVHandle) {
        guard handle === mpv, !isShuttingDown else { return }  // an mpv that was replaced, or quitting
        switch e {
        case .clientMessage(let args)
        where (args.first == "upright-hotkey" || args.first == "upright-tap") && args.count >= 2:
            // Bound from the settings' own actions, so the words always parse.
            if case .success(let action) = Action.parse(words: Array(args.dropFirst())) {
                continuation.yield(args[0] == "upright-tap" ? .tap(action) : .hotkey(action))
            }
        case .log("upright-mpv", _, let text): continuation.yield(.problem(text))  // its process crashed
        case .startFile(let entry): feed(.mpv(.startFile(entry: entry, path: mpv.entryPath(entry))))
        case .fileLoaded: feed(.mpv(.fileLoaded))
        case .playbackRestart: feed(.mpv(.playbackRestart))
        case .endFile(let reason, let error, let entry):
            feed(.mpv(.endFile(entry: entry, error: reason == "error" ? error ?? "unknown error" : nil)))
        case .idle:
            // Said late, after a new playlist started (a loaded machine), it says nothing: mpv's
            // own word now decides.
            if mpv.value(.idleActive) != false { feed(.mpv(.idle)) }
        case .propertyChange("osd-width", .int64(let w)?):
            osd.width = Int(w)
            feed(.mpv(.osdSize(width: osd.width, height: osd.height)))
        case .propertyChange("osd-height", .int64(let h)?):
            osd.height = Int(h)
            feed(.mpv(.osdSize(width: osd.width, height: osd.height)))
        case .propertyChange("video-out-params/dw", .int64(let w)?):
            picture.width = Int(w)
            feedPictureSize()
        case .propertyChange("video-out-params/dh", .int64(let h)?):
            picture.height = Int(h)
            feedPictureSize()
        case .propertyChange("video-out-params/rotate", .int64(let r)?):
            picture.rotate = Int(r)
            feedPictureSize()
        default: break
        }
    }

    /// The picture's size to the core, turned as its rotation turns it.
    private func feedPictureSize() {
        let turned = picture.rotate % 180 == 90
        feed(
            .mpv(
                .videoSize(
                    width: turned ? picture.height : picture.width, height: turned ? picture.width : picture.height)))
    }

    /// Hands `input` to the core at the time now and carries its effects out, in order; an answer
    /// the core asked for (a scan, a sample) goes back to it at once, and its effects follow in turn.
    private func feed(_ input: PlaybackInput) {
        guard !isShuttingDown else { return }
        var queue = core.handle(input, at: now)[...]
        while let effect = queue.popFirst() { queue += perform(effect) }
        // A window's new size may have been laid out with the place before the last one.
        if case .mpv(.osdSize) = input { placed = true }
        if placed { nudgePlacement() }
        schedule(core.nextDeadline)
    }

    private var now: Double { clock.now() }

    /// Carries `effect` out; returns the core's effects for what came back (an answer it asked for).
    private func perform(_ effect: PlaybackEffect) -> [PlaybackEffect] {
        switch effect {
        case .mpv(let command):
            if case .set(let name, _) = command, PlacementNudge.places(name) { placed = true }
            return run(command).map { core.handle($0, at: now) } ?? []
        case .guarded(let entry, let commands):
            // Only while mpv plays that entry, and has not selected another one to play next.
            let at = mpv.index(of: entry)
            let passed = at != nil && at == mpv.value(.playlistPosition) && at == mpv.value(.playlistPlayingPosition)
            var answers = core.handle(.guarded(passed: passed), at: now)
            if passed { for command in commands { if let a = run(command) { answers += core.handle(a, at: now) } } }
            return answers
        case .event(let e): continuation.yield(e)
        case .scan: return core.handle(.scanned(Playlist.snapshot(core.settings, cached: cached)), at: now)
        case .watch(let dirs): watch(dirs)
        case .lookUp(let path, let entry, let error):
            let problem = Self.whyUnplayable(path)
            let looked = PlaybackInput.lookedUp(
                path: path, entry: entry, problem: problem, error: error, stamp: Playlist.stamp(path))
            return core.handle(looked, at: now)
        case .samplePosition:
            let sample = PositionSample(
                position: mpv.value(.timePosition), paused: mpv.value(.pause) ?? false,
                idle: mpv.value(.idleActive) ?? false,
                image: mpv.string("current-tracks/video/image") == "yes", fps: mpv.value(.containerFPS),
                buffered: mpv.value(.demuxerCacheDuration))
            return core.handle(.sample(sample), at: now)
        case .sampleShape: return core.handle(.shapeSample(mpv.pictureShape()), at: now)
        case .stepped(let request, let playing): replies.removeValue(forKey: request)?.resume(returning: playing)
        case .watchSource(let url):
            sourceWatch?.stop.set()
            sourceWatch = nil
            guard let url else { return [] }
            let stop = SourceWatchStop()
            sourceWatch = (url, stop)
            // On a thread of its own, for as long as the stream plays: held on one of Dispatch's
            // few workers, it would make every other blocking call (a probe, a helper) wait for
            // another.
            Blocking.thread(named: "upright-source-watch") { [weak self] in
                guard StreamProbe.watch(url, cancelled: { stop.isSet }) else { return }
                Task { await self?.feed(.sourceGone(url)) }
            }
        case .sampleGroup:
            let sample = GroupSample(
                groupTime: group?.groupTime(), anchor: group?.anchor(), position: mpv.value(.timePosition),
                paused: mpv.value(.pause) ?? false, idle: mpv.value(.idleActive) ?? false, fps: mpv.value(.containerFPS)
            )
            return core.handle(.groupSample(sample), at: now)
        case .probeLengths(let items):
            // Off the actor: mpv opens each file in a core of its own, 10 s at most each.
            let handle = mpv
            Task { [weak self] in
                let found = await Blocking.run {
                    Dictionary(items.map { ($0, (try? handle.probeLength($0, timeout: 10)) ?? nil) }) { a, _ in a }
                }
                await self?.feed(.lengthsProbed(found))
            }
        case .announce(let anchor): group?.announce?(anchor)
        case .probe(let url):
            // Off the actor: a connection may take up to its timeout.
            Task { [weak self] in
                let reachable = await Blocking.run { StreamProbe.reachable(url) }
                await self?.feed(.probed(url, reachable: reachable))
            }
        }
        return []
    }

    /// mpv 0.35's Wayland software output (`wlshm`) takes a new zoom, pan, alignment or margin only
    /// when its window resizes: after one, an option that resizes it without changing it is written.
    private func nudgePlacement() {
        placed = false
        guard !handleEnded else { return }
        if placementNeedsNudge == nil {
            guard let vo = mpv.string("current-vo") else { return }  // no window yet: placed when it opens
            placementNeedsNudge = PlacementNudge.needed(videoOutput: vo, version: mpv.string("mpv-version") ?? "")
        }
        guard placementNeedsNudge == true else { return }
        // Only a full-screen or maximised window: mpv 0.35 takes the video's own size as a normal
        // window's new geometry at this write, and draws at it until the compositor sends a size.
        let filling =
            (try? mpv.get(MPVProperty<Bool>("fullscreen"))) == true
            || (try? mpv.get(MPVProperty<Bool>("window-maximized"))) == true
        guard filling else { return }
        nudges += 1
        _ = run(.command(["set", PlacementNudge.option, PlacementNudge.value(nudges)]))
    }

    /// Carries one command out; one mpv refuses is reported with its reason.
    private func run(_ command: MPVCommand) -> PlaybackInput? {
        var refused: PlaybackInput?
        if case .load = command { refused = .added(entry: nil) }
        // An mpv that shut down (its compositor went away) takes nothing, and says nothing of it:
        // a new one is given the core's state when it starts.
        guard !handleEnded else { return refused }
        do {
            return try mpv.carryOut(command)
        } catch {
            if !error.isShutDown { continuation.yield(.problem("\(command): \(error)")) }
            return refused
        }
    }

    /// The one timer: a tick at the core's next deadline.
    private func schedule(_ deadline: Double?) {
        guard deadline != timer?.at else { return }
        timer?.task.cancel()
        timer = nil
        guard let deadline else { return }
        let sleep = clock.sleep
        timer = (
            deadline,
            Task { [weak self] in
                guard (try? await sleep(deadline)) != nil else { return }
                await self?.tick()
            }
        )
    }

    private func tick() {
        timer = nil
        feed(.tick)
    }

    /// Watches `dirs` for changes; a new set replaces the old watch.
    private func watch(_ dirs: [String]) {
        folders?.watch.stop()
        folders?.task.cancel()
        folders = nil
        guard !dirs.isEmpty else { return }
        let watch = DirectoryWatch(dirs)
        folders = (watch, Task { [weak self] in for await _ in watch.changes { await self?.feed(.foldersChanged) } })
    }
}

/// A clock as the player's core counts time: seconds since the start, and a sleep until one.
struct PlayerClock: Sendable {
    let now: @Sendable () -> Double
    let sleep: @Sendable (Double) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now).seconds }
        sleep = { t in try await clock.sleep(until: origin.advanced(by: .seconds(t)), tolerance: nil) }
    }
}

/// Tells a source watch (``StreamProbe/watch(_:timeout:pause:cancelled:)``) to end.
final class SourceWatchStop: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
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
