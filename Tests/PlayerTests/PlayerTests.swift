import MPV
import OrientationCore
import Player
import Testing

let headless = [("vo", "null"), ("ao", "null")]

/// The next event `match` accepts, within `seconds` (a bound, so a broken player fails instead of hanging).
func next(_ player: Player, seconds: Double = 10, _ match: @escaping @Sendable (PlayerEvent) -> Bool) async
    -> [PlayerEvent]?
{
    await withTaskGroup(of: [PlayerEvent]?.self) { group in
        group.addTask {
            var seen: [PlayerEvent] = []
            for await e in player.events {
                seen.append(e)
                if match(e) { return seen }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

@Suite("Player with the real libmpv", .serialized)
struct PlayerTests {
    @Test(arguments: [
        (InterfaceOrientation.portrait, AppliedStrategy.surface, Int64(0)), (.landscapeRight, .surface, 90),
        (.portraitUpsideDown, .surface, 180), (.landscapeLeft, .surface, 270),
        (.landscapeRight, .interface, 0), (.landscapeLeft, .interface, 0),
    ])
    func surfaceRotationNeverDoubles(orientation: InterfaceOrientation, strategy: AppliedStrategy, rotate: Int64)
        async throws
    {
        let player = try Player(settings: PlayerSettings(), extra: headless)
        try await player.start()
        try await player.apply(orientation, strategy: strategy)
        #expect(try await player.property(.videoRotate) == rotate)
        #expect(await player.surfaceAngle == Int(rotate))
        await player.quit()
    }

    @Test func inlineKeepsTheLowerPartForTheOverlaysOnTheViewersBottom() async throws {
        var settings = PlayerSettings()
        settings.inlineBottomMargin = 0.4
        let player = try Player(settings: settings, extra: headless)
        try await player.start()
        func margins() async throws -> [Double] {
            try await ["top", "bottom", "left", "right"].asyncMap { side in
                // mpv keeps these as floats: compare to three decimals.
                (try await player.property(MPVProperty<Double>("video-margin-ratio-\(side)")) * 1000).rounded() / 1000
            }
        }
        #expect(try await margins() == [0, 0.4, 0, 0])
        try await player.apply(.portraitUpsideDown, strategy: .surface)
        #expect(try await margins() == [0.4, 0, 0, 0])  // the viewer's bottom is the panel's top
        try await player.setLayout(.fullscreen)
        #expect(try await margins() == [0, 0, 0, 0])
        try await player.apply(.landscapeRight, strategy: .interface)
        try await player.setLayout(.inline)
        #expect(try await margins() == [0, 0, 0, 0])  // inline is a portrait layout
        await player.quit()
    }

    @Test func hotkeysArriveAsActions() async throws {
        let player = try Player(settings: PlayerSettings(), extra: headless)
        try await player.start()
        try await player.keypress("F11")
        #expect(await next(player) { $0 == .hotkey("fullscreen") } != nil)
        try await player.keypress("l")
        #expect(await next(player) { $0 == .hotkey("lock") } != nil)
        await player.quit()
    }

    @Test func aMissingFileIsShownAndSkipped() async throws {
        var settings = PlayerSettings()
        settings.playlist = ["/nonexistent/clip.mp4", testPattern]
        let player = try Player(settings: settings, extra: headless)
        try await player.start()
        let seen = await next(player) { if case .playing = $0 { true } else { false } }
        #expect(
            seen?.contains(.fileFailed("/nonexistent/clip.mp4", reason: "loading failed")) == true,
            "\(String(describing: seen))")
        #expect(seen?.last == .playing(testPattern))
        #expect(await player.overlays.message == "Cannot play clip.mp4: loading failed")
        await player.quit()
        #expect(await next(player) { $0 == .shutdown } != nil)
    }

    @Test func overlaysAreAcceptedInEveryOrientationAndHiddenDuringATransition() async throws {
        let player = try Player(settings: PlayerSettings(), extra: headless)
        try await player.start()
        var content = OverlayContent()
        content.clock = "12:00"
        content.title = "Loop"
        content.locked = true
        content.suggestion = .landscapeLeft
        try await player.setOverlays(content)
        for o in InterfaceOrientation.allCases {
            try await player.apply(o, strategy: .surface)
        }
        try await player.setOverlaysHidden(true)
        try await player.setOverlaysHidden(false)
        #expect(await player.overlays.statusLine == "12:00  ·  Loop  ·  rotation locked")
        await player.quit()
    }
}

@Suite("Overlay layout")
struct OverlayLayoutTests {
    @Test(
        arguments: [
            (0, (10.0, 20.0), (10.0, 20.0)), (90, (10, 20), (1260, 10)), (180, (10, 20), (1270, 700)),
            (270, (10, 20), (20, 710)),
        ] as [(Int, (Double, Double), (Double, Double))])
    func viewerPointsMapToThePanel(angle: Int, viewer: (Double, Double), panel: (Double, Double)) {
        let l = OverlayLayout(width: 1280, height: 720, angle: angle)
        let p = l.toPanel(x: viewer.0, y: viewer.1)
        #expect(p.x == panel.0 && p.y == panel.1)
        #expect(l.viewerSize.width == (angle % 180 == 0 ? 1280 : 720))
    }

    @Test func textIsTurnedToReadUprightAndEscaped() {
        let l = OverlayLayout(width: 1280, height: 720, angle: 90)
        #expect(
            l.text("a{b}\\c", x: 360, y: 30, size: 30) == "{\\an5\\pos(1250,360)\\frz-90\\fs30\\bord2}a\\{b\\}\\\\c")
        #expect(OverlayLayout(width: 0, height: 0, angle: -90).angle == 270)
    }
}

extension Array {
    func asyncMap<T>(_ f: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await f(e)) }
        return out
    }
}
