import OrientationCore
import Playback
import PropertyBased
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

    @Test func aWallTurnedOnItsMountIsAnotherGrid() {
        // Three landscape screens side by side, hung in landscape-left; the interface turned to
        // portrait (the wall turned a quarter counter-clockwise): the left screen is at the bottom
        // of a column of three, the bezels' shares swapped.
        let hung = WallTile(columns: 3, rows: 1, column: 0, row: 0, bezel: (0.05, 0), orientation: .landscapeLeft)
        let portrait = hung.seen(in: .portrait)
        #expect(portrait == WallTile(columns: 1, rows: 3, column: 0, row: 2, bezel: (0, 0.05), orientation: .portrait))
        // The other way (the wall turned clockwise): the left screen at the top.
        #expect(
            hung.seen(in: .portraitUpsideDown)
                == WallTile(columns: 1, rows: 3, column: 0, row: 0, bezel: (0, 0.05), orientation: .portraitUpsideDown))
        // A half turn: the left screen on the right.
        #expect(hung.seen(in: .landscapeRight).column == 2)
        #expect(hung.seen(in: .landscapeLeft) == hung)
    }

    @Test func everyTurnOfEveryWallGivesEachPlaceToOneScreen() async {
        let orientations = InterfaceOrientation.allCases
        await propertyCheck(
            count: 200, input: Gen.int(in: 1...5), Gen.int(in: 1...5), Gen.int(in: 0...3), Gen.int(in: 0...3)
        ) { columns, rows, hung, now in
            let tiles = (0..<columns).flatMap { c in
                (0..<rows).map { r in
                    WallTile(columns: columns, rows: rows, column: c, row: r, orientation: orientations[hung])
                }
            }
            let seen = tiles.map { $0.seen(in: orientations[now]) }
            let places = Set(seen.map { [$0.column, $0.row] })
            #expect(places.count == tiles.count)
            #expect(
                seen.allSatisfy { $0.columns * $0.rows == columns * rows && $0.column < $0.columns && $0.row < $0.rows }
            )
            // Turned there and back, each is as it was.
            #expect(zip(seen, tiles).allSatisfy { $0.seen(in: orientations[hung]) == $1 })
        }
    }

    @Test func aTurnedVideoHasItsPanTurnedWithIt() throws {
        // The right third of a 3 × 1 wall on a panel whose video turns 90° clockwise (surface
        // strategy): the panel is 360 × 640, the picture as mpv shows it 360 × 1920. In the
        // viewer's frame the picture moves left a third; on the panel, that is up.
        let tile = WallTile(columns: 3, rows: 1, column: 2, row: 0)
        let viewer = try #require(tile.placement(window: (640, 360), video: (1920, 360)))
        for (angle, pan) in [
            (0, (viewer.panX, viewer.panY)), (90, (0, -1.0 / 3)), (180, (1.0 / 3, 0)), (270, (0, 1.0 / 3)),
        ] {
            let turned = angle % 180 == 0
            let p = try #require(
                tile.placement(
                    window: turned ? (640, 360) : (360, 640), video: turned ? (1920, 360) : (360, 1920),
                    surfaceAngle: angle))
            #expect(abs(p.zoom - viewer.zoom) < 1e-9, "\(angle)")
            #expect(abs(p.panX - pan.0) < 1e-9 && abs(p.panY - pan.1) < 1e-9, "\(angle): \(p)")
        }
    }

    @Test func theCoreLaysTheTileOutAgainWhenTheInterfaceTurns() {
        var settings = PlayerSettings.folder()
        settings.wall = WallTile(columns: 3, rows: 1, column: 0, row: 0, orientation: .landscapeLeft)
        var d = Drive(settings, files: ["/d/1.png": "a"])
        d.send(.apply(.landscapeLeft, .interface, .inline))
        d.send(.mpv(.osdSize(width: 640, height: 360)))
        d.send(.mpv(.videoSize(width: 1920, height: 360)))
        #expect(d.commands.contains(.set("video-pan-x", .double(1.0 / 3))))
        // The wall turned to portrait (the outputs turned: the window is 360 × 640 now): the left
        // screen is at the bottom of a column of three, and the picture fits the column's width.
        d.commands = []
        d.send(.apply(.portrait, .interface, .inline))
        d.send(.mpv(.osdSize(width: 360, height: 640)))
        #expect(d.commands.contains(.set("video-pan-x", .double(0))))
        #expect(
            d.commands.contains {
                if case .set("video-pan-y", .double(let y)) = $0 { y < 0 } else { false }
            })
    }

    /// A wall's node loads each item to start paused at its first frame (its schedule starts
    /// it); the splash is not held.
    @Test func aWallsItemsStartHeldAtTheirFirstFrame() {
        var settings = PlayerSettings.folder(splash: "/s.png")
        settings.holdStarts = true
        var d = Drive(settings, files: ["/d/1.mp4": "a", "/d/2.png": "b"])
        d.send(.start)
        d.advance(1)
        let loads = d.commands.compactMap { c -> (String, [String])? in
            if case .load(let path, _, let options) = c { (path, options) } else { nil }
        }
        let held = Set(loads.filter { $0.1.contains("pause=yes") }.map(\.0))
        #expect(held == ["/d/1.mp4", "/d/2.png"], "\(loads)")
        #expect(loads.contains { $0.0 == "/s.png" }, "\(loads)")
        settings.holdStarts = false
        var plain = Drive(settings, files: ["/d/1.mp4": "a"])
        plain.send(.start)
        plain.advance(1)
        #expect(!plain.commands.contains { if case .load(_, _, let o) = $0 { o.contains("pause=yes") } else { false } })
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
