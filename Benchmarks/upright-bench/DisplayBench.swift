// The display benchmark (`upright-bench --display`): on a headless sway (started here through
// scripts/headless-sway.sh), a rotation decision → the output turned and mpv laid out again
// (interface strategy), side by side with turning only the video (surface strategy), both until
// a screenshot (grim) shows the picture upright.
import Display
import Foundation
import MPV
import OrientationCore
import Picture
import Playback
import Player
import Sensors
import Settings

/// The whole screen by grim.
func screenshot(wayland: String) async -> Picture? {
    (try? await HelperProgram(name: "grim", environment: ["WAYLAND_DISPLAY": wayland]).output(["-t", "ppm", "-"]))
        .flatMap { Picture(ppm: $0) }
}

/// The picture is upright on the logical screen: for the interface strategy the logical screen
/// is the viewer's; for the surface strategy the output stays portrait and the video turns in it.
func showsUpright(_ s: Picture, _ o: InterfaceOrientation, strategy: AppliedStrategy) -> Bool {
    if strategy == .interface {
        let (w, h) = o.isLandscape ? (1280, 800) : (800, 1280)
        return s.width == w && s.height == h && isRed(s.rgb(w / 2, h / 2 - 120)) && isBlue(s.rgb(w / 2, h / 2 + 120))
    }
    let (red, blue): ((Int, Int), (Int, Int)) =
        switch o {
        case .landscapeRight: ((600, 640), (200, 640))
        case .landscapeLeft: ((200, 640), (600, 640))
        case .portraitUpsideDown: ((400, 780), (400, 500))
        case .portrait: ((400, 500), (400, 780))
        }
    return s.width == 800 && isRed(s.rgb(red.0, red.1)) && isBlue(s.rgb(blue.0, blue.1))
}

/// A headless sway for the benchmark, as scripts/headless-sway.sh starts it.
struct BenchSway {
    let directory: String, wayland: String, socket: String, pid: Int32

    static func start() async -> BenchSway {
        let directory = NSTemporaryDirectory() + "upright-bench-sway-\(getpid())"
        guard
            let started = try? await HelperProgram(name: "bash", timeout: 10).run([
                "scripts/headless-sway.sh", directory,
            ])
        else {
            fatalError("cannot start a headless sway (scripts/headless-sway.sh; needs sway)")
        }
        var env: [String: String] = [:]
        for line in started.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { env[kv[0]] = kv[1] }
        }
        guard let wayland = env["WAYLAND_DISPLAY"], let socket = env["SWAYSOCK"],
            let pid = env["SWAY_PID"].flatMap(Int32.init)
        else { fatalError("headless-sway.sh printed no sockets") }
        return BenchSway(directory: directory, wayland: wayland, socket: socket, pid: pid)
    }

    /// Ends sway (it ends on SIGINT) and removes its directory.
    func stop() {
        kill(pid, SIGINT)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func measureDisplay() async {
    let sway = await BenchSway.start()
    defer { sway.stop() }
    setenv("WAYLAND_DISPLAY", sway.wayland, 1)
    var settings = PlayerSettings()
    settings.playlist = [pattern]
    guard let player = try? Player(settings: settings, extra: [("vo", "wlshm"), ("ao", "null"), ("fs", "yes")]) else {
        fatalError("libmpv with vo=wlshm is not available")
    }
    await player.start()
    await player.setLayout(.fullscreen)
    var displaySettings = DisplaySettings()
    displaySettings.backend = .sway
    let display = DisplayController(
        settings: displaySettings, stateDirectory: sway.directory + "/state", environment: ["SWAYSOCK": sway.socket])
    guard await display.start().canRotateOutput else { fatalError("sway does not turn its output") }
    // Let the first frame arrive.
    for _ in 0..<100 {
        if let s = await screenshot(wayland: sway.wayland), showsUpright(s, .portrait, strategy: .interface) { break }
        try? await Task.sleep(for: .milliseconds(50))
    }
    var times = TurnTimes()
    for strategy in [AppliedStrategy.interface, .surface] {
        for o in Array(
            repeating: [InterfaceOrientation.landscapeRight, .portrait, .landscapeLeft, .portrait], count: 3
        ).flatMap({ $0 }) {
            await times.measure(o, strategy, player: player, display: display, wayland: sway.wayland)
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
    await display.restore()
    _ = await player.shutdown()
    times.print()
}

/// How long each turn took to show: mpv laid out again, and the screenshot upright.
struct TurnTimes {
    var layout: [Double] = [], screenInterface: [Double] = [], screenSurface: [Double] = []

    mutating func measure(
        _ o: InterfaceOrientation, _ strategy: AppliedStrategy, player: Player, display: DisplayController,
        wayland: String
    ) async {
        let t0 = monotonicSeconds()
        if strategy == .interface { _ = await display.apply(o) }
        await player.apply(o, strategy: strategy)
        if strategy == .interface {
            let want = Int64(o.isLandscape ? 1280 : 800)
            while monotonicSeconds() - t0 < 5 {
                if (try? await player.property(MPVProperty<Int64>("osd-width"))) == want {
                    layout.append(monotonicSeconds() - t0)
                    break
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        while monotonicSeconds() - t0 < 5 {
            if let s = await screenshot(wayland: wayland), showsUpright(s, o, strategy: strategy) {
                if strategy == .interface {
                    screenInterface.append(monotonicSeconds() - t0)
                } else {
                    screenSurface.append(monotonicSeconds() - t0)
                }
                break
            }
        }
    }

    func print() {
        func ms(_ xs: [Double]) -> String {
            let s = xs.sorted()
            guard !s.isEmpty else { return "-" }
            return String(
                format: "median %.0f ms, p95 %.0f ms (n=%d)", s[s.count / 2] * 1e3,
                s[Int(0.95 * Double(s.count - 1))] * 1e3, s.count)
        }
        Swift.print("Display (headless sway 1.7, mpv vo=wlshm, 800x1280; a screenshot by grim costs its own time):")
        Swift.print("  interface: decision → output turned and mpv laid out again (osd-width): \(ms(layout))")
        Swift.print("  interface: decision → screenshot shows the picture upright:             \(ms(screenInterface))")
        Swift.print("  surface:   decision → screenshot shows the picture upright:             \(ms(screenSurface))")
    }
}
