import OrientationCore
import Playback
import Testing

/// The touch check's rules in the player's core, at explicit times: targets drawn where the
/// viewer sees the picture's corners, taps at mpv's window points judged, the tap bound to the
/// check only while it runs.
@Suite("The touch check in the player")
struct TouchCheckCoreTests {
    static let bound = MPVCommand.command(["keybind", "MBTN_LEFT", "script-message upright-touch"])
    static let unbound = MPVCommand.command(["keybind", "MBTN_LEFT", "ignore"])

    /// A player showing `o` by `strategy` on a 1280×720 window, its first item on screen.
    static func drive(_ o: InterfaceOrientation, _ strategy: AppliedStrategy, settings: PlayerSettings = .folder())
        -> Drive
    {
        var d = Drive(settings, files: PlaybackCoreTests.two)
        d.mpv.itemTime = 10_000  // one item on screen throughout: its start holds no overlay back
        d.send(.start)
        d.advance(1)
        d.send(.mpv(.osdSize(width: 1280, height: 720)))
        d.send(.apply(o, strategy, nil))
        d.advance(1.5)  // the item's first frame: the overlays are drawn
        return d
    }

    /// The window's point (mpv's `mouse-pos`) of a point of the picture as the viewer sees it.
    static func window(_ p: TouchCalibration.Point, _ l: OverlayLayout) -> (x: Double, y: Double) {
        let v = l.viewerSize
        return l.toPanel(x: p.x * Double(v.width), y: p.y * Double(v.height))
    }

    /// The touch level's last text sent to mpv.
    static func touchText(_ d: Drive) -> String? {
        d.overlayCommands.last { $0.count > 3 && $0[1] == "40" }.map { $0[2] == "none" ? "" : $0[3] }
    }

    @Test(arguments: InterfaceOrientation.allCases, [AppliedStrategy.surface, .interface])
    func tapsOnEachCrossAreHitsInEveryOrientationAndStrategy(o: InterfaceOrientation, strategy: AppliedStrategy) throws
    {
        var d = Self.drive(o, strategy)
        d.send(.touchCheck(.start))
        #expect(d.commands.contains(Self.bound))
        let layout = OverlayLayout(width: 1280, height: 720, angle: strategy == .surface ? o.angle : 0)
        for (n, target) in TouchCalibration.targets.enumerated() {
            let p = Self.window(target, layout)
            let drawn = Self.touchText(d)
            let text = try #require(drawn)
            #expect(text.contains("\\pos(\(Int(p.x.rounded())),\(Int(p.y.rounded())))"), "the cross at \(p): \(text)")
            #expect(text.contains("target \(n + 1) of 5"), "\(text)")
            d.send(.mpv(.touched(x: p.x + 3, y: p.y - 4)))
        }
        let report = try #require(d.core.touchCheckReport)
        #expect(!report.running && report.state == "done: 5 of 5 hits", "\(report)")
        #expect(report.taps.allSatisfy { $0.hit && abs(($0.dx * $0.dx + $0.dy * $0.dy).squareRoot() - 5) < 1e-9 })
        #expect(report.angle == layout.angle)
        #expect(
            d.commands.last { if case .command(let w) = $0 { w.first == "keybind" } else { false } } == Self.unbound)
    }

    /// A touchscreen mirrored across: every corner missed by the picture's width less its insets,
    /// said in words; only the centre is a hit.
    @Test func aMirroredTouchscreenIsMissedAndTheMissesAreNamed() throws {
        var d = Self.drive(.landscapeRight, .surface)
        let layout = OverlayLayout(width: 1280, height: 720, angle: 90)
        d.send(.touchCheck(.start))
        for target in TouchCalibration.targets {
            let p = Self.window(target, layout)
            d.send(.mpv(.touched(x: 1280 - p.x, y: p.y)))
        }
        let report = try #require(d.core.touchCheckReport)
        #expect(report.state == "done: 1 of 5 hits")
        #expect(report.width == 720 && report.height == 1280, "the picture as the viewer sees it")
        let first = report.taps[0]
        #expect(!first.hit && abs(first.dy - 0.8 * 1280) < 1e-9 && abs(first.dx) < 1e-9, "\(first)")
        #expect(
            PlaybackCore.tapWords(dx: first.dx, dy: first.dy, hit: first.hit)
                == "missed by 1024 px: 0 px right, 1024 px down")
    }

    @Test func aForgottenCheckEndsAndItsResultLeavesTheScreen() throws {
        var d = Self.drive(.portrait, .interface)
        d.send(.touchCheck(.start))
        d.send(.mpv(.touched(x: 128, y: 72)))
        d.advance(59)
        #expect(d.core.touchCheckReport?.running == true, "a minute from the last tap")
        d.advance(1.5)
        let report = try #require(d.core.touchCheckReport)
        #expect(!report.running && report.state == "ended: no tap for 60 s" && report.taps.count == 1)
        #expect(Self.touchText(d)?.contains("ended: no tap for 60 s") == true)
        d.advance(10.5)
        #expect(Self.touchText(d) == "", "the result shown for 10 s")
        #expect(d.core.touchCheckReport?.state == "ended: no tap for 60 s", "the report stays")
        // Stopped, and a turn under way starts it again.
        d.send(.touchCheck(.start))
        d.send(.touchCheck(.stop))
        #expect(d.core.touchCheckReport?.state == "stopped after 0 of 5 taps")
        d.send(.touchCheck(.start))
        d.send(.mpv(.touched(x: 128, y: 72)))
        d.send(.apply(.landscapeLeft, .surface, nil))
        d.send(.mpv(.touched(x: 128, y: 72)))
        #expect(d.core.touchCheckReport?.taps.count == 0 && d.core.touchCheckReport?.running == true)
        #expect(Self.touchText(d)?.contains("the picture turned: the check starts again") == true)
    }

    @Test func aTapBoundToAnActionIsBoundBackAfterTheCheck() {
        var settings = PlayerSettings.folder()
        settings.hotkeys[.next] = ["MBTN_LEFT"]
        var d = Self.drive(.portrait, .interface, settings: settings)
        d.send(.touchCheck(.start))
        d.send(.touchCheck(.stop))
        let bindings = d.commands.filter { if case .command(let w) = $0 { w.first == "keybind" } else { false } }
        #expect(bindings == [Self.bound, .command(["keybind", "MBTN_LEFT", "script-message upright-tap next"])])
        // A tap with no check running is nothing to the core.
        #expect(d.core.handle(.mpv(.touched(x: 1, y: 1)), at: d.t).isEmpty)
    }
}
