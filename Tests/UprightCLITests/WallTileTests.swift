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
                    [lock]
                    evdev = "none"
                    [player]
                    playlist = ["\(picture)"]
                    image_duration = 600
                    [player.mpv]
                    fullscreen = "yes"
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
}
