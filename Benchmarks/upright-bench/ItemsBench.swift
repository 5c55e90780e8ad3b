import Foundation
import MPV
import Picture
import Playback
import Player

/// Item changes through the software render API, Upright's player beside plain libmpv with the
/// same files: black frames between items (the gap, in frames) and how long the image shows
/// against its configured duration.
///
/// Frames are counted as a screen shows them: a frame is presented when mpv has a new one
/// (`mpv_render_context_update`), and stays until the next. `polled_black` counts, besides, what
/// rendering every 20 ms without being asked shows: after a change of format mpv's render context
/// holds no frame until the next item's first (black), which a window system shows only if it
/// asks for a redraw (an expose) in that moment.
struct ItemsRun {
    var changes = 0
    var black = 0
    var presented = 0
    var polledBlack = 0
    var imageShown: [Double] = []
    /// The item shown before each black frame.
    var blackAfter: [String: Int] = [:]
}

func colour(_ f: MPVFrame) -> String {
    let p = f.rgb(80, 60)
    return p.r > 128 ? "red" : p.b > 128 ? "blue" : p.g > 128 ? "green" : (max(p.r, p.g, p.b) < 24 ? "black" : "other")
}

/// Watches the frames of `renderer` until `wanted` item changes: red image, blue video, green video.
func watchItems(_ renderer: MPVSoftwareRenderer, wanted: Int) async -> ItemsRun {
    var run = ItemsRun()
    var last: String?
    var redSince: Date?
    var lastPoll = Date.distantPast
    let end = Date().addingTimeInterval(60)
    while Date() < end, run.changes < wanted {
        try? await Task.sleep(for: .milliseconds(5))
        guard let f = try? renderer.present(width: 160, height: 120) else {
            // Between presentations, now and then: what an unasked redraw would show.
            if last != nil, Date().timeIntervalSince(lastPoll) >= 0.02 {
                lastPoll = Date()
                if let polled = try? renderer.render(width: 160, height: 120), colour(polled) == "black" {
                    run.polledBlack += 1
                }
            }
            continue
        }
        let c = colour(f)
        run.presented += 1
        if c == "black", let l = last {
            run.black += 1
            run.blackAfter[l, default: 0] += 1
        }
        if c != "black", let l = last, l != c {
            run.changes += 1
            if l == "red", let since = redSince { run.imageShown.append(Date().timeIntervalSince(since)) }
            if c == "red" { redSince = Date() }
        }
        if c != "black" {
            if last == nil, c == "red" { redSince = Date() }
            last = c
        }
    }
    return run
}

func measureItems() async {
    let dir = NSTemporaryDirectory() + "upright-bench-items-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let image = dir + "/red.png"
    try? Data(Picture(width: 320, height: 240, fill: (255, 0, 0)).png()).write(to: URL(fileURLWithPath: image))
    let items = [
        image, "av://lavfi:color=c=blue:size=320x240:rate=25:duration=0.8",
        "av://lavfi:color=c=green:size=320x240:rate=25:duration=0.8",
    ]
    let duration = 0.6, wanted = 30
    func median(_ xs: [Double]) -> Double { xs.isEmpty ? 0 : xs.sorted()[xs.count / 2] }

    // Upright's player.
    var settings = PlayerSettings()
    settings.playlist = items
    settings.imageDuration = duration
    guard let player = try? Player(settings: settings, extra: [("vo", "libmpv"), ("ao", "null")]),
        let renderer = try? MPVSoftwareRenderer(player.mpvHandle)
    else { fatalError("cannot start the player") }
    await player.start()
    let upright = await watchItems(renderer, wanted: wanted)
    renderer.close()
    _ = await player.shutdown()

    // Plain libmpv, its defaults, the same files.
    guard
        let mpv = try? MPVHandle(options: [
            ("vo", "libmpv"), ("ao", "null"), ("loop-playlist", "inf"), ("image-display-duration", String(duration)),
            ("idle", "yes"), ("terminal", "no"),
        ]), let plainRenderer = try? MPVSoftwareRenderer(mpv)
    else { fatalError("cannot start plain mpv") }
    try? mpv.command(["loadfile", items[0], "replace"])
    for i in items.dropFirst() { try? mpv.command(["loadfile", i, "append"]) }
    let plain = await watchItems(plainRenderer, wanted: wanted)
    plainRenderer.close()
    _ = await mpv.shutdown(timeout: 5)

    func json(_ r: ItemsRun) -> String {
        "{\"item_changes\": \(r.changes), \"black_frames\": \(r.black), \"frames_presented\": \(r.presented), "
            + "\"polled_black\": \(r.polledBlack), "
            + "\"image_shown_median_s\": \(String(format: "%.3f", median(r.imageShown))), "
            + "\"image_configured_s\": \(duration), \"black_after\": \"\(r.blackAfter.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))\"}"
    }
    print("{\"items\": {\"upright\": \(json(upright)), \"plain_mpv\": \(json(plain))}}")
}
