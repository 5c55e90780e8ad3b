public import OrientationCore

/// The player's rules, as a value: no libmpv, no clock, no I/O. It takes mpv's events, the
/// playlist's folders as scanned, requests and ticks, each with its time, and returns what to do,
/// in order: mpv commands, the player's events, looks at the disk. The `Player` actor carries the
/// effects out; the tests feed inputs at explicit times.
///
/// The rules:
/// - **mpv's playlist by its own ids.** Every entry is added by the core (`loadfile`), and mpv
///   numbers entries 1, 2, 3 … in the order they are added (`playlist_add`): the core knows which
///   file each id is. The shell finds an id's index in mpv's playlist when it carries a command out.
/// - **The playlist made concrete** from a scan: a stick's files while one is there, else the
///   configured entries whose schedule is open (local time), a folder's ready files by name, a file
///   still being written left out until it stood still. The next look is due when a file settles or
///   a schedule opens or closes, at each item's start, and 0.2 s after a folder changed.
/// - **Changes take effect at the next item**: the entry playing goes on; what follows it is the
///   new list from the item after it. The change is made only while mpv plays that entry (never
///   between two entries: it waits for the next start).
/// - **A failed entry leaves mpv's playlist** and is not played again until its file changes (a URL:
///   until ``PlayerSettings/retryInterval`` passed). Its failure is named in the system's words
///   and shown over the video for ``PlayerSettings/failureMessageTime`` at least.
/// - **Nothing to play** (every entry failed, the folders are empty): the splash with the reason,
///   and the playlist is tried again every ``PlayerSettings/retryInterval`` and at every change.
///   mpv idle before the first start is not that.
/// - **The splash leads** the playlist at the first start (shown until the first item's own first
///   frame), then leaves it.
/// - **Clips** play once before the loop's entry; at their end the loop goes on where it was.
/// - **Overlays wait while an item starts** (from its start to its first frame, 1 s at most), and
///   each level is sent only when it changes: a redraw between mpv dropping the last frame and the
///   next item's first frame would show a black frame. An mpv's first text waits 0.2 s more after
///   its first frame, which would otherwise wait for libass's font setup.
/// - **Stalls**: a position that stands still for the timeout while playing loads the item again;
///   too many in the window and the player gives up.
/// - **Live streams** (``RemoteItem``): a stream that ends, fails or stands still (0.5 s, three frames'
///   time at least; while opening, the ordinary timeout) is lost: the splash (or the built-in
///   slate) with "Reconnecting…",
///   its server asked (``PlaybackEffect/probe(_:)``) every ``PlayerSettings/liveRetry`` until it
///   answers, then the playlist again. Never a reason to give up; in a rotation, a stream plays for
///   its item's `duration`.
/// - **Steps** (`next`/`previous`) are answered once each, with what plays once mpv started it
///   (3 s at most); one asked for before the first item started waits for that start first.
public struct PlaybackCore: Sendable {
    public private(set) var settings: PlayerSettings
    /// With the software render API (vo=libmpv) mpv 0.35 aborts on `video-rotate`: turn with a filter.
    let rotateByFilter: Bool

    // mpv's playlist, as the core made it.
    /// mpv's entries in order: id and file.
    public internal(set) var entries: [(id: Int64, path: String)] = []
    /// Why each `loadfile` sent and not yet answered was sent, in order.
    enum Adding: Sendable {
        case item
        /// The splash that leads the playlist at the first start.
        case leadingSplash
        case clip
    }
    var adding: [(path: String, why: Adding)] = []
    /// The guarded batches sent and not yet answered: the entries they removed, and how many they add.
    var guards: [(removed: [(id: Int64, path: String)], adds: Int)] = []
    /// Items' entries mpv has not started yet: one appended as mpv ran out of entries is played
    /// when it says it is idle (mpv does not go on to an entry added after its end).
    var unstarted: Set<Int64> = []
    /// The playlist made concrete at the last look.
    public internal(set) var items: [String] = []
    /// The entry playing (mpv's last start) and its file.
    public internal(set) var currentEntry: Int64?
    public internal(set) var current: String?

    /// The item after the one playing, as the playlist stands (the first again when it loops),
    /// named as the player's events name it.
    public var upcoming: String? {
        guard let current, let i = items.firstIndex(of: current) else { return items.first.map(named) }
        if i + 1 < items.count { return named(items[i + 1]) }
        return settings.loop ? items.first.map(named) : nil
    }
    /// mpv ended the entry playing and has not started the next one yet.
    var between = false
    public internal(set) var idle = true
    var startedOnce = false
    /// The splash's entry while it leads the playlist (until the first item starts), and the one
    /// taken out of the list last.
    var leadingSplash: Int64?
    var droppedSplash: Int64?

    // Looks at the disk.
    /// Why a scan was asked for: the start loads the playlist, a refresh changes what follows.
    enum ScanPurpose { case start, refresh }
    var scanFor: ScanPurpose?
    var lastScan: PlaylistScan?
    var watched: [String] = []
    var lookAt: Double?
    var folderChangeAt: Double?
    var refreshAtNextStart = false

    // Failures.
    /// Entries that could not be played, with their file's stamp then and when.
    var failed: [String: (stamp: String, at: Double)] = [:]
    var lastFailure: String?
    var failure: (text: String, shown: Double)?
    /// The "nothing to play" message last shown.
    var nothingMessage: String?
    var failureClearAt: Double?
    var retryAt: Double?
    /// A live stream that was lost: since when, and why; while its server cannot be reached the
    /// slate shows, and it is asked again at `probeAt`.
    var lostStream: (path: String, since: Double, why: String)?
    var probeAt: Double?
    /// The live stream whose server is watched (``PlaybackEffect/watchSource(_:)``).
    var watchedSource: String?
    /// The speed set to hold a live stream's latency (each file starts at 1: its own option).
    var heldSpeed = 1.0
    /// A live stream with a `duration`, in a rotation: when it gives way to the next item.
    var liveEndAt: Double?
    /// The request number of a step the core takes itself (a person's steps count from 1).
    static let ownStep = 0

    // Clips and steps.
    struct Clip: Sendable {
        var file: String
        var entry: Int64?
        var resume: (entry: Int64, time: Double?)?
        var ended = false
    }
    var clipState: Clip?
    /// The clip playing (or asked for), until the loop plays again.
    public var clip: String? { clipState?.file }
    /// A change of the entry playing: mpv carries one out at a time (the next waits for its start).
    enum Change: Sendable {
        case step(PlaylistStep, request: Int)
        case play(entry: Int64)
        /// The first entry of this file (a new mpv's, once it named its entries).
        case playItem(String)
        /// The entry playing, loaded again (a stall).
        case reload
        /// mpv's playlist replaced by these items (the splash first at the first start).
        case load([String])
        /// The splash alone, shown while nothing can play.
        case splash
    }
    /// The change mpv was asked for and has not started yet, and until when it is waited for.
    var inFlight: (change: Change, deadline: Double)?
    /// Changes waiting for the one in flight.
    var changes: [Change] = []

    // The screen: layout, rotation, overlays.
    public internal(set) var layout: PlayerLayout = .inline
    public internal(set) var interface: InterfaceOrientation = .portrait
    public internal(set) var strategy: AppliedStrategy = .none
    /// What the output shows upright (``PlaybackInput/apply(_:_:_:panel:)``).
    public internal(set) var panel: InterfaceOrientation = .portrait
    public internal(set) var overlays = OverlayContent()
    var overlaysHidden = false
    var osd = (width: 0, height: 0)
    /// The window's size as mpv's OSD has it (0 × 0 until mpv said it).
    public var windowSize: (width: Int, height: Int) { osd }
    /// The sizes mpv said, one number at a time.
    var dimensions = Dimensions()
    /// The placement nudge (``PlacementNudge``).
    var nudging = Nudging()
    var sentOverlays: [OverlayLevel: String] = [:]
    /// The picture's place in its window as this mpv was last told it (margins, a tile's zoom and
    /// pan): a value it has already is not sent again (each write is a round trip, and its video
    /// output takes a changed option in its own thread, which also answers the compositor).
    var sentPlacement: [String: Double] = [:]
    var rotateFilter = false
    /// An item is starting until its first frame, or this time at the latest: overlay changes wait.
    var startDeadline: Double?
    /// Seconds the first text an mpv draws waits after its window's first resize (or after an
    /// item's first frame, once the window has been sized).
    static let firstTextDelay = 0.2
    /// The longest an mpv's first text waits after its first frame for the window's first resize:
    /// a tiled or full-screen window is mapped at the video's own size, and its first frame at the
    /// screen's size follows the compositor's resize, which libass's font setup (in mpv's video
    /// output thread, the one that answers the compositor) would hold back. A window that is never
    /// resized (a desktop's, or none) shows its first text this long after its first frame.
    static let firstTextLongestWait = 1.0
    /// How long an mpv's first item may take to its first frame before the overlays waiting for it
    /// are drawn (later items: a second). Its window opens, is mapped and sized first: on a slow
    /// machine (emulation) that took 1.7 s, and text drawn before the frame holds it back.
    static let firstItemLongestStart = 5.0
    /// The window has had its size from the compositor (its OSD size changed from a first known
    /// one), or the first text stopped waiting for it; a new mpv's window has not.
    var windowSized = false
    var overlaysWaiting = false

    // Stalls and shapes.
    var stallCheckAt: Double?
    var lastPosition: Double?
    /// What mpv held of a live stream at the last sample.
    var lastBuffered: Double?
    var stillSince = 0.0
    /// The entry playing has shown its first frame (mpv's playback restart) since its start.
    var firstFrameShown = false
    var stalls: [Double] = []
    var shapeFor: String?
    /// The picture's display size, for a wall's tile.
    var videoSize = (width: 0, height: 0)
    var shapeAttempts = 0
    var shapeAt: Double?

    /// The remote lists' refused lines said already (each once; forgotten past ``refusalsKept``).
    var refusalsSaid: Set<String> = []
    static let refusalsKept = 256

    // A wall.
    /// Following a wall's group (``PlaybackInput/follow(announces:)``).
    var wall: WallFollowing?
    /// The screen is off: mpv is paused for it, not held for an item's start.
    var screenPaused = false
    /// The touch check, under way or ended (its report stays).
    var touchCheck: TouchCheckRun?
    /// Another shows what plays (a SMIL presentation, ``PlaybackInput/present(_:)``): the core
    /// loads nothing and places no picture; it turns, lays out and draws the overlays.
    public internal(set) var presenting = false
    /// The SMIL index shown in place of the playlist (``PlaybackEffect/present(_:)``); `nil` when none is.
    public internal(set) var index: String?
    /// The sound as asked (`volume`, `mute`), given to each new mpv too; `nil`: the settings'.
    var volume: Int?
    var muted: Bool?

    /// A core for `settings`; `rotateByFilter` for mpv's software render API.
    public init(settings: PlayerSettings, rotateByFilter: Bool = false) {
        self.settings = settings
        self.rotateByFilter = rotateByFilter
    }

    /// When the next thing is due with no input.
    public var nextDeadline: Double? {
        let due = [
            retryAt, startDeadline, failureClearAt, lookAt, folderChangeAt, stallCheckAt, shapeAt, probeAt, liveEndAt,
        ]
        return (due + [inFlight?.deadline, touchCheck?.until] + followDeadlines).compactMap { $0 }.min()
    }

    /// The video surface's own turn (clockwise degrees): for `surface`, the orientation's angle
    /// beyond what the output shows upright (``panel``); else 0.
    public var surfaceAngle: Int { strategy == .surface ? ((interface.angle - panel.angle) % 360 + 360) % 360 : 0 }

    /// Handles one input at `now` (seconds, never earlier than the previous input's).
    public mutating func handle(_ input: PlaybackInput, at now: Double) -> [PlaybackEffect] {
        lastNow = now
        let out = respond(input, at: now)
        return out + placementCheck(after: input, out)
    }

    private mutating func respond(_ input: PlaybackInput, at now: Double) -> [PlaybackEffect] {
        switch input {
        case .start: return startList(at: now)
        case .restarted:
            wall?.follower?.rejoin()
            nudging = Nudging(count: nudging.count)  // a new mpv, perhaps another output
            return touchRebinding + restarted(at: now) + sound()
        case .setPlaylist(let list):
            guard list != settings.playlist else { return [] }
            settings.playlist = list
            return listChanged(at: now)
        case .volume(let v):
            volume = v
            return sound()
        case .mute(let on):
            muted = on
            return sound()
        case .mpv(let event): return mpv(event, at: now)
        case .scanned(let scan): return scanned(scan, at: now)
        case .foldersChanged:
            // A burst of changes is one: looked at once, 0.2 s after the first.
            if folderChangeAt == nil { folderChangeAt = now + 0.2 }
            return []
        case .lookedUp(let path, let entry, let problem, let error, let stamp):
            return failed(path, entry: entry, why: problem ?? error ?? "unknown error", stamp: stamp, at: now)
        case .sample(let sample): return stallCheck(sample, at: now)
        case .shapeSample(let shape): return shapeSampled(shape, at: now)
        case .added(let entry): return added(entry)
        case .refused(let command): return refused(command)
        case .removeRefused(let entry): return removeRefused(entry)
        case .guarded(let passed): return guarded(passed: passed)
        case .clip(let file, _) where presenting:
            return [.event(.problem("\(file): a clip does not play over a SMIL index")), .event(.clipEnded)]
        case .step(_, let request) where presenting: return [.stepped(request: request, playing: nil)]
        case .clip(let file, let position): return playClip(file, position: position, at: now)
        case .step(let step, let request):
            holdFollowing(at: now)
            return change(.step(step, request: request), at: now)
        case .apply, .layout, .overlays, .overlaysHidden, .pause, .touchCheck: return screen(input, at: now)
        case .tick: return tick(at: now)
        case .probed(let path, let reachable): return probed(path, reachable: reachable, at: now)
        case .sourceGone(let path):
            guard path == current, isLive(path), let entry = currentEntry, lostStream == nil else { return [] }
            return lose(path, entry: entry, why: "its server went away", at: now)
        case .follow, .groupSample, .lengthsProbed, .groupClip: return wallInput(input, at: now)
        case .placementSample(let sample): return placementSampled(sample)
        case .present(let on): return present(on, at: now)
        case .placed: return []
        }
    }

    /// What the screen shows: the orientation, the layout, the overlays, the pause, the touch check.
    private mutating func screen(_ input: PlaybackInput, at now: Double) -> [PlaybackEffect] {
        switch input {
        case .apply(let o, let strategy, let layout, let panel):
            return apply(o, strategy: strategy, layout: layout, panel: panel)
        case .layout(let l):
            layout = l
            return applyLayout()
        case .overlays(let content):
            guard content != overlays else { return [] }
            overlays = content
            return drawOverlays()
        case .overlaysHidden(let hidden):
            overlaysHidden = hidden
            return drawOverlays()
        case .pause(let paused):
            screenPaused = paused
            return [.mpv(.set("pause", .flag(paused)))]
        case .touchCheck(let command): return touchCheck(command, at: now)
        default: return []
        }
    }

    /// A wall's group: following it, its samples, the lengths it needs, its clips.
    private mutating func wallInput(_ input: PlaybackInput, at now: Double) -> [PlaybackEffect] {
        switch input {
        case .follow(let announces): return follow(announces: announces, at: now)
        case .groupSample(let sample): return followSample(sample, at: now)
        case .lengthsProbed(let found): lengthsProbed(found)
        case .groupClip(let at): wall?.clipAt = at
        default: break
        }
        return []
    }

    /// mpv plays the entry it was asked to remove (a lagging event): it stays, and the next look decides.
    private mutating func removeRefused(_ entry: Int64) -> [PlaybackEffect] {
        if let path = paths[entry], !entries.contains(where: { $0.id == entry }) { entries.append((entry, path)) }
        if entry == droppedSplash { leadingSplash = entry }
        refreshAtNextStart = true
        return []
    }

    /// A guarded batch was carried out, or not: mpv had moved on, nothing was done, and the
    /// change is made at its next start.
    private mutating func guarded(passed: Bool) -> [PlaybackEffect] {
        guard !guards.isEmpty else { return [] }
        let batch = guards.removeFirst()
        guard !passed else { return [] }
        for e in batch.removed where !entries.contains(where: { $0.id == e.id }) { entries.append(e) }
        adding.removeFirst(min(batch.adds, adding.count))
        refreshAtNextStart = true
        return []
    }

    /// The file of each entry the core added, by id, including those removed lately.
    var paths: [Int64: String] = [:]
    /// How many entries' files the core remembers now.
    public var knownPaths: Int { paths.count }
    /// The time of the input being handled.
    var lastNow = 0.0

    // MARK: - mpv's events

    private mutating func mpv(_ event: MPVInput, at now: Double) -> [PlaybackEffect] {
        switch event {
        case .startFile(let entry, let path): return startFile(entry, path: path, at: now)
        case .fileLoaded: return fileLoaded(at: now)
        case .playbackRestart: return firstFrame(at: now)
        case .endFile(let entry, let error): return endFile(entry, error: error)
        case .idle(let active): return idled(active: active, at: now)
        case .dimension(let d, let value): return mpv(dimension(d, value), at: now)
        case .osdSize(let w, let h): return osdSized(width: w, height: h, at: now)
        case .videoSize(let w, let h):
            guard (w, h) != videoSize else { return [] }
            videoSize = (w, h)
            return settings.wall == nil ? [] : applyLayout()
        case .touched(let x, let y): return touched(x: x, y: y, at: now)
        }
    }

    /// The item's first frame is on screen (or it was sought and plays again).
    private mutating func firstFrame(at now: Double) -> [PlaybackEffect] {
        firstFrameShown = true
        // mpv sets libass up (fontconfig) for its first text, in its video output's thread: drawn
        // now, the first frame would wait for it (10 ms here, far more on a slow board).
        // (Whether or not the item's start deadline passed before this frame.)
        if !sentOverlays.values.contains(where: { !$0.isEmpty }) {
            startDeadline = now + (windowSized ? Self.firstTextDelay : Self.firstTextLongestWait)
            return followFirstFrame(at: now)
        }
        return itemStarted() + followFirstFrame(at: now)
    }

    private mutating func endFile(_ entry: Int64, error: String?) -> [PlaybackEffect] {
        if entry == currentEntry { between = true }
        var out = error == nil ? [] : itemStarted()
        // A failure of an entry no longer in mpv's playlist as the core knows it is late news:
        // the same entry tried again before mpv took the core's removal (heard already), or
        // one of a playlist since replaced. Said again, it would cover what the screen says now.
        if let error, entries.contains(where: { $0.id == entry }) {
            let path = paths[entry] ?? current ?? "?"
            out.append(.lookUp(path: path, entry: entry, error: error))
        }
        return out + clipEnded(entry)
    }

    /// mpv has nothing to play: the next unstarted entry, or the idle scene.
    private mutating func idled(active: Bool?, at now: Double) -> [PlaybackEffect] {
        guard active != false else { return [] }  // late: a new playlist started since
        idle = true
        between = false
        var out = itemStarted()
        if let c = clipState, c.ended { out += resumeAfterClip(c) }
        // A new playlist under way ends with its first start: mpv's idle event from before it,
        // one that reaches the core late, says nothing of it, nor that nothing plays. Any other
        // change may end in idle.
        switch inFlight?.change {
        case .load?, .splash?: return out
        default: out += changeDone(at: now)
        }
        if let next = entries.first(where: { unstarted.contains($0.id) && failed[$0.path] == nil }) {
            return out + change(.play(entry: next.id), at: now)
        }
        out.append(.event(.idle))
        return out + nothingToPlay(at: now)
    }

    private mutating func osdSized(width w: Int, height h: Int, at now: Double) -> [PlaybackEffect] {
        // A size known in both directions (mpv says its width and its height one at a time)
        // that changes: the compositor has sized the window.
        if !windowSized, osd.width > 0, osd.height > 0, osd != (w, h) {
            windowSized = true
            // The compositor's size: the first text follows the frame drawn at it.
            if firstFrameShown, let t = startDeadline { startDeadline = min(t, now + Self.firstTextDelay) }
        }
        osd = (w, h)
        return settings.wall == nil ? drawOverlays() : applyLayout()
    }

    private mutating func startFile(_ entry: Int64, path: String?, at now: Double) -> [PlaybackEffect] {
        startDeadline = now + (windowSized ? 1 : Self.firstItemLongestStart)
        firstFrameShown = false
        liveEndAt = nil
        heldSpeed = 1
        // Each item's picture is watched from its own start.
        (stillSince, lastPosition, lastBuffered) = (now, nil, nil)
        idle = false
        between = false
        currentEntry = entry
        current = paths[entry] ?? path
        unstarted.remove(entry)
        if unstarted.count > entries.count { unstarted.formIntersection(entries.map(\.id)) }
        if paths[entry] == nil, let path {
            // An entry mpv added by itself (a playlist file's items): known from now on.
            paths[entry] = path
            entries.append((entry, path))
        }
        var out: [PlaybackEffect] = []
        if let splash = leadingSplash, splash != entry {
            // The first item starts: the splash leaves the list (its picture stays until the item's),
            // wherever it is now (mpv may have looped back to it: then at the next start).
            out += dropLeadingSplash(splash)
        }
        out += changeDone(at: now)
        if refreshAtNextStart {
            refreshAtNextStart = false
            out += look(.refresh)
        }
        return out
    }

    private mutating func fileLoaded(at now: Double) -> [PlaybackEffect] {
        guard let current else { return [] }
        if lostStream?.path == current { lostStream = nil }
        var watch: [PlaybackEffect] = []
        let wanted = isLive(current) ? current : nil
        if wanted != watchedSource {
            watchedSource = wanted
            watch = [.watchSource(wanted)]
        }
        // A stream never ends by itself: in a rotation, one with a `duration` plays for that long.
        if isLive(current), clipState == nil, items.count > 1, let d = options(of: current)?.duration {
            liveEndAt = now + d
        }
        if leadingSplash != nil, current == settings.splash { return watch + [.event(.playing(named(current)))] }
        var out: [PlaybackEffect] = watch
        if let c = clipState, c.ended { out += resumeAfterClip(c) }
        // Each item change looks at the folders again (a watch brings changes sooner).
        if !watched.isEmpty, clipState == nil { out += look(.refresh) }
        if let shape = options(of: current)?.shape {
            out.append(.event(.shape(shape)))
        } else {
            shapeFor = current
            shapeAttempts = 0
            out.append(.sampleShape)
        }
        out.append(.event(.playing(named(current))))
        return out + clearFailureMessage(at: now)
    }

    // MARK: - Time

    private mutating func tick(at now: Double) -> [PlaybackEffect] {
        var out: [PlaybackEffect] = []
        if let t = startDeadline, t <= now { out += itemStarted() }
        out += touchCheckDue(at: now)
        if let t = failureClearAt, t <= now { out += clearFailureMessage(at: now) }
        if let t = retryAt, t <= now {
            retryAt = nil
            out += retry(at: now)
        }
        if let t = liveEndAt, t <= now {
            liveEndAt = nil
            out += change(.step(.next, request: Self.ownStep), at: now)
        }
        if let t = probeAt, t <= now, let lost = lostStream {
            probeAt = nil
            out.append(.probe(lost.path))
        }
        if let t = lookAt, t <= now {
            lookAt = nil
            out += look(.refresh)
        }
        if let t = folderChangeAt, t <= now {
            folderChangeAt = nil
            out += look(.refresh)
        }
        if let t = stallCheckAt, t <= now {
            // A live stream is watched closely: its loss shows the slate within a second.
            stallCheckAt = now + (current.map(isLive) == true ? 0.25 : 1)
            out.append(.samplePosition)
        }
        if let t = shapeAt, t <= now {
            shapeAt = nil
            out.append(.sampleShape)
        }
        if let t = inFlight?.deadline, t <= now { out += changeDone(at: now) }
        return out + followTick(at: now)
    }

    /// Whether `item` is a live stream (``RemoteItem/isLive(_:options:)``).
    func isLive(_ item: String) -> Bool { RemoteItem.isLive(item, options: options(of: item)) }

    /// The item's own settings (its folder's for a folder's file, its URL's for a cached file, its
    /// list's for a remote list's file).
    func options(of item: String) -> ItemOptions? {
        if let own = settings.itemOptions[item] ?? settings.itemOptions[Self.folder(of: item)] { return own }
        guard let remote = remoteEntry(of: item) else { return nil }
        return remote.origin.flatMap { settings.itemOptions[$0] } ?? settings.itemOptions[remote.entry]
    }

    /// How long `item` plays in a wall's schedule.
    public enum ScheduledLength: Sendable, Hashable {
        /// An image: its display duration.
        case fixed(Double)
        /// A live stream: it has no length, and a wall cannot follow it.
        case live
        /// A file: as long as mpv reads it to be.
        case probe
    }

    public func scheduledLength(of item: String) -> ScheduledLength {
        if isLive(item) { return .live }
        if MediaFiles.isImage(item) { return .fixed(options(of: item)?.duration ?? settings.imageDuration) }
        return .probe
    }

    /// The live stream playing (by its URL) and the latency it is held at; `nil` when none plays.
    public var liveStream: (url: String, latency: Double?)? {
        guard let current, firstFrameShown, isLive(current) else { return nil }
        return (named(current), options(of: current)?.latency)
    }

    /// What the status line shows for `item`: nothing for the built-in slate (the words over it say
    /// what it is), "Test pattern" for a generated picture, else mpv's title (`mediaTitle`) or the item.
    public static func title(of item: String, mediaTitle: String?) -> String {
        if item == builtInSlate { return "" }
        if item == testPattern || item.hasPrefix("av://lavfi") { return "Test pattern" }
        return mediaTitle ?? item
    }

    /// What the player's events name `item` by: a cached file by the URL it stands for.
    func named(_ item: String) -> String { origin(of: item) ?? item }

    /// The configured entry a file of the last scan came from when it is not the file itself (a
    /// remote item's cached file: its URL); `nil` otherwise.
    func origin(of item: String) -> String? {
        remoteEntry(of: item).flatMap { $0.origin ?? ($0.entry == item ? nil : $0.entry) }
    }

    /// The remote entry (a URL, a list of URLs) of the last scan that `item` is one of the files
    /// of, with the URL the file stands for when the scan named one.
    func remoteEntry(of item: String) -> (entry: String, origin: String?)? {
        for entry in lastScan?.entries ?? [] where entry.entry.contains("://") {
            if let found = entry.items.first(where: { $0.path == item }) { return (entry.entry, found.origin) }
        }
        return nil
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func lastName(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}
