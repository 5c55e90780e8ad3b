// The player benchmark (`upright-bench --player`). In its own file: globals of main.swift are
// initialised in the order the top-level code runs, these are initialised when first used.
import Foundation
import MPV
import Playback
import Player
import Sensors

/// Red above blue: which way is up shows in the pixels.
let pattern = "av://lavfi:color=c=red:size=320x180:rate=25,drawbox=x=0:y=90:w=320:h=90:color=blue:t=fill"

func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.r > 180 && p.g < 80 && p.b < 80 }
func isBlue(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.b > 180 && p.r < 80 && p.g < 80 }

/// The turned picture (landscape-right on a square screen): red on the right, blue on the left.
func turned(_ f: MPVFrame) -> Bool { isRed(f.rgb(230, 120)) && isBlue(f.rgb(90, 120)) }
/// The upright picture: red above blue.
func upright(_ f: MPVFrame) -> Bool { isRed(f.rgb(100, 90)) && isBlue(f.rgb(100, 230)) }

/// Renders until `check` holds; returns the seconds it took (or nil after 5 s).
func firstFrame(_ renderer: MPVSoftwareRenderer, from t0: Double, _ check: (MPVFrame) -> Bool) -> Double? {
    while monotonicSeconds() - t0 < 5 {
        if let f = try? renderer.render(width: 320, height: 320), check(f) { return monotonicSeconds() - t0 }
        usleep(1000)
    }
    return nil
}

func stats(_ xs: [Double]) -> String {
    let s = xs.sorted()
    guard !s.isEmpty else { return "-" }
    let p95 = s[min(s.count - 1, Int((0.95 * Double(s.count - 1)).rounded()))]
    return String(
        format: "%.0f / %.0f ms (%.1f / %.1f frames at 25 fps, n=%d)", s[s.count / 2] * 1e3, p95 * 1e3,
        s[s.count / 2] / 0.04, p95 / 0.04, s.count)
}

/// The player's times, over five fresh players.
struct PlayerTimes {
    var starts: [Double] = [], turns: [Double] = [], reloads: [Double] = [], hotkeys: [Double] = []

    /// Start → first frame, live turns, the reload baseline, and the hotkey → relayout.
    mutating func measure(round: Int, settings: PlayerSettings) async {
        var extra = [("vo", "libmpv"), ("ao", "null")]
        for pair in (ProcessInfo.processInfo.environment["UPRIGHT_BENCH_MPV"] ?? "").split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { extra.append((kv[0], kv[1])) }
        }
        guard let player = try? Player(settings: settings, extra: extra),
            let renderer = try? MPVSoftwareRenderer(player.mpvHandle)
        else { fatalError("libmpv with vo=libmpv is not available") }
        await player.setLayout(.fullscreen)
        var t0 = monotonicSeconds()
        await player.start()
        if let t = firstFrame(renderer, from: t0, upright) { starts.append(t) }
        // Live turns, alternating between landscape-right (red on the right) and portrait.
        for k in 0..<6 {
            let landscape = k % 2 == 0
            t0 = monotonicSeconds()
            await player.apply(landscape ? .landscapeRight : .portrait, strategy: .surface)
            if let t = firstFrame(renderer, from: t0, landscape ? turned : upright) { turns.append(t) }
        }
        // Baseline: turning by reloading the file with the filter in place.
        for k in 0..<3 {
            let landscape = k % 2 == 0
            t0 = monotonicSeconds()
            try? player.mpvHandle.command(["vf", "set", landscape ? "lavfi=[transpose=clock]" : ""])
            try? player.mpvHandle.command(["loadfile", pattern, "replace"])
            if let t = firstFrame(renderer, from: t0, landscape ? turned : upright) { reloads.append(t) }
        }
        try? player.mpvHandle.command(["vf", "set", ""])
        await measureHotkey(player, renderer, key: round % 2 == 0 ? "f" : "F11")
        renderer.close()
        _ = await player.shutdown()
    }

    /// Hotkey → relayout: the key press, its action, and the new layout's first frame.
    private mutating func measureHotkey(_ player: Player, _ renderer: MPVSoftwareRenderer, key: String) async {
        await player.setLayout(.inline)
        // Only from a frame that shows the inline layout (red at the very top, nothing low down).
        let inline = firstFrame(renderer, from: monotonicSeconds()) {
            isRed($0.rgb(100, 20)) && $0.rgb(100, 280) == (0, 0, 0)
        }
        let events = player.events
        let t0 = monotonicSeconds()
        try? await player.keypress(key)
        for await e in events {
            if case .hotkey(.fullscreen) = e { break }
        }
        await player.setLayout(.fullscreen)
        if inline != nil,
            let t = firstFrame(renderer, from: t0, { isBlue($0.rgb(100, 240)) && $0.rgb(100, 20) == (0, 0, 0) })
        {
            hotkeys.append(t)
        }
    }
}

func measurePlayer() async {
    var settings = PlayerSettings()
    // UPRIGHT_BENCH_FILE: a file of the same picture instead of the generated source, for experiments.
    settings.playlist = [ProcessInfo.processInfo.environment["UPRIGHT_BENCH_FILE"] ?? pattern]
    var times = PlayerTimes()
    for round in 0..<5 { await times.measure(round: round, settings: settings) }
    print("Player benchmark: libmpv \(mpvClientAPIVersion), software render API at 320x320, median / p95")
    print()
    print("| measure | time |")
    print("|---|---:|")
    print("| start → first frame | \(stats(times.starts)) |")
    print("| rotate decision → first turned frame (live, playback goes on) | \(stats(times.turns)) |")
    print("| baseline: turning by reloading the file | \(stats(times.reloads)) |")
    print("| hotkey → relayout on screen | \(stats(times.hotkeys)) |")
}
