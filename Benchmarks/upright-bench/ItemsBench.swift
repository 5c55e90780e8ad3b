import Foundation
import MPV
import Picture
import Player

/// Item changes through the software render API, Upright's player beside plain libmpv with the
/// same files: black frames between items (the gap, in frames) and how long the image shows
/// against its configured duration. Rendered every 20 ms (twice a frame at 25 fps).
struct ItemsRun {
    var changes = 0
    var black = 0
    var frames = 0
    var imageShown: [Double] = []
    /// The item shown before each black frame.
    var blackAfter: [String: Int] = [:]
}

/// Watches frames from `render` until `wanted` item changes: red image, blue video, green video.
func watchItems(_ render: () throws -> MPVFrame, wanted: Int) async -> ItemsRun {
    var run = ItemsRun()
    var last: String?
    var redSince: Date?
    let end = Date().addingTimeInterval(60)
    while Date() < end, run.changes < wanted {
        guard let f = try? render() else { break }
        let p = f.rgb(80, 60)
        let colour =
            p.r > 128 ? "red" : p.b > 128 ? "blue" : p.g > 128 ? "green" : (max(p.r, p.g, p.b) < 24 ? "black" : "other")
        run.frames += 1
        if colour == "black", let l = last {
            run.black += 1
            run.blackAfter[l, default: 0] += 1
        }
        if colour != "black", let l = last, l != colour {
            run.changes += 1
            if l == "red", let since = redSince { run.imageShown.append(Date().timeIntervalSince(since)) }
            if colour == "red" { redSince = Date() }
        }
        if colour != "black" {
            if last == nil, colour == "red" { redSince = Date() }
            last = colour
        }
        try? await Task.sleep(for: .milliseconds(20))
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
    try? await player.start()
    let upright = await watchItems({ try renderer.render(width: 160, height: 120) }, wanted: wanted)
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
    let plain = await watchItems({ try plainRenderer.render(width: 160, height: 120) }, wanted: wanted)
    plainRenderer.close()
    _ = await mpv.shutdown(timeout: 5)

    func json(_ r: ItemsRun) -> String {
        "{\"item_changes\": \(r.changes), \"black_frames\": \(r.black), \"frames\": \(r.frames), "
            + "\"image_shown_median_s\": \(String(format: "%.3f", median(r.imageShown))), "
            + "\"image_configured_s\": \(duration), \"black_after\": \"\(r.blackAfter.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))\"}"
    }
    print("{\"items\": {\"upright\": \(json(upright)), \"plain_mpv\": \(json(plain))}}")
}
