import Foundation
import TestSupport
import Testing

/// `upright play` as a user runs it: a real headless sway, the fake accelerometer read by the real
/// libiio in a private mount namespace, mpv drawing with vo=wlshm; the test turns the device,
/// presses the full-screen hotkey and toggles the lock through the control socket (`upright ctl`),
/// and checks sway's output transform and grim's screenshot at each step, for both strategies.
@Suite(
    "End to end: upright play on a headless sway", .serialized,
    .enabled(if: namespacesWork, "needs a private mount namespace (root, or unprivileged user namespaces)"))
struct EndToEndTests {
    static let pattern = "av://lavfi:color=c=red:size=320x180:rate=25,drawbox=x=0:y=90:w=320:h=90:color=blue:t=fill"

    func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.r > 180 && p.g < 80 && p.b < 80 }
    func isBlue(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.b > 180 && p.r < 80 && p.g < 80 }

    /// The picture shows upright to a viewer of an interface in `orientation`: for `interface` the
    /// screenshot is the turned logical screen; for `surface` the output stays 800×1280 and the
    /// picture turns in it.
    func upright(_ s: Image, _ orientation: String, strategy: String, inline: Bool = false) -> Bool {
        if inline {  // the video in the upper 60 % of the portrait screen
            return s.width == 800 && isRed(s.rgb(400, 264)) && isBlue(s.rgb(400, 504))
        }
        if strategy == "interface" {
            let landscape = orientation.hasPrefix("landscape")
            let (w, h) = landscape ? (1280, 800) : (800, 1280)
            return s.width == w && s.height == h && isRed(s.rgb(w / 2, h / 2 - 120))
                && isBlue(s.rgb(w / 2, h / 2 + 120))
        }
        let (red, blue): ((Int, Int), (Int, Int)) =
            switch orientation {
            case "landscape-right": ((600, 640), (200, 640))
            case "landscape-left": ((200, 640), (600, 640))
            default: ((400, 500), (400, 780))
            }
        return s.width == 800 && isRed(s.rgb(red.0, red.1)) && isBlue(s.rgb(blue.0, blue.1))
    }

    @Test(arguments: ["interface", "surface"])
    func turnsHotkeyLockAndRestore(strategy: String) async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let fake = try FakeIIO()
        try fake.portrait()
        let runtime = NSTemporaryDirectory() + "upright-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let config = runtime + "/upright.toml"
        try """
        [sensor]
        uri = "local:"
        [lock]
        evdev = "none"
        [display]
        backend = "sway"
        [player]
        playlist = ["\(Self.pattern)"]
        [player.mpv]
        vo = "wlshm"
        ao = "null"
        fs = "yes"
        [scenes.fullscreen]
        strategy = "\(strategy)"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = runtime + "/control.sock"
        let play = try uprightInNamespace(
            fake, ["play", "--config", config, "--control", socket],
            environment: ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": sway.wayland, "SWAYSOCK": sway.socket])
        defer { play.stop(kill: true) }

        func ctl(_ words: String...) async throws {
            let r = try Running(uprightPath, ["ctl", "--socket", socket] + words)
            await r.wait()
            #expect(r.process.terminationStatus == 0, "ctl \(words): \(r.stdout) \(r.stderr)")
        }
        /// Waits until a decision to `orientation` is printed, then until the screen shows it.
        func expectScreen(
            _ orientation: String, transform: String, decisions: Int, inline: Bool = false, _ step: String
        ) async throws {
            let decided = await play.waitFor(timeout: 10) {
                $0.stdout.components(separatedBy: "\"interface\": \"\(orientation)\"").count > decisions
            }
            #expect(decided, "\(step): no decision to \(orientation)\n\(play.stdout)\n\(play.stderr)")
            let wanted = strategy == "interface" ? transform : "normal"
            // grim's picture cannot tell 90 from 270: wait for sway's transform and the pixels both.
            var shot = try sway.screenshot()
            var turned = try sway.transform()
            for _ in 0..<50 where !(turned == wanted && upright(shot, orientation, strategy: strategy, inline: inline))
            {
                try await Task.sleep(for: .milliseconds(100))
                shot = try sway.screenshot()
                turned = try sway.transform()
            }
            let shows = upright(shot, orientation, strategy: strategy, inline: inline)
            let kept = NSTemporaryDirectory() + "upright-e2e-\(strategy)-failed.png"
            if !shows {  // kept for a look
                _ = FileManager.default.createFile(atPath: kept, contents: Data(shot.png()))
            }
            #expect(shows, "\(step): the \(shot) (kept in \(kept)) does not show \(orientation)\n\(play.stderr)")
            #expect(turned == wanted, "\(step)")
        }

        #expect(
            await play.waitFor(timeout: 15) { _ in FileManager.default.fileExists(atPath: socket) }, "\(play.stderr)")
        try await expectScreen("portrait", transform: "normal", decisions: 0, inline: true, "start")
        try await ctl("fullscreen")
        try await expectScreen("landscape-right", transform: "90", decisions: 0, "full-screen hotkey")
        try fake.landscapeRight()  // right edge down: the interface turns to landscape-left
        try await expectScreen("landscape-left", transform: "270", decisions: 0, "device turned")
        try await ctl("lock")
        try fake.landscapeLeft()
        try await Task.sleep(for: .milliseconds(600))
        try await expectScreen("landscape-left", transform: "270", decisions: 0, "locked: the turn is ignored")
        try await ctl("unlock")
        try await expectScreen("landscape-right", transform: "90", decisions: 1, "unlocked: the device's landscape")

        play.stop()  // SIGTERM
        #expect(play.process.terminationStatus == 0, "\(play.stderr)")
        #expect(try sway.transform() == "normal", "SIGTERM puts the output back")
    }
}
