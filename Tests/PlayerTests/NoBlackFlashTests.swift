import Foundation
import MPV
import Picture
import Player
import TestSupport
import Testing

/// Between items the last frame stays until the next item's first frame is ready: rendered through
/// libmpv's software render API (vo=libmpv) each time mpv presents a frame, across an image, a
/// video and another video, looped.
@Suite("No black flash between items", .serialized)
struct NoBlackFlashTests {
    @Test func noBlackFrameAcrossTenItemChanges() async throws {
        let dir = NSTemporaryDirectory() + "bf-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(Picture(width: 320, height: 240, fill: (255, 0, 0)).png()).write(
            to: URL(fileURLWithPath: dir + "/red.png"))
        var settings = PlayerSettings()
        settings.playlist = [
            dir + "/red.png", "av://lavfi:color=c=blue:size=320x240:rate=25:duration=0.8",
            "av://lavfi:color=c=green:size=320x240:rate=25:duration=0.8",
        ]
        settings.imageDuration = 0.6
        let player = try Player(settings: settings, extra: [("vo", "libmpv"), ("ao", "null")])
        let renderer = try MPVSoftwareRenderer(player.mpvHandle)
        try await player.start()
        var black = 0, frames = 0, changes = 0
        var last: String?
        // A loaded machine slows libmpv's render loop (vo=libmpv waits for the frames it renders).
        let end = Date().addingTimeInterval(60)
        while Date() < end, changes < 10 {
            try await Task.sleep(for: .milliseconds(5))
            // Frames as a screen shows them: each one mpv presents stays until the next.
            guard let f = try renderer.present(width: 160, height: 120) else { continue }
            let p = f.rgb(80, 60)
            let colour =
                p.r > 128
                ? "red" : p.b > 128 ? "blue" : p.g > 128 ? "green" : (max(p.r, p.g, p.b) < 24 ? "black" : "other")
            if colour == "black", last != nil { black += 1 }
            if colour != "black", let l = last, l != colour { changes += 1 }
            if colour != "black" { last = colour }
            frames += 1
        }
        renderer.close()
        _ = await player.shutdown()
        #expect(changes >= 10, "\(changes) item changes seen in \(frames) frames")
        // On a screen (mpv's GPU output on sway) there is none: NoBlackFlashOnScreenTests. Through
        // the render API mpv 0.35 presents one now and then when the picture format changes (a
        // video, then the image): it drops the frame it holds at the change, and the redraw this
        // output asks for at every item change then has nothing to draw. `make bench`: Upright 3
        // in 180 changes, plain libmpv 10.
        #expect(black <= 1, "\(black) black frames across \(changes) item changes (\(frames) frames)")
    }

    /// The splash is the first picture, stays until the first item's first frame, and is not
    /// shown again when the playlist loops.
    @Test func theSplashShowsBeforeTheFirstFrameAndNotAgain() async throws {
        let dir = NSTemporaryDirectory() + "splash-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(Picture(width: 320, height: 240, fill: (255, 255, 255)).png()).write(
            to: URL(fileURLWithPath: dir + "/splash.png"))
        var settings = PlayerSettings()
        settings.playlist = [
            "av://lavfi:color=c=blue:size=320x240:rate=25:duration=0.5",
            "av://lavfi:color=c=green:size=320x240:rate=25:duration=0.5",
        ]
        settings.splash = dir + "/splash.png"
        let player = try Player(settings: settings, extra: [("vo", "libmpv"), ("ao", "null")])
        let renderer = try MPVSoftwareRenderer(player.mpvHandle)
        try await player.start()
        var seen: [String] = []
        let end = Date().addingTimeInterval(60)
        while Date() < end, seen.filter({ $0 == "blue" }).count < 3 {
            try await Task.sleep(for: .milliseconds(5))
            guard let f = try renderer.present(width: 160, height: 120) else { continue }
            let p = f.rgb(80, 60)
            let colour =
                min(p.r, p.g, p.b) > 200
                ? "white" : p.b > 128 ? "blue" : p.g > 100 ? "green" : max(p.r, p.g, p.b) < 24 ? "black" : "other"
            if colour != "black", colour != seen.last { seen.append(colour) }
        }
        renderer.close()
        _ = await player.shutdown()
        #expect(seen.first == "white", "the first picture: \(seen)")
        #expect(seen.dropFirst().first == "blue", "after the splash: \(seen)")
        #expect(seen.filter { $0 == "white" }.count == 1, "the splash once, at the start: \(seen)")
        #expect(seen.filter { $0 == "blue" }.count == 3, "three rounds: \(seen)")
    }
}
