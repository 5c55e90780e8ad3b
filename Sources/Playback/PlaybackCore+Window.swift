/// mpv's window as the core hears of it: the sizes mpv says one number at a time, and the nudge
/// an old Wayland software output needs to show a new place of the picture.
extension PlaybackCore {
    /// The sizes mpv has said so far, one number at a time (``MPVDimension``).
    struct Dimensions: Sendable {
        var said: [MPVDimension: Int] = [:]

        var osd: (width: Int, height: Int) { (said[.osdWidth] ?? 0, said[.osdHeight] ?? 0) }
        /// The picture's display size, turned as its rotation turns it.
        var video: (width: Int, height: Int) {
            let (w, h) = (said[.videoWidth] ?? 0, said[.videoHeight] ?? 0)
            return (said[.videoRotate] ?? 0) % 180 == 90 ? (h, w) : (w, h)
        }
    }

    /// mpv said one number of a size: the size it belongs to, put together, as the core takes it.
    mutating func dimension(_ d: MPVDimension, _ value: Int) -> MPVInput {
        dimensions.said[d] = value
        switch d {
        case .osdWidth, .osdHeight: return .osdSize(width: dimensions.osd.width, height: dimensions.osd.height)
        case .videoWidth, .videoHeight, .videoRotate:
            return .videoSize(width: dimensions.video.width, height: dimensions.video.height)
        }
    }

    /// Whether this mpv needs the nudge (`nil` until its window was read), how many were written,
    /// and whether a read of its window was asked for and not answered yet.
    struct Nudging: Sendable {
        var needed: Bool?
        var count = 0
        var asked = false
    }

    /// After `input` and its `effects`: the window is read when the picture was placed anew (a
    /// zoom, pan, alignment or margin written) or the window's size changed, unless this mpv is
    /// known not to need the nudge (``PlacementNudge``).
    mutating func placementCheck(after input: PlaybackInput, _ effects: [PlaybackEffect]) -> [PlaybackEffect] {
        guard nudging.needed != false, !nudging.asked else { return [] }
        let resized: Bool
        switch input {
        case .mpv(.osdSize), .mpv(.dimension(.osdWidth, _)), .mpv(.dimension(.osdHeight, _)): resized = true
        default: resized = false
        }
        let placed =
            input == .placed
            || effects.contains {
                if case .mpv(.set(let name, _)) = $0 { return PlacementNudge.places(name) }
                return false
            }
        guard resized || placed else { return [] }
        nudging.asked = true
        return [.samplePlacement]
    }

    /// The window as the shell read it: a nudge when this mpv needs one and its window fills the
    /// screen. Only then: mpv 0.35 takes the video's own size as a normal window's new geometry at
    /// this write, and draws at it until the compositor sends a size. No window yet: nothing (the
    /// picture is placed when it opens, and its size comes then).
    mutating func placementSampled(_ sample: PlacementSample) -> [PlaybackEffect] {
        nudging.asked = false
        guard let output = sample.videoOutput else { return [] }
        if nudging.needed == nil {
            nudging.needed = PlacementNudge.needed(videoOutput: output, version: sample.version)
        }
        guard nudging.needed == true, sample.filling else { return [] }
        nudging.count += 1
        return [.mpv(.command(["set", PlacementNudge.option, PlacementNudge.value(nudging.count)]))]
    }
}

/// mpv before 0.36 (Debian bookworm's 0.35.1): its Wayland software output (`wlshm`) works out
/// where the picture goes only when its window resizes, so a live change of `video-zoom`,
/// `video-pan-*`, `video-align-*` or `video-margin-ratio-*` is not seen until then (mpv's commit
/// "vo_wlshm: properly support video panscan"). Writing a window-size option resizes it without
/// changing it: `autofit-smaller`, a smallest window of 1 to 64 pixels across, a new value each
/// time (mpv's output reads its options in batches and sees no change in two writes that return
/// to the value it last read).
public enum PlacementNudge {
    public static let option = "autofit-smaller"

    /// Whether setting the property `name` moves the picture in its window.
    public static func places(_ name: String) -> Bool {
        ["video-zoom", "video-pan-", "video-align-", "video-margin-ratio-"].contains { name.hasPrefix($0) }
    }

    /// Whether the video output `videoOutput` of mpv `version` (`mpv-version`: "mpv 0.35.1")
    /// needs the nudge.
    public static func needed(videoOutput: String, version: String) -> Bool {
        guard videoOutput == "wlshm" else { return false }
        let number = version.split(separator: " ").dropFirst().first.map { $0.drop { $0 == "v" } } ?? ""
        let parts = number.split(separator: ".").prefix(2).map { Int($0.prefix { $0.isNumber }) }
        guard parts.count == 2, let major = parts[0], let minor = parts[1] else { return true }  // unknown: nudge
        return major == 0 && minor < 36
    }

    /// The value written the `n`th time: none of the 63 before it, so that mpv sees a change.
    public static func value(_ n: Int) -> String { "\(n % 64 + 1)x1" }
}
