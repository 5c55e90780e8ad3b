import Foundation
import Glibc
import Picture
import TestSupport
import Testing

/// What the screen shows between items: the real `upright play` with mpv's GPU video output on a
/// real headless sway, recorded by wf-recorder (screencopy of each frame the compositor makes for
/// the changed region: about 44 a round here, for 40 video frames and the image).
///
/// The same recording with a 0.1 s black clip added to the playlist counts its frames (12 over
/// 4 rounds): a black frame on the screen is seen.
@Suite("No black flash on a real screen", .serialized)
struct NoBlackFlashOnScreenTests {
    @Test func noBlackFrameOnTheScreenAcrossTenItemChanges() async throws {
        let sway = try HeadlessSway(mode: "320x240")  // small: mpv draws it with a software OpenGL
        defer { sway.stop() }
        let image = sway.directory + "/red.png"
        try Data(Picture(width: 320, height: 240, fill: (255, 0, 0)).png()).write(to: URL(fileURLWithPath: image))
        let config = sway.directory + "/upright.toml"
        try """
        [sensor]
        uri = "none"
        [player]
        playlist = ["\(image)", "av://lavfi:color=c=blue:size=320x240:rate=25:duration=0.8",
                    "av://lavfi:color=c=green:size=320x240:rate=25:duration=0.8"]
        image_duration = 0.6
        [player.mpv]
        vo = "gpu"
        gpu-context = "wayland"
        ao = "null"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "UPRIGHT_CONTROL"] { environment[name] = nil }
        environment.merge(sway.environment) { $1 }
        let play = try SignalTests.Play(["--config", config, "--no-control"], environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playing av://lavfi:color=c=green", seconds: 20), "\(play.stderr)")

        let frames = try await sway.recordCentre(x: 150, y: 110, width: 20, height: 20, seconds: 14)
        var colours: [String] = []
        var black = 0
        for p in frames {
            let c =
                p.r > 128
                ? "red" : p.b > 128 ? "blue" : p.g > 40 ? "green" : max(p.r, p.g, p.b) < 24 ? "black" : "other"
            if c == "black" { black += 1 }
            if colours.last != c { colours.append(c) }
        }
        let changes = colours.count - 1
        #expect(changes >= 10, "\(changes) changes in \(frames.count) frames: \(colours)")
        #expect(black == 0, "\(black) black frames in \(frames.count), across \(changes) changes: \(colours)")
        #expect(!colours.contains("other"), "\(colours)")
    }
}
