import Confinement
import Files
import Foundation
public import MPV
import OrientationCore
import Playback
public import Wire

/// The board Upright runs on.
public enum Board {
    /// Its model as its device tree names it (`nil` where there is none, as on a PC).
    public static func model() -> String? {
        try? String(contentsOfFile: "/proc/device-tree/model", encoding: .utf8)
    }
}

/// The player's mpv: the options it starts with, and the core's commands in mpv's own words.
extension MPVHandle {
    /// The options every mpv of a player with `settings` starts with; `extra` options (vo=null in tests) win.
    static func options(for settings: PlayerSettings, extra: [(String, String)]) -> [(String, String)] {
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
            // mpv's ytdl_hook is a Lua state that mpv_initialize waits for (15 ms here, far more on
            // a slow board: the first frame waits for it), and it hands every http(s) URL to
            // yt-dlp first; playlists name media files and streams. [player.mpv] ytdl = "yes" for
            // pages that need yt-dlp.
            ("ytdl", "no"),
        ]
        options.append(("loop-playlist", settings.loop ? "inf" : "no"))
        options.append(("image-display-duration", String(settings.imageDuration)))
        // A SMIL index may show no video at all (its pictures, brushes and words are drawn over
        // mpv's window): the window is made at once. mpv makes one only as it goes idle; set later,
        // while it is idle, `force-window` makes none (mpv 0.35).
        if settings.playlist.contains(where: RemoteItem.isIndex) { options.append(("force-window", "yes")) }
        if let device = settings.audioDevice { options.append(("audio-device", device)) }
        if settings.mpv["hwdec"] == nil {
            if settings.hwdec == "board" {
                let choice = HardwareDecoding.choice(model: Board.model())
                options.append(("hwdec", choice.hwdec))
                if let codecs = choice.codecs, settings.mpv["hwdec-codecs"] == nil {
                    options.append(("hwdec-codecs", codecs))
                }
            } else {
                options.append(("hwdec", settings.hwdec))
            }
        }
        options += settings.mpv.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return options + extra
    }

    /// Carries out one of the core's commands; what mpv answers that the core must hear (the id of
    /// an entry added, a removal refused) is returned. Entries are found by id at this moment.
    func carryOut(_ command: MPVCommand) throws(MPVError) -> PlaybackInput? {
        switch command {
        case .load(let path, let append, let options):
            let mode = append ? "append" : "replace"
            try self.command(["loadfile", path, mode] + (options.isEmpty ? [] : [options.joined(separator: ",")]))
            // mpv added it last (a replace: as its only entry); its id names it from now on.
            let last = (value(.playlistCount) ?? 1) - 1
            return .added(entry: string("playlist/\(last)/id").flatMap { Int64($0) })
        case .remove(let entry, let evenIfPlaying):
            guard let i = index(of: entry) else { return nil }  // gone already
            if !evenIfPlaying, i == value(.playlistPlayingPosition) { return .removeRefused(entry: entry) }
            try self.command(["playlist-remove", String(i)])
        case .move(let entry, let before):
            guard let i = index(of: entry), let j = index(of: before) else { return nil }
            try self.command(["playlist-move", String(i), String(j)])
        case .play(let entry):
            guard let i = index(of: entry) else { return nil }
            try self.command(["playlist-play-index", String(i)])
        case .reload: try self.command(["playlist-play-index", "current"])
        case .step(let s): try self.command([s == .next ? "playlist-next" : "playlist-prev", "force"])
        case .stop: try self.command(["stop"])
        case .seek(let t): try self.command(["seek", String(t), "absolute"])
        case .set(let name, .flag(let b)): try set(name, .flag(b))
        case .set(let name, .int(let i)): try set(name, .int64(i))
        case .set(let name, .double(let d)): try set(name, .double(d))
        case .command(let words): try self.command(words)
        }
        return nil
    }

    /// A property's value, `nil` while mpv has none (no file, no picture: mpv says unavailable).
    func value<V: MPVConvertible>(_ p: MPVProperty<V>) -> V? {
        do { return try get(p) } catch { return nil }
    }

    /// The index of mpv's playlist entry `id` now (`playlist/N/id`).
    func index(of id: Int64) -> Int64? {
        let count = value(.playlistCount) ?? 0
        return (0..<count).first { string("playlist/\($0)/id").flatMap { Int64($0) } == id }
    }

    /// The file or URL of mpv's playlist entry `id`.
    func entryPath(_ id: Int64) -> String? { index(of: id).flatMap { string("playlist/\($0)/filename") } }

    /// The item's shape once mpv knows its picture (`dwidth`/`dheight`, swapped for a rotation
    /// of 90° or 270°: mpv 0.35's display size leaves the rotation tag out).
    func pictureShape() -> ContentShape? {
        let w = Int(value(MPVProperty<Int64>("dwidth")) ?? 0), h = Int(value(MPVProperty<Int64>("dheight")) ?? 0)
        guard w > 0, h > 0 else { return nil }
        return ContentShape(width: w, height: h, rotate: Int(value(.videoMetadataRotate) ?? 0))
    }
}

/// What the player reads of mpv: its events as the core's inputs, and the samples the core asks for.
extension MPVHandle {
    /// An event of this mpv as the core takes it (`nil`: one the core has no use for). The facts
    /// the core needs with it are read now: a started entry's file, whether mpv is still idle.
    func input(for event: MPVEvent) -> PlaybackInput? {
        switch event {
        case .startFile(let entry): return .mpv(.startFile(entry: entry, path: entryPath(entry)))
        case .fileLoaded: return .mpv(.fileLoaded)
        case .playbackRestart: return .mpv(.playbackRestart)
        case .endFile(let reason, let error, let entry):
            return .mpv(.endFile(entry: entry, error: reason == "error" ? error ?? "unknown error" : nil))
        case .idle: return .mpv(.idle(active: value(.idleActive)))
        case .clientMessage(let args) where args == [PlaybackCore.touchMessage]:
            // Where the tap landed in the window: read now, before another moves it.
            return mousePosition().map { .mpv(.touched(x: $0.x, y: $0.y)) }
        case .propertyChange(let name, .int64(let n)?):
            return MPVDimension(rawValue: name).map { .mpv(.dimension($0, Int(n))) }
        default: return nil
        }
    }

    /// An event of mpv's that the player passes on as it is: a hotkey or tap bound to an action
    /// (bound from the settings' own actions, so the words always parse), its process's crash.
    static func playerEvent(for event: MPVEvent) -> PlayerEvent? {
        switch event {
        case .clientMessage(let args)
        where (args.first == "upright-hotkey" || args.first == "upright-tap") && args.count >= 2:
            guard case .success(let action) = Action.parse(words: Array(args.dropFirst())) else { return nil }
            return args[0] == "upright-tap" ? .tap(action) : .hotkey(action)
        case .log("upright-mpv", _, let text): return .problem(text)
        default: return nil
        }
    }

    /// Where the pointer (or the last touch) is in the window. mpv says `mouse-pos` as a map
    /// (`{"x":100,"y":50,"hover":false}` as a string).
    func mousePosition() -> (x: Double, y: Double)? {
        struct Position: Decodable { var x: Double, y: Double }
        guard let text = string("mouse-pos"), let p = try? JSONDecoder().decode(Position.self, from: Data(text.utf8))
        else { return nil }
        return (p.x, p.y)
    }

    /// Whether mpv's selected and playing entry are both `entry` (a guarded batch may go ahead).
    func plays(_ entry: Int64) -> Bool {
        let at = index(of: entry)
        return at != nil && at == value(.playlistPosition) && at == value(.playlistPlayingPosition)
    }

    func positionSample() -> PositionSample {
        PositionSample(
            position: value(.timePosition), paused: value(.pause) ?? false, idle: value(.idleActive) ?? false,
            image: string("current-tracks/video/image") == "yes", fps: value(.containerFPS),
            buffered: value(.demuxerCacheDuration))
    }

    /// mpv's position with the group's time and anchor, read as close together as can be.
    func groupSample(_ group: GroupLink?) -> GroupSample {
        GroupSample(
            groupTime: group?.groupTime(), anchor: group?.anchor(), position: value(.timePosition),
            paused: value(.pause) ?? false, idle: value(.idleActive) ?? false, fps: value(.containerFPS))
    }

    func placementSample() -> PlacementSample {
        let filling =
            (try? get(MPVProperty<Bool>("fullscreen"))) == true
            || (try? get(MPVProperty<Bool>("window-maximized"))) == true
        return PlacementSample(
            videoOutput: string("current-vo"), version: string("mpv-version") ?? "", filling: filling)
    }

    /// Each file's length (`nil`: it has none, or could not be opened): mpv opens each in a core
    /// of its own, `timeout` seconds at most each. It blocks.
    func probeLengths(_ items: [String], timeout: Double = 10) -> [String: Double?] {
        Dictionary(items.map { ($0, (try? probeLength($0, timeout: timeout)) ?? nil) }) { a, _ in a }
    }

    /// mpv's video decoder and the frames dropped for the item playing; `nil` with no video playing.
    func decoderReport() -> DecoderReport? {
        guard let codec = string("video-format").flatMap({ _ in string("video-codec") }) else { return nil }
        func count(_ name: String) -> Int {
            if case .int64(let n)? = try? get(name, as: .int64) { return Int(n) }
            return 0
        }
        let hwdec = string("hwdec-current") ?? "no"
        return DecoderReport(
            hwdec: hwdec == "no" || hwdec.isEmpty ? "software" : hwdec,
            codec: codec.split(separator: " ").first.map(String.init),
            decoderDrops: count("decoder-frame-drop-count"), outputDrops: count("frame-drop-count"))
    }

    /// Writes a PNG of the window with the overlays (`window`) or of the video frame to `path`.
    func screenshot(to path: String, window: Bool) throws(MPVError) {
        // The null output has no window: asking it costs mpv's playback loop an attempt each time.
        if window, string("current-vo") == "null" {
            throw MPVError(call: "screenshot-to-file window", message: "the null video output has no window", code: -1)
        }
        try command(["screenshot-to-file", path, window ? "window" : "video"])
    }

    /// What mpv holds of the live stream `url`, held at `latency`, and its speed.
    func liveReport(_ url: String, latency: Double?) -> LiveStreamReport {
        let buffered = value(.demuxerCacheDuration).map { ($0 * 1000).rounded() / 1000 }
        return LiveStreamReport(url: url, latency: latency, buffered: buffered, speed: value(.speed) ?? 1)
    }
}

extension Player {
    /// Why a local file cannot be played, in the system's words (mpv says only "loading failed"):
    /// missing, a directory, unreadable. `nil` for a URL or a file that can be read.
    public static func whyUnplayable(_ item: String) -> String? {
        guard let path = Playlist.localPath(item), let problem = readProblem(path) else { return nil }
        return problem == "is a directory" ? "\(path) is a directory" : "\(path): \(problem)"
    }
}

/// How a player's mpv starts: its options, the hotkeys bound, what is observed, and what its
/// process confines itself to. Every mpv of a player (a new one after a restart) starts the same.
struct PlayerMPVStart: Sendable {
    var options: [(String, String)]
    var hotkeys: [Action: [String]]
    /// The picture's display size is observed too (a wall's tile).
    var picture: Bool
    var confinement: ConfinementPolicy?

    /// mpv runs in a process of its own (libmpv 0.35 crashes now and then as it tears down a
    /// window whose compositor died, and leaks a window's pictures each time), except for the
    /// render API (`vo=libmpv`: tests and the demo's frames), which needs it in this one.
    var separateProcess: Bool { options.last { $0.0 == "vo" }?.1 != "libmpv" }

    /// A new mpv with the options, its OSD size observed and the hotkeys bound, not waited for.
    func make() throws(MPVError) -> MPVHandle {
        var bindings: [[String]] = []
        for (action, keys) in hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            // KEY_/BTN_ names are read from input devices, not by mpv.
            for key in keys where !(key.hasPrefix("KEY_") || key.hasPrefix("BTN_")) {
                bindings.append(["keybind", key, PlayerSettings.binding(key, action)])
            }
        }
        // Not waiting for mpv's process: it may still load libmpv while the session finds its display.
        // The overlays are laid out against the OSD's size: drawn again whenever it changes (a
        // turned output, a resized window, the first frame of a renderer).
        // A wall's tile is laid out against the picture's size too.
        let observed = MPVDimension.allCases.filter { picture || $0 == .osdWidth || $0 == .osdHeight }
        return try MPVHandle(
            starting: options, observing: observed.map { ($0.rawValue, .int64) }, commands: bindings,
            separateProcess: separateProcess, confinement: confinement)
    }
}

/// What the player's mpv says and does outside the core, for the status, the session and tests.
extension Player {
    /// The sound's volume (0–100), kept for a new mpv (the core's).
    public func setVolume(_ volume: Int) { feed(.volume(volume)) }

    /// The sound off, or on again, kept for a new mpv (the core's).
    public func setMute(_ on: Bool) { feed(.mute(on)) }

    /// mpv's volume (0–100, rounded) and whether it is muted, now; `nil` when it does not say.
    public var soundStatus: (volume: Int, muted: Bool)? {
        guard let v = mpv.value(MPVProperty<Double>("volume")), let m = mpv.value(MPVProperty<Bool>("mute")) else {
            return nil
        }
        return (Int(v.rounded()), m)
    }

    /// What the status line shows for `item` (``PlaybackCore/title(of:mediaTitle:)``).
    public func title(of item: String) -> String { PlaybackCore.title(of: item, mediaTitle: mpv.string("media-title")) }

    /// Writes a PNG of what mpv shows to `path`: its window with the overlays (`window`), or the
    /// current video frame (`video`, which mpv takes with no window at all).
    public func screenshot(to path: String, window: Bool) throws(MPVError) {
        try mpv.screenshot(to: path, window: window)
    }

    /// Presses a key, as a person would (`keypress`): the way hotkeys are tested and scripted.
    public func keypress(_ key: String) throws(MPVError) { try mpv.command(["keypress", key]) }

    /// mpv's video decoder and the frames dropped for the item playing; `nil` with no video playing.
    public func decoder() -> DecoderReport? { mpv.decoderReport() }

    /// The live stream playing, the latency it is held at, what mpv holds of it and the speed;
    /// `nil` when no stream plays.
    public func liveStream() -> LiveStreamReport? {
        core.liveStream.map { mpv.liveReport($0.url, latency: $0.latency) }
    }

    /// A property of the player, for status and tests.
    public func property<V: MPVConvertible>(_ p: MPVProperty<V>) throws(MPVError) -> V { try mpv.get(p) }
}
