import Blocking
public import Confinement
import Files
import Foundation
public import MPV
public import OrientationCore
public import Playback
import SMIL
import Sync
import Synchronization
public import Wire

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
    /// How every mpv of this player starts (a new one after ``restart()`` the same).
    let mpvStart: PlayerMPVStart
    /// The core's time (seconds since the player was made, on its clock) and the one timer.
    var timer: DeadlineTimer
    /// The live stream's server watched.
    var sourceWatch: SourceWatch?
    var folders: DirectoryWatch?
    var replies: [Int: CheckedContinuation<String?, Never>] = [:]
    var lastRequest = 0
    /// A remote item's file in the cache (`nil`: none yet); without it, URLs play as they are.
    let outside: PlayerOutside
    /// ``shutdown(timeout:)`` was asked for: mpv ending is expected.
    public private(set) var isShuttingDown = false
    /// The mpv now has ended, or is left alone (until a ``restart()``).
    var handleEnded = false
    /// A wall's group, while its schedule is followed (``follow(_:)``).
    var group: GroupLink?
    /// The SMIL index playing in place of the core's playlist (``SMILShow``); `nil` when none does.
    var show: SMILShow?

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
    /// How the player follows its wall; `nil` when it does not.
    public var followStatus: FollowStatus? { core.followStatus }
    /// The status of the SMIL index playing; `nil` when none does.
    public var presentationStatus: PresentationStatus? { show?.core.status }

    /// Creates the player with the configured mpv options; `extra` options (vo=null in tests) win,
    /// the core's deadlines run on `clock`, `outside` answers what mpv does not know. mpv in a
    /// process of its own may still be starting when the player is made (``started()``); it
    /// confines itself to `confinement` (every new one the same) before it starts mpv.
    public init<C: Clock>(
        settings: PlayerSettings, extra: [(String, String)] = [], outside: PlayerOutside = PlayerOutside(),
        confinement: ConfinementPolicy? = nil, clock: C
    ) throws(MPVError)
    where C.Duration == Duration {
        timer = DeadlineTimer(clock)
        self.outside = outside
        mpvStart = PlayerMPVStart(
            options: MPVHandle.options(for: settings, extra: extra), hotkeys: settings.hotkeys,
            picture: settings.wall != nil, confinement: confinement)
        mpv = try mpvStart.make()
        handleBox = Mutex(mpv)
        core = PlaybackCore(settings: settings, rotateByFilter: !mpvStart.separateProcess)
        (events, continuation) = AsyncStream.makeStream(of: PlayerEvent.self)
        pump(mpv)
    }

    /// The same on the system's monotonic clock.
    public init(
        settings: PlayerSettings, extra: [(String, String)] = [], outside: PlayerOutside = PlayerOutside(),
        confinement: ConfinementPolicy? = nil
    ) throws(MPVError) {
        try self.init(
            settings: settings, extra: extra, outside: outside, confinement: confinement, clock: ContinuousClock())
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
        try await Blocking.run { [mpvHandle] () throws(MPVError) in try mpvHandle.waitStarted() }
    }

    // MARK: - Requests

    /// Starts a new mpv after the old one ended on its own (its display went away and came back):
    /// the same options and hotkeys, the playlist from the entry that played, the same layout,
    /// orientation and overlays.
    public func restart() throws(MPVError) {
        guard !isShuttingDown else { return }
        let handle = try mpvStart.make()
        try handle.waitStarted()
        mpv = handle
        handleBox.withLock { $0 = handle }
        handleEnded = false
        pump(handle)
        feed(.restarted)
        show?.restarted(on: handle)
        schedule()
    }

    /// The display went away: nothing more is sent to this mpv (it closes its window, or fails each
    /// item); the core's state goes to the new one at ``restart()``.
    public func leaveAlone() { handleEnded = true }

    /// A remote item was downloaded, or a new version of it: the playlist takes it from the next
    /// item change (the item playing goes on).
    public func remoteChanged() {
        feed(.foldersChanged)
        show?.read(at: moment())
        schedule()
    }

    /// The SMIL index `entry` plays in place of the playlist (``SMILShow``), or none (the core
    /// says which: ``PlaybackEffect/present(_:)``).
    func present(_ entry: String?) {
        show?.end(core.settings)
        show = entry.map { entry in
            SMILShow(entry: entry, mpv: mpv, canvas: canvas, hotkeys: core.settings.hotkeys, outside: outside) {
                [continuation] in continuation.yield($0)
            }
        }
        show?.read(at: moment())
    }

    /// A named notification to the SMIL index playing (`notify(name)`): whether it waits for one.
    public func notify(_ name: String) -> Bool {
        guard let show, show.notify(name, at: moment()) else { return false }
        schedule()
        return true
    }

    /// The window as a presentation fills it: the OSD's size, turned with the picture.
    var canvas: Canvas {
        Canvas(width: core.windowSize.width, height: core.windowSize.height, angle: core.surfaceAngle)
    }

    /// The moment now: the player's monotonic time, the system clock and the local zone's offset.
    func moment() -> Moment {
        Moment(elapsed: timer.now(), utc: Date().timeIntervalSince1970, utcOffset: TimeZone.current.secondsFromGMT())
    }

    /// Ends playback and waits until mpv has shut down and its core is destroyed, `timeout`
    /// seconds at the most (false when it did not end in time); the event stream finishes with
    /// ``PlayerEvent/shutdown``. The process may exit only after this.
    public func shutdown(timeout: Double = 5) async -> Bool {
        isShuttingDown = true
        timer.cancel()
        sourceWatch?.stop()
        folders?.stop()
        for (_, reply) in replies { reply.resume(returning: nil) }
        replies = [:]
        let done = await mpv.shutdown(timeout: timeout)
        if handleEnded { continuation.finish() }  // else when its events end (``ended(_:)``)
        return done
    }

    // MARK: - The loop: mpv's events in, the core's effects out, one timer

    func handle(_ e: MPVEvent, from handle: MPVHandle) {
        guard handle === mpv, !isShuttingDown else { return }  // an mpv that was replaced, or quitting
        if let said = MPVHandle.playerEvent(for: e) {
            continuation.yield(said)
        } else if let show, show.takes(e, at: moment()) {
            schedule()
        } else if let input = mpv.input(for: e) {
            feed(input)
        }
    }

    /// Hands `input` to the core at the time now and carries its effects out, in order; an answer
    /// the core asked for (a scan, a sample) goes back to it at once, and its effects follow in turn.
    func feed(_ input: PlaybackInput) {
        guard !isShuttingDown else { return }
        var queue = core.handle(input, at: timer.now())[...]
        while let effect = queue.popFirst() { queue += perform(effect).flatMap { core.handle($0, at: timer.now()) } }
        if show?.follow(canvas) == true { feed(.placed) }
        schedule()
    }

    /// The one timer, at the soonest of the core's deadline and the presentation's next change.
    func schedule() {
        let due = [core.nextDeadline, show?.nextDeadline].compactMap { $0 }.min()
        timer.schedule(due) { [weak self] in await self?.tick() }
    }

    /// Carries `effect` out; returns the core's inputs for what came back (an answer it asked for).
    func perform(_ effect: PlaybackEffect) -> [PlaybackInput] {
        switch effect {
        case .mpv(let command): return run(command).map { [$0] } ?? []
        case .present(let entry): present(entry)
        case .guarded(let entry, let commands):
            // Only while mpv plays that entry, and has not selected another one to play next.
            let passed = !handleEnded && mpv.plays(entry)
            return [.guarded(passed: passed)] + (passed ? commands.compactMap(run) : [])
        case .event(let e): continuation.yield(e)
        case .scan: return [.scanned(Playlist.snapshot(core.settings, cached: outside.cached))]
        case .watch(let dirs): watch(dirs)
        case .lookUp(let path, let entry, let error):
            let problem = Self.whyUnplayable(path)
            return [.lookedUp(path: path, entry: entry, problem: problem, error: error, stamp: Playlist.stamp(path))]
        case .samplePosition: return [.sample(mpv.positionSample())]
        case .sampleShape: return [.shapeSample(mpv.pictureShape())]
        case .sampleGroup: return [.groupSample(mpv.groupSample(group))]
        case .samplePlacement:
            return [.placementSample(handleEnded ? PlacementSample(videoOutput: nil) : mpv.placementSample())]
        case .stepped(let request, let playing): replies.removeValue(forKey: request)?.resume(returning: playing)
        case .watchSource(let url):
            sourceWatch?.stop()
            sourceWatch = url.map { url in SourceWatch(url) { [weak self] in self?.later(.sourceGone(url)) } }
        case .probeLengths(let items):
            let handle = mpv
            answer { .lengthsProbed(await Blocking.run { handle.probeLengths(items) }) }
        case .probe(let url): answer { [outside] in .probed(url, reachable: await outside.answers(url)) }
        case .announce(let anchor): group?.announce?(anchor)
        }
        return []
    }

    /// Carries one command out; one mpv refuses is reported with its reason. An mpv that shut down
    /// (its compositor went away) takes nothing and says nothing of it: a new one is given the
    /// core's state when it starts.
    func run(_ command: MPVCommand) -> PlaybackInput? {
        guard !handleEnded else { return .refused(command) }
        do {
            return try mpv.carryOut(command)
        } catch {
            if !error.isShutDown { continuation.yield(.problem("\(command): \(error)")) }
            return .refused(command)
        }
    }

    func tick() {
        timer.fired()
        show?.tick(moment())
        feed(.tick)
    }

    /// Watches `dirs` for changes; a new set replaces the old watch.
    func watch(_ dirs: [String]) {
        folders?.stop()
        folders = dirs.isEmpty ? nil : DirectoryWatch(dirs) { [weak self] in self?.later(.foldersChanged) }
    }

    /// Hands `input` to the core from another thread or task.
    nonisolated func later(_ input: PlaybackInput) { Task { [weak self] in await self?.feed(input) } }

    /// Blocking or slow `work` (a connection, files opened) off the actor; its answer goes to the core.
    func answer(_ work: @escaping @Sendable () async -> PlaybackInput) {
        Task { [weak self] in self?.later(await work()) }
    }
}
