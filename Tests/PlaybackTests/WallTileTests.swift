import Playback
import Testing

@Suite struct WallTileValueTests {
    @Test func eachScreenOfALandscapeWallShowsItsThird() throws {
        // Three 1920×1080 screens, a 5760×1080 picture: three times the one screen's fit.
        for (column, pan) in [(0, 1.0 / 3), (1, 0.0), (2, -1.0 / 3)] {
            let tile = WallTile(columns: 3, rows: 1, column: column, row: 0)
            let p = try #require(tile.placement(window: (1920, 1080), video: (5760, 1080)))
            #expect(abs(p.zoom - 1.584_962_500_721_156) < 1e-9)
            #expect(abs(p.panX - pan) < 1e-9 && p.panY == 0)
        }
        // Bezels: 5 % of a screen behind each, so the picture spans 3.1 screens; screen 0's centre
        // is 0.5 screens from the wall's left, 1.05 screens left of its centre.
        let bezel = WallTile(columns: 3, rows: 1, column: 0, row: 0, bezel: (0.05, 0))
        let p = try #require(bezel.placement(window: (1920, 1080), video: (5952, 1080)))
        #expect(abs(p.panX - 1.05 / 3.1) < 1e-9)
        #expect(bezel.placement(window: (0, 0), video: (10, 10)) == nil)
    }

    @Test func aPictureOfAnotherShapeIsFittedToTheWholeWall() throws {
        // A 16:9 picture on a 2×2 wall of 16:9 screens: twice the one screen's fit, quarters.
        let tile = WallTile(columns: 2, rows: 2, column: 1, row: 1)
        let p = try #require(tile.placement(window: (1280, 720), video: (1920, 1080)))
        #expect(abs(p.zoom - 1) < 1e-9)
        #expect(abs(p.panX - -0.25) < 1e-9 && abs(p.panY - -0.25) < 1e-9)
        // A square picture on a 3×1 wall: as high as the wall, letterboxed across it; the middle
        // screen shows its centre.
        let middle = WallTile(columns: 3, rows: 1, column: 1, row: 0)
        let m = try #require(middle.placement(window: (640, 360), video: (1000, 1000)))
        #expect(abs(m.zoom) < 1e-9 && m.panX == 0)
    }

    @Test func theCoreLaysTheTileOutOnceTheWindowAndThePictureAreKnown() {
        var settings = PlayerSettings.folder()
        settings.wall = WallTile(columns: 3, rows: 1, column: 2, row: 0)
        var d = Drive(settings, files: ["/d/1.png": "a"])
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        #expect(!d.commands.contains { if case .set("video-zoom", _) = $0 { true } else { false } })
        d.send(.mpv(.videoSize(width: 1920, height: 360)))
        #expect(d.commands.contains(.set("video-pan-x", .double(-1.0 / 3))))
        #expect(d.commands.contains(.set("video-pan-y", .double(0))))
        // No margin below a wall's tile, portrait or not.
        #expect(
            !d.commands.contains {
                if case .set(let name, .double(let v)) = $0 { name.hasPrefix("video-margin") && v > 0 } else { false }
            })
    }
}
