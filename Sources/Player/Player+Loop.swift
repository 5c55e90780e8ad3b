import Blocking
import Files
import Foundation
import MPV
import OrientationCore
import Playback
import Synchronization

/// The player's loop: mpv's events to the core's inputs, the core's effects carried out in order,
/// the one timer at the core's next deadline, the folder watch.
extension Player {
    func handle(_ e: MPVEvent, from handle: MPVHandle) {
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
    func feedPictureSize() {
        let turned = picture.rotate % 180 == 90
        feed(
            .mpv(
                .videoSize(
                    width: turned ? picture.height : picture.width, height: turned ? picture.width : picture.height)))
    }

    /// Hands `input` to the core at the time now and carries its effects out, in order; an answer
    /// the core asked for (a scan, a sample) goes back to it at once, and its effects follow in turn.
    func feed(_ input: PlaybackInput) {
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
    func perform(_ effect: PlaybackEffect) -> [PlaybackEffect] {
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
    func nudgePlacement() {
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
    func run(_ command: MPVCommand) -> PlaybackInput? {
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
    func schedule(_ deadline: Double?) {
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

    func tick() {
        timer = nil
        feed(.tick)
    }

    /// Watches `dirs` for changes; a new set replaces the old watch.
    func watch(_ dirs: [String]) {
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
