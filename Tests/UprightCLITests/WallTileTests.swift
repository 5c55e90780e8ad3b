import Foundation
import Glibc
import Picture
import TestSupport
import Testing

/// `[wall]` tiles on a real headless sway, judged by grim's screenshots: a picture whose red grows
/// from 0 at its left edge to 255 at its right, as wide as a wall of three screens with their
/// bezels; each screen must show its third, what lies behind the bezels cut out.
@Suite("A video wall's tiles", .serialized)
struct WallTileTests {
    /// A PNG of `width` × `height` whose red is 255 × x / width (and green 255 × y / height).
    static func gradient(_ path: String, width: Int, height: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=black:s=\(width)x\(height)", "-vf",
            "geq=r='X*255/W':g='Y*255/H':b=0,format=rgb24", "-frames:v", "1", path,
        ]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("ffmpeg could not make \(path)") }
    }

    /// The configuration's part that shows `picture` full screen, for ten minutes.
    static func showing(_ picture: String) -> String {
        """
        [lock]
        evdev = "none"
        [player]
        playlist = ["\(picture)"]
        image_duration = 600
        [player.mpv]
        fullscreen = "yes"
        """
    }

    /// Each of three screens of `mode`, as `extra` configures it (turned or not), showing its tile
    /// of a picture as wide as the wall (screens of `screen` logical pixels, `bezel` between them):
    /// the red at its left and right edges, mid-height, beside what the geometry says.
    static func tiles(mode: String, screen: (width: Int, height: Int), bezel: Double, extra: String) async throws {
        let wallWidth = Int((Double(screen.width) * (3 + 2 * bezel)).rounded())
        for column in 0..<3 {
            let sway = try HeadlessSway(mode: mode)
            defer { sway.stop() }
            let picture = sway.directory + "/wall.png"
            try gradient(picture, width: wallWidth, height: screen.height)
            let (play, _) = try CompositorTests.play(
                beside: sway,
                config: """
                    \(Self.showing(picture))
                    \(extra)
                    [wall]
                    columns = 3
                    rows = 1
                    column = \(column)
                    row = 0
                    bezel = [\(bezel), 0.0]
                    """, vo: "wlshm")
            defer { play.process.send(SIGKILL) }
            #expect(await play.waitFor("playing "), "\(play.stderr)")
            // Where this screen's edges lie in the picture, in red.
            let left = Double(column) * Double(screen.width) * (1 + bezel)
            let expected = (
                left: 255 * left / Double(wallWidth), right: 255 * (left + Double(screen.width)) / Double(wallWidth)
            )
            var seen: (Int, Int, Int, Int)?
            let placed = await CompositorTests.eventually(10) {
                let shot = try sway.screenshot()
                seen = (shot.width, shot.height, -1, -1)
                guard shot.width == screen.width, shot.height == screen.height else { return false }
                let y = shot.height / 2
                let l = Int(shot.rgb(1, y).r), r = Int(shot.rgb(shot.width - 2, y).r)
                seen = (shot.width, shot.height, l, r)
                return abs(Double(l) - expected.left) <= 4 && abs(Double(r) - expected.right) <= 4
            }
            #expect(
                placed,
                "column \(column): screen, left and right red \(String(describing: seen)), expected \(expected)\n\((try? sway.transform()) ?? "?")\n\(play.stderr)"
            )
        }
    }

    @Test func aLandscapeWallOfThreeScreensEachShowsItsThirdWithTheBezelsCut() async throws {
        try await Self.tiles(mode: "640x360", screen: (640, 360), bezel: 0.05, extra: "")
    }

    @Test func aPortraitWallOfTurnedScreensEachShowsItsThird() async throws {
        // Landscape panels turned to portrait by the compositor: the tile is cut as a viewer sees
        // the wall.
        try await Self.tiles(
            mode: "640x360", screen: (360, 640), bezel: 0.05,
            extra: """
                [app]
                launch = "portrait"
                [display]
                kiosk = true
                natural = "landscape-left"
                """)
    }

    /// A wall on a swivel mount: three landscape screens side by side (each on its own headless
    /// sway, its own `upright play`, one broker), the first with an accelerometer (a fake sysfs
    /// tree read by the real libiio). The mount turned to portrait: every screen's output turns
    /// and each shows its third of a picture made for the column of three the wall became, the
    /// left screen at the bottom; the others say whose sensor turned them.
    @Test func aTurnOfTheGroupsAccelerometerReLaysAllThreeTiles() async throws {
        let dir = NSTemporaryDirectory() + "wall-turn-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let broker = try MQTTTests.broker(port: port, directory: dir)
        defer { broker.stop() }
        // The column of three 360 × 640 screens, 5 % of a screen's height behind each bezel.
        let (width, height, gap) = (360, 640, 32)
        let picture = dir + "/column.png"
        try Self.gradient(picture, width: width, height: 3 * height + 2 * gap)
        let fake = try FakeIIO()
        try fake.landscapeRight()  // the interface landscape-left: the panels as they are
        var sways: [HeadlessSway] = []
        var nodes: [(SignalTests.Play, String)] = []
        defer {
            for (play, _) in nodes { play.process.send(SIGKILL) }
            for sway in sways { sway.stop() }
        }
        for column in 0..<3 {
            let sway = try HeadlessSway(mode: "640x360")
            sways.append(sway)
            let node = try CompositorTests.play(
                beside: sway,
                config: """
                    [app]
                    supported = ["portrait", "landscape-left", "landscape-right"]
                    launch = "landscape-left"
                    [display]
                    kiosk = true
                    natural = "landscape-left"
                    [scenes.idle]
                    supported = ["portrait", "landscape-left"]
                    autorotate = true
                    [scenes.inline]
                    supported = ["portrait", "landscape-left"]
                    autorotate = true
                    \(Self.showing(picture))
                    [mqtt]
                    url = "mqtt://127.0.0.1:\(port)"
                    device = "wall-\(column)"
                    discovery = false
                    screenshot_interval = 0
                    [sync]
                    group = "swivel"
                    [wall]
                    columns = 3
                    column = \(column)
                    bezel = [0.05, 0.0]
                    """, vo: "wlshm", uri: column == 0 ? "local:" : "none", launcher: column == 0 ? fake.namespace : [])
            nodes.append(node)
        }
        for (play, _) in nodes { #expect(await play.waitFor("playing "), "\(play.stderr)") }
        // As hung: a 3 × 1 wall, the picture (made for the column) a narrow strip down the middle
        // of the middle screen; the sides show none of it.
        for (column, sway) in sways.enumerated() {
            let asHung = await CompositorTests.eventually(15) {
                let shot = try sway.screenshot()
                guard shot.width == 640, shot.height == 360 else { return false }
                let centre = shot.rgb(320, 180)
                return column == 1 ? centre.g > 100 && centre.g < 156 : centre.r < 20 && centre.g < 20
            }
            #expect(
                asHung,
                "screen \(column) as hung: \((try? sway.screenshot()).map { "\($0.width)x\($0.height) \($0.rgb(320, 180))" } ?? "none")"
            )
        }
        try fake.portrait()
        // Turned a quarter counter-clockwise: screen c is row 2 − c of the column.
        for (column, sway) in sways.enumerated() {
            let top = Double((2 - column) * (height + gap))
            let total = Double(3 * height + 2 * gap)
            let expected = (top: 255 * top / total, bottom: 255 * (top + Double(height)) / total)
            var seen = "none"
            let turned = await CompositorTests.eventually(15) {
                let shot = try sway.screenshot()
                seen = "\(shot.width)x\(shot.height)"
                guard shot.width == width, shot.height == height else { return false }
                let (t, b) = (shot.rgb(width / 2, 1), shot.rgb(width / 2, height - 2))
                let (l, r) = (shot.rgb(1, height / 2), shot.rgb(width - 2, height / 2))
                seen += " top \(t) bottom \(b) left \(l) right \(r)"
                return abs(Double(t.g) - expected.top) <= 6 && abs(Double(b.g) - expected.bottom) <= 6 && l.r < 8
                    && r.r > 247
            }
            #expect(
                turned,
                "screen \(column) turned: \(seen), expected green \(expected)\n\(nodes[column].0.stderr.suffix(2000))")
        }
        let status = try await SyncGroupTests.sync(nodes[2].1)
        #expect(status["orientation"] as? String == "portrait (wall-0)", "\(status)")
    }
}
