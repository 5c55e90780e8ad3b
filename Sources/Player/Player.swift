import Files
import Foundation
public import MPV
public import OrientationCore
import Synchronization

/// What the player is asked to play, and how.
public struct PlayerSettings: Sendable, Hashable {
    /// Files, folders (their media files, by name) and URLs; empty shows the idle scene (the
    /// built-in test pattern).
    public var playlist: [String] = []
    /// Each folder's files in a new random order at each start and change.
    public var shuffle = false
    /// How long an image shows, unless its item says otherwise (s).
    public var imageDuration = 10.0
    /// Per-item settings, by the item's path (a folder's apply to its files).
    public var itemOptions: [String: ItemOptions] = [:]
    /// An image shown whenever nothing can play (every item failed, the folders are empty), with
    /// a message that says why; the playlist is tried again every ``retryInterval``.
    public var splash: String?
    public var retryInterval: Duration = .seconds(10)
    /// mpv's audio output device (`audio-device`); `nil`: mpv's choice.
    public var audioDevice: String?
    /// Where a USB stick is mounted (`/media/*/*`, one `*` per level): while one with media files
    /// is there, its files are the playlist; when it goes, the configured playlist returns.
    public var removableMedia: String?
    public var loop = true
    /// mpv options passed through (vo, hwdec, ...).
    public var mpv: [String: String] = [:]
    /// Action → the mpv key names bound to it.
    public var hotkeys: [Action: [String]] = PlayerSettings.defaultHotkeys
    /// The keys a player has out of the box: `f`/`F11` and a double tap (or click) on the video
    /// full screen, `l` the lock, `a` accepts the rotate suggestion, `>`/`<` the playlist.
    public static let defaultHotkeys: [Action: [String]] = [
        .fullscreen: ["f", "F11", "MBTN_LEFT_DBL"], .toggleLock: ["l"], .acceptSuggestion: ["a"], .next: [">"],
        .previous: ["<"],
    ]
    /// The share of a portrait screen below the video in the inline layout, left to the overlays.
    public var inlineBottomMargin = 0.4
    /// How long "Cannot play ..." stays over the video at least, even when the next file plays at once.
    public var failureMessageTime: Duration = .seconds(5)
    /// Playing, but the position has not moved for this long: the item is loaded again (`nil`: never).
    public var stallTimeout: Duration? = .seconds(10)
    /// This many stalls within ``stallWindow`` and the player gives up (the process exits non-zero).
    public var stallLimit = 3
    public var stallWindow: Duration = .seconds(600)

    public init() {}
}

/// One playlist item's own settings.
public struct ItemOptions: Sendable, Hashable {
    /// How long the image shows (s); for a folder, each of its images.
    public var duration: Double?
    public var mute: Bool?
    /// The item's shape as `fit_content` should take it, whatever its picture says.
    public var shape: ContentShape?
    /// When it may play (local time); `nil`: always.
    public var schedule: Schedule?
    public init(duration: Double? = nil, mute: Bool? = nil, shape: ContentShape? = nil, schedule: Schedule? = nil) {
        self.duration = duration
        self.mute = mute
        self.shape = shape
        self.schedule = schedule
    }
}

/// What the player reports.
public enum PlayerEvent: Sendable, Hashable {
    /// A hotkey was pressed in mpv's window: the action bound to it.
    case hotkey(Action)
    /// A tap or click bound to an action (`MBTN_LEFT_DBL` …).
    case tap(Action)
    /// The clip ``Player/playClip(_:)`` started ended (played through, failed or skipped).
    case clipEnded
    /// The shape of the item playing: its display size, turned by its rotation metadata.
    case shape(ContentShape)
    case playing(String)
    /// A file could not be played; the playlist goes on.
    case fileFailed(String, reason: String)
    /// Nothing left to play: the idle scene shows.
    case idle
    /// Playing, but the position stood still for the stall timeout: the item is loaded again.
    case stalled(String)
    /// The player cannot do its job (the stream stalled too often); the process should end.
    case gaveUp(String)
    /// mpv shut down.
    case shutdown
}

/// The built-in test pattern, shown when the playlist is empty.
public let testPattern = "av://lavfi:testsrc2=size=1280x720:rate=25"

/// The video player: libmpv with Upright's layout, surface rotation, overlays and hotkeys.
/// Relayout follows the applied interface orientation (never raw device events).
public actor Player {
    public nonisolated let events: AsyncStream<PlayerEvent>
    private let continuation: AsyncStream<PlayerEvent>.Continuation
    /// mpv now; a new one after ``restart()`` (the display went away under the old one).
    private var mpv: MPVHandle
    public private(set) var layout: PlayerLayout = .inline
    public private(set) var interface: InterfaceOrientation = .portrait
    public private(set) var strategy: AppliedStrategy = .none
    public private(set) var overlays = OverlayContent()
    private var overlaysHidden = false
    private var current: String?
    /// Callers of ``next()`` and ``previous()`` waiting for mpv to start the entry.
    private var stepWaiters: [CheckedContinuation<Void, Never>] = []
    /// mpv's playlist entries by id, as each started (an entry that failed is named by this).
    private var entries: [Int64: String] = [:]
    /// ``shutdown(timeout:)`` was asked for: mpv ending is expected.
    public private(set) var isShuttingDown = false
    /// The stall watch: the position last seen, since when it has not moved, and recent stalls.
    private var watch: Task<Void, Never>?
    private var lastPosition: Double?
    private var stillSince = ContinuousClock.now
    private var stalls: [ContinuousClock.Instant] = []
    /// The message the player put over the video for a file that failed, and when.
    private var failure: (text: String, shown: ContinuousClock.Instant)?
    private var settings: PlayerSettings
    /// With the software render API (vo=libmpv) mpv 0.35 aborts on `video-rotate`: turn with a filter.
    private let rotateByFilter: Bool
    /// The player's mpv, for a renderer.
    public nonisolated var mpvHandle: MPVHandle { handleBox.withLock { $0 } }
    private let handleBox: Mutex<MPVHandle>
    /// The mpv now has ended (until a ``restart()``).
    private var handleEnded = false
    /// The options every mpv of this player starts with.
    private let options: [(String, String)]
    /// The playlist made concrete (folders expanded), as mpv has it.
    private var items: [String] = []
    /// Nothing could play: the splash (or nothing) shows, and the playlist is tried again.
    private var idleRetry: Task<Void, Never>?
    /// Why the last item could not play, for the idle message.
    private var lastFailure: String?
    /// Folder changes, while the playlist has folders.
    private var folders: DirectoryWatch?
    private var folderTask: Task<Void, Never>?
    /// The clip playing, and where the loop goes on after it.
    private var clip: ClipState?
    /// The mpv entry that plays now.
    private var currentEntry: Int64?
    /// The splash leads the playlist at the first start, until the first item is loaded: it stays
    /// on screen while that item opens (a stream, a slow disk), then leaves the playlist.
    private var leadingSplash = false
    private var startedOnce = false
    /// What each overlay level was last given (its text and the OSD size): a level is sent to mpv
    /// again only when it changes, since each change makes mpv redraw.
    private var sentOverlays: [OverlayLevel: String] = [:]
    /// An item is starting: from its start until its first frame is on screen (mpv's
    /// playback-restart), or a second at most. Overlays drawn then wait for it: a redraw after the
    /// video output dropped the last frame for the next item's format and before that item's
    /// first frame would show a black frame.
    private var itemStarting = false
    private var overlaysWaiting = false
    private var itemStartTimer: Task<Void, Never>?

    struct ClipState {
        var file: String
        /// mpv's entry for the clip, once it started.
        var entry: Int64?
        /// The loop's entry and position when the clip started.
        var resume: (entry: Int64, time: Double?)?
        var ended = false
    }

    /// Creates the player with the configured mpv options; `extra` options (vo=null in tests) win.
    public init(settings: PlayerSettings, extra: [(String, String)] = []) throws(MPVError) {
        self.settings = settings
        var options: [(String, String)] = [
            ("terminal", "no"), ("idle", "yes"), ("keep-open", "no"),
            ("osc", "no"), ("input-default-bindings", "no"), ("input-vo-keyboard", "yes"),
            // A turn rebuilds the filter chain; by default mpv then waits about five frames for the
            // turned picture (decoding a frame ahead, queuing 50 ms early). These bring it to two
            // (`make bench`); the configuration's [player.mpv] may set them back.
            ("video-latency-hacks", "yes"), ("video-timing-offset", "0.01"),
            // mpv's stats overlay and console bind keys of their own (i, I, `) even with the default
            // bindings off, and each is a Lua state and a thread; a kiosk has no use for them, nor for
            // conditional profiles. [player.mpv] may turn them on again.
            ("load-stats-overlay", "no"), ("load-osd-console", "no"), ("load-auto-profiles", "no"),
        ]
        options.append(("loop-playlist", settings.loop ? "inf" : "no"))
        options.append(("image-display-duration", String(settings.imageDuration)))
        if let device = settings.audioDevice { options.append(("audio-device", device)) }
        options += settings.mpv.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        options += extra
        self.options = options
        mpv = try Self.makeHandle(options: options, hotkeys: settings.hotkeys)
        handleBox = Mutex(mpv)
        rotateByFilter = options.last { $0.0 == "vo" }?.1 == "libmpv"
        (events, continuation) = AsyncStream.makeStream(of: PlayerEvent.self)
        pump(mpv)
    }

    /// Hands `handle`'s events to the player until they end.
    private nonisolated func pump(_ handle: MPVHandle) {
        let events = handle.events
        Task { [weak self] in
            for await e in events { await self?.handle(e, from: handle) }
            await self?.ended(handle)
        }
    }

    /// A new mpv with the player's options, its OSD size observed and the hotkeys bound.
    private static func makeHandle(options: [(String, String)], hotkeys: [Action: [String]]) throws(MPVError)
        -> MPVHandle
    {
        let mpv = try MPVHandle(options: options)
        // The overlays are laid out against the OSD's size: drawn again whenever it changes (a turned
        // output, a resized window, the first frame of a renderer).
        try mpv.observe("osd-width", as: .int64)
        try mpv.observe("osd-height", as: .int64)
        for (action, keys) in hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            // KEY_/BTN_ names are read from input devices, not by mpv.
            for key in keys where !(key.hasPrefix("KEY_") || key.hasPrefix("BTN_")) {
                let tap = key.uppercased().hasPrefix("MBTN") || key.uppercased().hasPrefix("MOUSE_BTN")
                let message =
                    (["script-message", tap ? "upright-tap" : "upright-hotkey"] + action.words).joined(separator: " ")
                try mpv.command(["keybind", key, message])
            }
        }
        return mpv
    }

    /// An mpv's events ended: the player's ``PlayerEvent/shutdown``, unless a newer mpv took over.
    /// The stream finishes only once the player is shut down.
    private func ended(_ handle: MPVHandle) {
        guard handle === mpv else { return }
        handleEnded = true
        continuation.yield(.shutdown)
        if isShuttingDown { continuation.finish() }
    }

    /// Starts a new mpv after the old one ended on its own (its display went away and came back):
    /// the same options and hotkeys, the playlist from the entry that played, the same layout,
    /// orientation and overlays.
    public func restart() throws(MPVError) {
        guard !isShuttingDown else { return }
        let handle = try Self.makeHandle(options: options, hotkeys: settings.hotkeys)
        mpv = handle
        handleBox.withLock { $0 = handle }
        sentOverlays = [:]
        itemStarted()
        handleEnded = false
        pump(handle)
        if clip != nil {
            clip = nil
            continuation.yield(.clipEnded)
        }
        let resume = current.map { items.firstIndex(of: $0) } ?? nil
        try start()
        if let resume, resume > 0 { try mpv.command(["playlist-play-index", String(resume)]) }
        try apply(interface, strategy: strategy, layout: layout)
    }

    /// Replaces the playlist (a reload) and plays it from its start; the same list changes nothing.
    public func setPlaylist(_ items: [String]) throws(MPVError) {
        guard items != settings.playlist else { return }
        settings.playlist = items
        try start()
    }

    /// Starts the playlist, or the idle scene when it is empty.
    public func start() throws(MPVError) {
        items = settings.playlist.isEmpty ? [testPattern] : expanded()
        current = nil
        let first = !startedOnce
        startedOnce = true
        leadingSplash = false
        if items.isEmpty {
            try mpv.command(["stop"])
        } else if first, let splash = settings.splash, !items.contains(splash) {
            // Shown for one frame, which stays until the first item's own first frame is ready.
            try mpv.command(["loadfile", splash, "replace", "image-display-duration=0,video-latency-hacks=no"])
            leadingSplash = true
            for item in items { try load(item, "append") }
        } else {
            try load(items[0], "replace")
            for item in items.dropFirst() { try load(item, "append") }
        }
        try applyLayout()
        startStallWatch()
        watchFolders()
    }

    /// The playlist made concrete now: a stick's files while one is there, else the configured
    /// list less the entries whose schedule is closed now (local time). The next look is set
    /// for when a file being written will be ready, or a schedule's window opens or closes.
    private func expanded() -> [String] {
        let shuffle: ((inout [String]) -> Void)? = settings.shuffle ? { $0.shuffle() } : nil
        let (weekday, minute) = Self.localNow()
        var next = settings.itemOptions.values.compactMap {
            $0.schedule?.minutesToNextChange(weekday: weekday, minute: minute)
        }.min().map { Date().addingTimeInterval(Double($0 * 60 - Int(time(nil) % 60)) + 0.5) }
        defer { lookAgain(at: next) }
        if let pattern = settings.removableMedia {
            let stick = Playlist.scan(Playlist.directories(matching: pattern), shuffle: shuffle)
            if !stick.items.isEmpty {
                next = [next, stick.settles].compactMap { $0 }.min()
                return stick.items
            }
        }
        let open = settings.playlist.filter {
            settings.itemOptions[$0]?.schedule?.isActive(weekday: weekday, minute: minute) ?? true
        }
        let found = Playlist.scan(open, shuffle: shuffle)
        next = [next, found.settles].compactMap { $0 }.min()
        return found.items
    }

    /// The local weekday (1 Monday … 7 Sunday) and minute after midnight now.
    public static func localNow() -> (weekday: Int, minute: Int) {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return (parts.tm_wday == 0 ? 7 : Int(parts.tm_wday), Int(parts.tm_hour) * 60 + Int(parts.tm_min))
    }

    /// The one timer for the playlist's next look (``refresh()``), replaced at each look.
    private var lookTimer: Task<Void, Never>?

    private func lookAgain(at date: Date?) {
        lookTimer?.cancel()
        guard let date else { return }
        let wait = max(0.1, date.timeIntervalSinceNow)
        lookTimer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(wait))) != nil else { return }
            await self?.refresh()
        }
    }

    /// `loadfile ITEM MODE` with the item's own options (its image duration, mute).
    private func load(_ item: String, _ mode: String) throws(MPVError) {
        let folder = (item as NSString).deletingLastPathComponent
        let o = settings.itemOptions[item] ?? settings.itemOptions[folder]
        var pairs: [String] = []
        // mpv 0.35 shows an image for one frame only with video-latency-hacks (which the turns
        // want for video): off for images, so their display duration holds.
        if Playlist.isImage(item) { pairs.append("video-latency-hacks=no") }
        if let d = o?.duration { pairs.append("image-display-duration=\(d)") }
        if let m = o?.mute { pairs.append("mute=\(m ? "yes" : "no")") }
        try mpv.command(["loadfile", item, mode] + (pairs.isEmpty ? [] : [pairs.joined(separator: ",")]))
    }

    /// Watches the playlist's folders (and where a missing one would appear): a file copied in,
    /// replaced or removed is taken into account at the next item, without a gap or a restart.
    private func watchFolders() {
        folders?.stop()
        folderTask?.cancel()
        var dirs = settings.playlist.filter { entry in
            switch Playlist.inspect(entry) {
            case .folder, .missing: true
            case .file, .url: false
            }
        }
        if let pattern = settings.removableMedia {
            // The folder the sticks appear in (`/media` for `/media/*/*`), and each stick there now.
            dirs.append(Playlist.fixedPrefix(of: pattern))
            dirs += Playlist.directories(matching: pattern)
            dirs += Playlist.directories(matching: (pattern as NSString).deletingLastPathComponent)
        }
        guard !dirs.isEmpty else { return }
        let watch = DirectoryWatch(dirs)
        folders = watch
        folderTask = Task { [weak self] in
            for await _ in watch.changes {
                try? await Task.sleep(for: .milliseconds(200))  // a burst of events is one change
                await self?.refresh()
            }
        }
    }

    /// A stick came or went: the watch follows the folders there now.
    private var watchedStickFolders: [String] = []
    private func watchFoldersIfChanged() {
        guard let pattern = settings.removableMedia else { return }
        let now = Playlist.directories(matching: pattern)
        guard now != watchedStickFolders else { return }
        watchedStickFolders = now
        watchFolders()
    }

    /// Takes the folders' contents now: the entry that plays goes on, and what follows it is the
    /// new list from the item after it (from its start when it is gone). A file still being
    /// written is looked at again once it has stood still.
    public func refresh() {
        guard !isShuttingDown else { return }
        let fresh = expanded()
        if settings.removableMedia != nil { watchFoldersIfChanged() }
        guard clip == nil else { return }
        let idle = (try? mpv.get(.idleActive)) ?? true
        let position = Int((try? mpv.get(.playlistPosition)) ?? -1)
        // mpv's own entry now: the actor's `current` may still name the one before it.
        let count = Int((try? mpv.get(.playlistCount)) ?? 0)
        let names = (0..<count).map { mpv.string("playlist/\($0)/filename") ?? "" }
        let kept = position >= 0 && position < count ? names[position] : nil
        // mpv between two entries (the one selected is not yet the one playing): looked at again a
        // moment later, never in the middle of the change. Only mpv's own state counts: the events
        // this player has yet to handle may lag behind it for longer than an item lasts on a loaded
        // machine, and waiting for them deferred a removed file's removal for rounds.
        let playingPosition = Int((try? mpv.get(MPVProperty<Int64>("playlist-playing-pos"))) ?? -1)
        if !idle, kept != nil, playingPosition != position {
            Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(150))
                await self?.refresh()
            }
            return
        }
        guard !idle, let kept, kept != settings.splash else {
            // Idle, or the splash showing: the playlist starts again when it has something new.
            guard Set(fresh) != Set(items) else { return }
            items = fresh
            idleRetry?.cancel()
            try? updateOverlays { $0.message = nil }
            try? start()
            if items.isEmpty { nothingToPlay() }
            return
        }
        items = fresh
        // What follows the entry playing: the list from the item after it (its start when gone).
        let order = fresh.firstIndex(of: kept).map { Array(fresh[($0 + 1)...] + fresh[..<$0]) } ?? fresh
        let others = names.enumerated().filter { $0.offset != position }.map(\.element)
        guard others != order else { return }
        for i in (0..<count).reversed() where i != position { try? mpv.command(["playlist-remove", String(i)]) }
        for item in order { try? load(item, "append") }
    }

    /// Once a second: is the position moving while mpv plays?
    private func startStallWatch() {
        guard watch == nil, settings.stallTimeout != nil else { return }
        stillSince = .now
        watch = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await self?.checkForStall(at: .now)
            }
        }
    }

    /// A stall is a position that stands still for the timeout while mpv is neither paused, idle,
    /// nor showing a still image; the item is loaded again, and too many stalls give up.
    private func checkForStall(at now: ContinuousClock.Instant) {
        guard let timeout = settings.stallTimeout, let current, !isShuttingDown else { return }
        let paused = (try? mpv.get(.pause)) ?? false, idle = (try? mpv.get(.idleActive)) ?? false
        let position = try? mpv.get(.timePosition)
        if paused || idle || mpv.string("current-tracks/video/image") == "yes" || position != lastPosition {
            lastPosition = position
            stillSince = now
            return
        }
        guard stillSince.duration(to: now) >= timeout else { return }
        stalls = stalls.filter { $0.duration(to: now) < settings.stallWindow } + [now]
        if stalls.count >= settings.stallLimit {
            continuation.yield(
                .gaveUp(
                    "playback stalled \(stalls.count) times within \(settings.stallWindow.components.seconds) s, "
                        + "the last on \(current)"))
            stalls = []
        } else {
            continuation.yield(.stalled(current))
        }
        stillSince = now
        lastPosition = nil
        try? mpv.command(["playlist-play-index", "current"])
    }

    /// Plays `file` once, then goes back to the loop: the entry that played, at its position. The
    /// clip goes into mpv's playlist before that entry (so mpv itself goes on to it at the clip's
    /// end, with no gap to fill), and leaves the playlist once the loop plays again. A clip asked
    /// for while the loop is still coming back takes the place of the clip that ended.
    public func playClip(_ file: String) throws(MPVError) {
        var resume: (entry: Int64, time: Double?)?
        if let old = clip, old.resume != nil {
            resume = old.resume
            if let entry = old.entry { removeEntry(entry) }
        } else if let entry = currentEntry {
            resume = (entry, try? mpv.get(.timePosition))
        }
        clip = ClipState(file: file, resume: resume)
        let count = Int(try mpv.get(.playlistCount))
        try mpv.command(["loadfile", file, "append"])
        var target = count
        if let resume, let index = index(of: resume.entry) {
            try mpv.command(["playlist-move", String(count), String(index)])
            target = index
        }
        try mpv.command(["playlist-play-index", String(target)])
    }

    /// The playlist index of mpv's entry `id`.
    private func index(of id: Int64) -> Int? {
        let count = Int((try? mpv.get(.playlistCount)) ?? 0)
        return (0..<count).first { mpv.string("playlist/\($0)/id").flatMap { Int64($0) } == id }
    }

    private func removeEntry(_ id: Int64) {
        if let i = index(of: id) { try? mpv.command(["playlist-remove", String(i)]) }
    }

    /// The loop plays again after a clip: at the position it had when it is the entry that was
    /// interrupted (not one stepped to meanwhile), and the clip leaves the playlist.
    private func resumeAfterClip(_ c: ClipState) {
        clip = nil
        if let resume = c.resume, resume.entry == currentEntry, let time = resume.time, time > 0 {
            try? mpv.command(["seek", String(time), "absolute"])
        }
        if let entry = c.entry { removeEntry(entry) }
    }

    /// Writes a PNG of what mpv shows to `path`: its window with the overlays (`window`, where the
    /// video output can take one), or the current video frame (`video`, which mpv takes with no
    /// window at all).
    public func screenshot(to path: String, window: Bool) throws(MPVError) {
        try mpv.command(["screenshot-to-file", path, window ? "window" : "video"])
    }

    /// Pauses playback (the screen is off) or resumes it.
    public func setPaused(_ paused: Bool) throws(MPVError) { try mpv.set(.pause, paused) }

    /// Presses a key, as a person would (`keypress`): the way hotkeys are tested and scripted.
    public func keypress(_ key: String) throws(MPVError) { try mpv.command(["keypress", key]) }

    /// Goes to the next entry of the playlist; returns it once mpv has started it.
    @discardableResult
    public func next() async throws(MPVError) -> String? { try await step("playlist-next") }

    /// Goes to the previous entry of the playlist; returns it once mpv has started it.
    @discardableResult
    public func previous() async throws(MPVError) -> String? { try await step("playlist-prev") }

    /// mpv carries a playlist command out in its own loop (`playlist-pos` changes later): the entry
    /// that plays is known when its file starts, or after `timeout` seconds at the most.
    /// A step asked for while the playlist's first file is still starting waits for that start
    /// first, so that it is not taken for the step's own.
    private func step(_ command: String, timeout: Double = 3) async throws(MPVError) -> String? {
        if current == nil { await nextStart(timeout: timeout) }
        try mpv.command([command, "force"])
        await nextStart(timeout: timeout)
        return current
    }

    /// Waits until mpv starts a file (or goes idle), or `timeout` seconds.
    private func nextStart(timeout: Double) async {
        let waiter = Task {
            // Cancelled when the start came first: then it must not release a later waiter.
            guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            self.releaseStepWaiters()
        }
        await withCheckedContinuation { stepWaiters.append($0) }
        waiter.cancel()
    }

    private func releaseStepWaiters() {
        for w in stepWaiters { w.resume() }
        stepWaiters = []
    }

    /// The file or URL of mpv's playlist entry `id` (`playlist/N/id`, `playlist/N/filename`).
    private func entryPath(_ id: Int64) -> String? {
        let count = Int((try? mpv.get(.playlistCount)) ?? 0)
        var i = 0
        while i < count {
            if let text = mpv.string("playlist/\(i)/id"), Int64(text) == id {
                return mpv.string("playlist/\(i)/filename")
            }
            i += 1
        }
        return nil
    }

    /// Why a local file cannot be played, in the system's words (mpv says only "loading failed"):
    /// missing, a directory, unreadable. `nil` for a URL or a file that can be read.
    public static func whyUnplayable(_ item: String) -> String? {
        if item.contains("://") && !item.hasPrefix("file://") { return nil }
        let path = item.hasPrefix("file://") ? (URL(string: item)?.path ?? item) : item
        guard let problem = readProblem(path) else { return nil }
        return problem == "is a directory" ? "\(path) is a directory" : "\(path): \(problem)"
    }

    /// Shows `text` over the video until a later file has played for a while.
    private func showFailure(_ text: String) {
        failure = (text, .now)
        try? updateOverlays { $0.message = text }
    }

    /// A file plays: the failure message goes, once it has been up for the settings' time.
    private func clearFailureMessage() {
        guard let failure else { return }
        let left = settings.failureMessageTime - failure.shown.duration(to: .now)
        guard left <= .zero else {
            Task { [weak self] in
                try? await Task.sleep(for: left)
                await self?.clearFailureMessage()
            }
            return
        }
        self.failure = nil
        if overlays.message == failure.text { try? updateOverlays { $0.message = nil } }
    }

    /// What the status line shows for `item`: "Test pattern" for the built-in one, else mpv's title.
    public func title(of item: String) -> String {
        if item == testPattern || item.hasPrefix("av://lavfi") { return "Test pattern" }
        return mpv.string("media-title") ?? item
    }

    /// Sets the layout for a scene.
    public func setLayout(_ l: PlayerLayout) throws(MPVError) {
        layout = l
        try applyLayout()
    }

    /// Applies the interface orientation the policy decided. In the `surface` strategy the video
    /// (and its overlays) turn by the orientation's clockwise angle on top of the file's own rotation
    /// metadata; in the `interface` strategy the output turns and the video shows by its metadata
    /// alone, so nothing is turned twice. Playback goes on at the same position. A `layout` given
    /// is set in the same relayout.
    public func apply(
        _ orientation: InterfaceOrientation, strategy: AppliedStrategy, layout: PlayerLayout? = nil
    ) throws(MPVError) {
        interface = orientation
        self.strategy = strategy
        if let layout { self.layout = layout }
        if rotateByFilter {
            try? mpv.command(["vf", "remove", "@upright-rotate"])
            let filter: String? =
                switch surfaceAngle {
                case 90: "transpose=clock"
                case 180: "hflip,vflip"
                case 270: "transpose=cclock"
                default: nil
                }
            if let filter { try mpv.command(["vf", "add", "@upright-rotate:lavfi=[\(filter)]"]) }
        } else {
            try mpv.set(.videoRotate, Int64(surfaceAngle))
        }
        try applyLayout()
    }

    /// The video surface's own turn (clockwise degrees): the orientation's angle for `surface`, else 0.
    public var surfaceAngle: Int { strategy == .surface ? interface.angle : 0 }

    /// Hides the overlays (during a transition) or shows them again, laid out anew.
    public func setOverlaysHidden(_ hidden: Bool) throws(MPVError) {
        overlaysHidden = hidden
        try drawOverlays()
    }

    /// Changes some of what the overlays show, leaving the rest (a message the player set itself).
    public func updateOverlays(_ change: @Sendable (inout OverlayContent) -> Void) throws(MPVError) {
        var next = overlays
        change(&next)
        guard next != overlays else { return }
        overlays = next
        try drawOverlays()
    }

    /// Changes what the overlays show.
    public func setOverlays(_ content: OverlayContent) throws(MPVError) {
        overlays = content
        try drawOverlays()
    }

    /// A property of the player, for status and tests.
    public func property<V: MPVConvertible>(_ p: MPVProperty<V>) throws(MPVError) -> V { try mpv.get(p) }

    /// Ends playback and waits until mpv has shut down and its core is destroyed, `timeout`
    /// seconds at the most (false when it did not end in time); the event stream finishes with
    /// ``PlayerEvent/shutdown``. The process may exit only after this.
    public func shutdown(timeout: Double = 5) async -> Bool {
        isShuttingDown = true
        idleRetry?.cancel()
        lookTimer?.cancel()
        watch?.cancel()
        folders?.stop()
        folderTask?.cancel()
        let done = await mpv.shutdown(timeout: timeout)
        if handleEnded { continuation.finish() }  // else when its events end (``ended(_:)``)
        return done
    }

    // MARK: - Internals

    private func applyLayout() throws(MPVError) {
        // Inline keeps the lower part of a portrait screen for the overlays; with the output turned
        // (interface strategy) or the video turned (surface), "portrait" is the viewer's portrait.
        let bottom = layout == .inline && interface.isPortrait ? settings.inlineBottomMargin : 0
        let margins: (top: Double, bottom: Double, left: Double, right: Double)
        switch surfaceAngle {  // the margin lies on the panel edge that is the viewer's bottom
        case 90: margins = (0, 0, bottom, 0)
        case 180: margins = (bottom, 0, 0, 0)
        case 270: margins = (0, 0, 0, bottom)
        default: margins = (0, bottom, 0, 0)
        }
        try mpv.set("video-margin-ratio-top", .double(margins.top))
        try mpv.set("video-margin-ratio-bottom", .double(margins.bottom))
        try mpv.set("video-margin-ratio-left", .double(margins.left))
        try mpv.set("video-margin-ratio-right", .double(margins.right))
        try drawOverlays()
    }

    /// How to accept the rotate suggestion: its key when one is bound, else the command.
    private var acceptHint: String {
        settings.hotkeys[.acceptSuggestion]?.first.map { "Press \($0) to accept" } ?? "(upright ctl accept-suggestion)"
    }

    private func drawOverlays() throws(MPVError) {
        guard !itemStarting else {
            overlaysWaiting = true
            return
        }
        let w = Int((try? mpv.get(.osdWidth)) ?? 0), h = Int((try? mpv.get(.osdHeight)) ?? 0)
        let l = OverlayLayout(width: w, height: h, angle: surfaceAngle)
        let viewer = l.viewerSize
        let size = max(16, min(viewer.width, viewer.height) / 24)
        var texts: [(OverlayLevel, String)] = []
        if !overlaysHidden {
            let status = overlays.statusLine
            if !status.isEmpty {
                texts.append((.status, l.text(status, x: Double(viewer.width) / 2, y: Double(size), size: size)))
            }
            if let s = overlays.suggestion {
                texts.append(
                    (
                        .suggestion,
                        l.text(
                            "Turn to \(s)? " + acceptHint, x: Double(viewer.width) / 2,
                            y: Double(viewer.height) - Double(size) * 3, size: size)
                    ))
            }
            if let m = overlays.message {
                texts.append(
                    (.message, l.text(m, x: Double(viewer.width) / 2, y: Double(viewer.height) / 2, size: size)))
            }
        }
        for level in OverlayLevel.allCases {
            let text = texts.first { $0.0 == level }?.1 ?? ""
            let sent = text.isEmpty ? "" : "\(l.width)x\(l.height) \(text)"
            guard sentOverlays[level, default: ""] != sent else { continue }
            try mpv.command([
                "osd-overlay", String(level.rawValue), text.isEmpty ? "none" : "ass-events", text,
                String(l.width), String(l.height), String(level.rawValue),
            ])
            sentOverlays[level] = sent
        }
    }

    /// An item starts: overlay changes wait for its first frame (a second at most).
    private func itemStarts() {
        itemStartTimer?.cancel()
        itemStarting = true
        itemStartTimer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
            await self?.itemStarted()
        }
    }

    /// The item's first frame is on screen (or it failed, or a second passed): waiting overlays are drawn.
    private func itemStarted() {
        itemStartTimer?.cancel()
        itemStarting = false
        if overlaysWaiting {
            overlaysWaiting = false
            try? drawOverlays()
        }
    }

    /// mpv went idle with a playlist configured: every item failed, or the folders hold nothing
    /// ready. The message says so over the splash (when one is configured), and the playlist is
    /// tried again every ``PlayerSettings/retryInterval`` (and at once when a folder changes).
    private func nothingToPlay() {
        // A playlist that played to its end (loop = false) is not "nothing to play"; nor is mpv idle
        // before the playlist was first loaded (its first idle event comes before ``start()``).
        guard startedOnce, !settings.playlist.isEmpty, clip == nil, !isShuttingDown, lastFailure != nil || items.isEmpty
        else {
            return
        }
        let why =
            lastFailure.map { "the last: \($0)" }
            ?? settings.playlist.map { entry -> String in
                // Each entry by its last name: "missing.mp4: no such file or directory".
                let described = Playlist.inspect(entry).description
                guard described.hasPrefix("/"), let colon = described.range(of: ": ") else { return described }
                let path = String(described[..<colon.lowerBound])
                return (path as NSString).lastPathComponent + described[colon.lowerBound...]
            }.joined(separator: "; ")
        try? updateOverlays { $0.message = "Nothing to play (\(why)); trying again" }
        if let splash = settings.splash, current != splash {
            try? mpv.command(["loadfile", splash, "replace", "image-display-duration=inf,video-latency-hacks=no"])
        }
        idleRetry?.cancel()
        let interval = settings.retryInterval
        idleRetry = Task { [weak self] in
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            await self?.retryAfterIdle()
        }
    }

    private func retryAfterIdle() {
        guard !isShuttingDown, clip == nil else { return }
        lastFailure = nil
        try? updateOverlays { $0.message = nil }
        try? start()
        if items.isEmpty { nothingToPlay() }
    }

    /// The item's shape once mpv knows its picture (`dwidth`/`dheight`, swapped for a rotation
    /// of 90° or 270°: mpv 0.35's display size leaves the rotation tag out), or its own setting.
    private func reportShape(of item: String) {
        let folder = (item as NSString).deletingLastPathComponent
        if let shape = (settings.itemOptions[item] ?? settings.itemOptions[folder])?.shape {
            continuation.yield(.shape(shape))
            return
        }
        Task { [weak self] in
            for _ in 0..<40 {
                guard let self, await self.current == item, await !self.isShuttingDown else { return }
                if let shape = await self.pictureShape() {
                    await self.emit(.shape(shape))
                    return
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            await self?.emit(.shape(.unknown))  // no picture (audio): the mask stays
        }
    }

    private func pictureShape() -> ContentShape? {
        guard !isShuttingDown else { return nil }  // no call into a core that is quitting
        let w = Int((try? mpv.get(MPVProperty<Int64>("dwidth"))) ?? 0)
        let h = Int((try? mpv.get(MPVProperty<Int64>("dheight"))) ?? 0)
        guard w > 0, h > 0 else { return nil }
        let rotate = Int((try? mpv.get(.videoMetadataRotate)) ?? 0)
        return ContentShape(width: w, height: h, rotate: rotate)
    }

    private func emit(_ e: PlayerEvent) { continuation.yield(e) }

    /// The first item starts: the splash that led the playlist leaves it (it is not played
    /// again at the next round).
    private func dropLeadingSplash() {
        leadingSplash = false
        guard let splash = settings.splash else { return }
        // By name, wherever it is now: this runs a moment after the item started, and mpv may
        // have moved on since (a first item that failed at once: back to the splash, which then
        // leaves at once too).
        let count = Int((try? mpv.get(.playlistCount)) ?? 0)
        for i in (0..<count).reversed() where mpv.string("playlist/\(i)/filename") == splash {
            try? mpv.command(["playlist-remove", String(i)])
        }
    }

    /// Entry `entry` ended: when it is the clip, the session hears of it once.
    private func clipEnded(_ entry: Int64) {
        guard var c = clip, c.entry == entry, !c.ended else { return }
        c.ended = true
        clip = c
        continuation.yield(.clipEnded)
    }

    private func handle(_ e: MPVEvent, from handle: MPVHandle) {
        guard handle === mpv else { return }  // an mpv that was replaced
        switch e {
        case .clientMessage(let args)
        where (args.first == "upright-hotkey" || args.first == "upright-tap") && args.count >= 2:
            // Bound from the settings' own actions, so the words always parse.
            if case .success(let action) = Action.parse(words: Array(args.dropFirst())) {
                continuation.yield(args[0] == "upright-tap" ? .tap(action) : .hotkey(action))
            }
        case .startFile(let entry):
            itemStarts()
            currentEntry = entry
            // mpv's own entry, never a guess from a list of ours (its ids keep counting across a reload),
            // nor the `path` property, which may already name the next file.
            current = entryPath(entry) ?? mpv.string("path")
            if let current { entries[entry] = current }
            // The first item starts: the splash leaves the list (its picture stays until the item's).
            if leadingSplash, current != settings.splash { dropLeadingSplash() }
            if var c = clip, c.entry == nil, !c.ended, current == c.file {
                c.entry = entry
                clip = c
            }
            releaseStepWaiters()
        case .fileLoaded where leadingSplash && current == settings.splash:
            if let current { continuation.yield(.playing(current)) }
        case .fileLoaded:
            if let c = clip, c.ended { resumeAfterClip(c) }
            // Each item change looks at the folders again (inotify brings changes sooner).
            if folders != nil, clip == nil { refresh() }
            if let current { reportShape(of: current) }
            if let current { continuation.yield(.playing(current)) }
            clearFailureMessage()
        case .playbackRestart:
            itemStarted()
        case .endFile(let reason, let error, let entry) where reason == "error":
            itemStarted()
            let path = entries[entry] ?? entryPath(entry) ?? current ?? "?"
            let why = Self.whyUnplayable(path) ?? error ?? "unknown error"
            let reason = why.hasPrefix(path + ": ") ? String(why.dropFirst(path.count + 2)) : why
            lastFailure = "\((path as NSString).lastPathComponent): \(reason)"
            continuation.yield(.fileFailed(path, reason: why))
            showFailure("Cannot play \((path as NSString).lastPathComponent): \(why)")
            clipEnded(entry)
        case .endFile(_, _, let entry):
            entries[entry] = nil
            clipEnded(entry)
        case .idle:
            itemStarted()
            if let c = clip, c.ended { resumeAfterClip(c) }
            releaseStepWaiters()
            continuation.yield(.idle)
            nothingToPlay()
        case .propertyChange(let name, _) where name == "osd-width" || name == "osd-height":
            try? drawOverlays()
        default:
            break
        }
    }
}
