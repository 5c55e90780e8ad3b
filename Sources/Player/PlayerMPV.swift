import Files
import Foundation
import MPV
import OrientationCore
import Playback

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

    /// A new mpv with a player's options, its OSD size observed and the hotkeys bound. It runs in a
    /// process of its own (libmpv 0.35 crashes now and then as it tears down a window whose
    /// compositor died, and leaks a window's pictures each time), except for the render API
    /// (`vo=libmpv`: tests and the demo's frames), which needs it in this one. `picture`: the
    /// picture's display size is observed too (a wall's tile).
    static func player(
        options: [(String, String)], hotkeys: [Action: [String]], picture: Bool = false
    ) throws(MPVError) -> MPVHandle {
        var bindings: [[String]] = []
        for (action, keys) in hotkeys.sorted(by: { $0.key.words.lexicographicallyPrecedes($1.key.words) }) {
            // KEY_/BTN_ names are read from input devices, not by mpv.
            for key in keys where !(key.hasPrefix("KEY_") || key.hasPrefix("BTN_")) {
                let tap = key.uppercased().hasPrefix("MBTN") || key.uppercased().hasPrefix("MOUSE_BTN")
                let message =
                    (["script-message", tap ? "upright-tap" : "upright-hotkey"] + action.words).joined(separator: " ")
                bindings.append(["keybind", key, message])
            }
        }
        // Not waiting for mpv's process: it may still load libmpv while the session finds its display.
        // The overlays are laid out against the OSD's size: drawn again whenever it changes (a
        // turned output, a resized window, the first frame of a renderer).
        // A wall's tile is laid out against the picture's size too.
        let picture: [(String, MPVValue.Kind)] =
            picture
            ? [("video-out-params/dw", .int64), ("video-out-params/dh", .int64), ("video-out-params/rotate", .int64)]
            : []
        return try MPVHandle(
            starting: options, observing: [("osd-width", .int64), ("osd-height", .int64)] + picture,
            commands: bindings,
            separateProcess: options.last { $0.0 == "vo" }?.1 != "libmpv")
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

extension Player {
    /// Why a local file cannot be played, in the system's words (mpv says only "loading failed"):
    /// missing, a directory, unreadable. `nil` for a URL or a file that can be read.
    public static func whyUnplayable(_ item: String) -> String? {
        guard let path = Playlist.localPath(item), let problem = readProblem(path) else { return nil }
        return problem == "is a directory" ? "\(path) is a directory" : "\(path): \(problem)"
    }
}

/// mpv before 0.36 (Debian bookworm's 0.35.1): its Wayland software output (`wlshm`) works out
/// where the picture goes only when its window resizes, so a live change of `video-zoom`,
/// `video-pan-*`, `video-align-*` or `video-margin-ratio-*` is not seen until then (mpv's commit
/// "vo_wlshm: properly support video panscan"). Writing a window-size option resizes it without
/// changing it: `autofit-smaller`, a smallest window of 1 to 64 pixels across, a new value each
/// time (mpv's output reads its options in batches and sees no change in two writes that return
/// to the value it last read).
enum PlacementNudge {
    static let option = "autofit-smaller"

    /// Whether setting the property `name` moves the picture in its window.
    static func places(_ name: String) -> Bool {
        ["video-zoom", "video-pan-", "video-align-", "video-margin-ratio-"].contains { name.hasPrefix($0) }
    }

    /// Whether the video output `videoOutput` of mpv `version` (`mpv-version`: "mpv 0.35.1")
    /// needs the nudge.
    static func needed(videoOutput: String, version: String) -> Bool {
        guard videoOutput == "wlshm" else { return false }
        let number = version.split(separator: " ").dropFirst().first.map { $0.drop { $0 == "v" } } ?? ""
        let parts = number.split(separator: ".").prefix(2).map { Int($0.prefix { $0.isNumber }) }
        guard parts.count == 2, let major = parts[0], let minor = parts[1] else { return true }  // unknown: nudge
        return major == 0 && minor < 36
    }

    /// The value written the `n`th time: none of the 63 before it, so that mpv sees a change.
    static func value(_ n: Int) -> String { "\(n % 64 + 1)x1" }
}
