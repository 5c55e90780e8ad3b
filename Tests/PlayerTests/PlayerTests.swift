import Foundation
import MPV
import OrientationCore
import Playback
import Player
import Settings
import TestSupport
import Testing

let headless = [("vo", "null"), ("ao", "null")]

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
        await player.start()
        await player.apply(orientation, strategy: strategy)
        #expect(try await player.property(.videoRotate) == rotate)
        #expect(await player.surfaceAngle == Int(rotate))
        _ = await player.shutdown()
    }

    @Test func inlineKeepsTheLowerPartForTheOverlaysOnTheViewersBottom() async throws {
        var settings = PlayerSettings()
        settings.inlineBottomMargin = 0.4
        let player = try Player(settings: settings, extra: headless)
        await player.start()
        func margins() async throws -> [Double] {
            try await ["top", "bottom", "left", "right"].asyncMap { side in
                // mpv keeps these as floats: compare to three decimals.
                (try await player.property(MPVProperty<Double>("video-margin-ratio-\(side)")) * 1000).rounded() / 1000
            }
        }
        #expect(try await margins() == [0, 0.4, 0, 0])
        await player.apply(.portraitUpsideDown, strategy: .surface)
        #expect(try await margins() == [0.4, 0, 0, 0])  // the viewer's bottom is the panel's top
        await player.setLayout(.fullscreen)
        #expect(try await margins() == [0, 0, 0, 0])
        await player.apply(.landscapeRight, strategy: .interface)
        await player.setLayout(.inline)
        #expect(try await margins() == [0, 0, 0, 0])  // inline is a portrait layout
        _ = await player.shutdown()
    }

    @Test func hotkeysArriveAsActions() async throws {
        let player = try Player(settings: PlayerSettings(), extra: headless)
        await player.start()
        try await player.keypress("F11")
        #expect(await waitFor(player.events) { $0 == .hotkey(.fullscreen) } != nil)
        try await player.keypress("l")
        #expect(await waitFor(player.events) { $0 == .hotkey(.toggleLock) } != nil)
        _ = await player.shutdown()
    }

    @Test func aDoubleTapIsATapAndLinuxKeyNamesAreNotBoundInMpv() async throws {
        var settings = PlayerSettings()
        settings.hotkeys[.fullscreen] = ["F11", "KEY_F11", "MBTN_LEFT_DBL"]
        let player = try Player(settings: settings, extra: headless)
        await player.start()
        try await player.keypress("MBTN_LEFT_DBL")
        #expect(await waitFor(player.events) { $0 == .tap(.fullscreen) } != nil)
        try await player.keypress("F11")
        #expect(await waitFor(player.events) { $0 == .hotkey(.fullscreen) } != nil)
        _ = await player.shutdown()
    }

    @Test func aClipPlaysOnceAndTheLoopGoesOnWhereItWas() async throws {
        var settings = PlayerSettings()
        settings.playlist = ["av://lavfi:testsrc2=size=320x240:rate=25", "av://lavfi:color=blue:size=320x240:rate=25"]
        let player = try Player(settings: settings, extra: headless)
        await player.start()
        // The loop's first entry plays for a while.
        var position = 0.0
        for _ in 0..<100 where position < 1.5 {
            try await Task.sleep(for: .milliseconds(50))
            position = (try? await player.property(.timePosition)) ?? 0
        }
        #expect(position >= 1.5)
        let clip = "av://lavfi:color=red:size=240x320:rate=25:duration=0.8"
        await player.playClip(clip)
        let loop = settings.playlist[0]
        let toEnd = await waitFor(player.events) { $0 == .clipEnded }
        #expect(toEnd?.contains(.playing(clip)) == true, "\(toEnd ?? [])")
        #expect(await waitFor(player.events) { $0 == .playing(loop) } != nil)
        // Back at its position, not at its start, and the clip has left the playlist.
        try await Task.sleep(for: .milliseconds(200))
        let back = try await player.property(.timePosition)
        #expect(back >= position, "resumed at \(back) s; the clip started at \(position) s")
        #expect(try await player.property(.playlistCount) == 2)
        #expect(try await player.property(.playlistPosition) == 0)
        _ = await player.shutdown()
    }

    @Test func aMissingFileIsShownAndSkippedAndItsMessageGoesOnceTheNextPlays() async throws {
        var settings = PlayerSettings()
        settings.playlist = ["/nonexistent/clip.mp4", testPattern]
        settings.failureMessageTime = .seconds(2)
        let clock = TestClock()
        let player = try Player(settings: settings, extra: headless, clock: clock)
        await player.start()
        let seen = await waitFor(player.events) { if case .playing = $0 { true } else { false } }
        let why = "/nonexistent/clip.mp4: no such file or directory"
        #expect(
            seen?.contains(.fileFailed("/nonexistent/clip.mp4", reason: why)) == true, "\(String(describing: seen))")
        #expect(seen?.last == .playing(testPattern))
        #expect(await player.overlays.message == "Cannot play clip.mp4: \(why)")
        // It stays up for its time, the next file playing, then goes (the player's clock is the test's).
        await clock.advance(by: .seconds(1.9))
        #expect(await player.overlays.message != nil)
        await clock.advance(by: .seconds(0.2))
        var cleared = await player.overlays.message == nil
        for _ in 0..<100 where !cleared {  // the tick reaches the player's actor
            try await Task.sleep(for: .milliseconds(10))
            cleared = await player.overlays.message == nil
        }
        #expect(cleared)
        _ = await player.shutdown()
        #expect(await waitFor(player.events) { $0 == .shutdown } != nil)
    }

    @Test func aDirectoryOrAFileMpvCannotReadSaysWhy() throws {
        let directory = NSTemporaryDirectory() + "upright-why-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(Player.whyUnplayable(directory) == "\(directory) is a directory")
        #expect(
            Player.whyUnplayable("file://\(directory)/gone.mp4") == "\(directory)/gone.mp4: no such file or directory")
        let garbage = directory + "/garbage.mp4"
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect(Player.whyUnplayable(garbage) == nil)  // readable: mpv's own reason stands
        #expect(Player.whyUnplayable("https://example.com/clip.mp4") == nil)
    }

    @Test func failedFilesAreNamedByMpvsOwnEntryAfterAReload() async throws {
        let short = "av://lavfi:testsrc2=size=320x240:rate=25:duration=0.2"
        var settings = PlayerSettings()
        settings.playlist = [short, "/nonexistent/first.mp4"]
        settings.loop = false
        let player = try Player(settings: settings, extra: headless)
        await player.start()
        let first = await waitFor(player.events) { if case .fileFailed = $0 { true } else { false } }
        #expect(
            first?.last
                == .fileFailed("/nonexistent/first.mp4", reason: "/nonexistent/first.mp4: no such file or directory"))
        // mpv's entry ids go on counting after the playlist is replaced: the failing entry is id 3, which
        // is also a position in the new list (where `short` stands).
        await player.setPlaylist(["/nonexistent/second.mp4", short, short, short])
        let second = await waitFor(player.events) { if case .fileFailed = $0 { true } else { false } }
        #expect(
            second?.last
                == .fileFailed("/nonexistent/second.mp4", reason: "/nonexistent/second.mp4: no such file or directory"))
        _ = await player.shutdown()
    }

    @Test func overlaysAreAcceptedInEveryOrientationAndHiddenDuringATransition() async throws {
        let player = try Player(settings: PlayerSettings(), extra: headless)
        await player.start()
        var content = OverlayContent()
        content.clock = "12:00"
        content.title = "Loop"
        content.locked = true
        content.suggestion = .landscapeLeft
        await player.setOverlays(content)
        for o in InterfaceOrientation.allCases {
            await player.apply(o, strategy: .surface)
        }
        await player.setOverlaysHidden(true)
        await player.setOverlaysHidden(false)
        #expect(await player.overlays.statusLine == "12:00  ·  Loop  ·  rotation locked")
        _ = await player.shutdown()
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

/// Pixels of rendered frames through libmpv's software render API (vo=libmpv): the picture and the
/// status line turn with the surface in all four orientations.
@Suite("Player pixels", .serialized)
struct PlayerPixelTests {
    /// Top half red, bottom half blue: which way is up shows in the pixels.
    static let pattern = "av://lavfi:color=c=red:size=320x180:rate=25,drawbox=x=0:y=90:w=320:h=90:color=blue:t=fill"

    func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.r > 180 && p.g < 80 && p.b < 80 }
    func isBlue(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.b > 180 && p.r < 80 && p.g < 80 }
    func whiteCount(_ f: MPVFrame, xs: Range<Int>, ys: Range<Int>) -> Int {
        var n = 0
        for y in ys { for x in xs { let p = f.rgb(x, y); if p.r > 200 && p.g > 200 && p.b > 200 { n += 1 } } }
        return n
    }

    @Test(
        arguments: [
            (InterfaceOrientation.portrait, (160, 100), (160, 220)),
            (.landscapeRight, (220, 160), (100, 160)),  // turned 90° clockwise: the top (red) is on the right
            (.portraitUpsideDown, (160, 220), (160, 100)),
            (.landscapeLeft, (100, 160), (220, 160)),
        ] as [(InterfaceOrientation, (Int, Int), (Int, Int))])
    func theVideoAndItsStatusLineTurnTogether(orientation: InterfaceOrientation, red: (Int, Int), blue: (Int, Int))
        async throws
    {
        var settings = PlayerSettings()
        settings.playlist = [Self.pattern]
        let player = try Player(settings: settings, extra: [("vo", "libmpv"), ("ao", "null")])
        var content = OverlayContent()
        content.title = "UPRIGHT STATUS LINE"
        await player.setOverlays(content)
        await player.setLayout(.fullscreen)
        let renderer = try MPVSoftwareRenderer(player.mpvHandle)
        await player.start()
        await player.apply(orientation, strategy: .surface)
        var frame = try renderer.render(width: 320, height: 320)
        for _ in 0..<150 where !(isRed(frame.rgb(red.0, red.1)) && isBlue(frame.rgb(blue.0, blue.1))) {
            try await Task.sleep(for: .milliseconds(20))  // the first turned frame (bounded wait)
            await player.setOverlays(content)
            frame = try renderer.render(width: 320, height: 320)
        }
        if let dir = ProcessInfo.processInfo.environment["UPRIGHT_FRAMES"] {  // for a person to look at
            var ppm = Array("P6 320 320 255\n".utf8)
            for y in 0..<320 { for x in 0..<320 { let p = frame.rgb(x, y); ppm += [p.r, p.g, p.b] } }
            _ = FileManager.default.createFile(atPath: "\(dir)/frame-\(orientation).ppm", contents: Data(ppm))
        }
        #expect(isRed(frame.rgb(red.0, red.1)), "\(frame.rgb(red.0, red.1))")
        #expect(isBlue(frame.rgb(blue.0, blue.1)), "\(frame.rgb(blue.0, blue.1))")
        // The status line is at the viewer's top edge, whichever panel edge that is.
        let strip = 40
        let (top, bottom): (Int, Int) =
            switch orientation {
            case .portrait:
                (whiteCount(frame, xs: 0..<320, ys: 0..<strip), whiteCount(frame, xs: 0..<320, ys: (320 - strip)..<320))
            case .landscapeRight:
                (whiteCount(frame, xs: (320 - strip)..<320, ys: 0..<320), whiteCount(frame, xs: 0..<strip, ys: 0..<320))
            case .portraitUpsideDown:
                (whiteCount(frame, xs: 0..<320, ys: (320 - strip)..<320), whiteCount(frame, xs: 0..<320, ys: 0..<strip))
            case .landscapeLeft:
                (whiteCount(frame, xs: 0..<strip, ys: 0..<320), whiteCount(frame, xs: (320 - strip)..<320, ys: 0..<320))
            }
        #expect(top > 20, "status line pixels at the viewer's top: \(top)")
        #expect(bottom == 0, "status line pixels at the viewer's bottom: \(bottom)")
        renderer.close()  // the render context goes before the player quits
        _ = await player.shutdown()
    }
}

@Suite("Player layout pixels", .serialized)
struct PlayerLayoutPixelTests {
    @Test func inlineThenFullScreenThenInline() async throws {
        var settings = PlayerSettings()
        settings.playlist = [PlayerPixelTests.pattern]
        settings.inlineBottomMargin = 0.4
        let player = try Player(settings: settings, extra: [("vo", "libmpv"), ("ao", "null")])
        let renderer = try MPVSoftwareRenderer(player.mpvHandle)
        await player.start()
        func frame(until check: (MPVFrame) -> Bool) async throws -> MPVFrame {
            var f = try renderer.render(width: 320, height: 320)
            for _ in 0..<150 where !check(f) {  // bounded wait for the new layout's first frame
                try await Task.sleep(for: .milliseconds(20))
                f = try renderer.render(width: 320, height: 320)
            }
            return f
        }
        let t = PlayerPixelTests()
        // Inline: the video fills the upper 60 % (rows 0–192, the 180-row picture centred in it); below is free.
        var f = try await frame { t.isRed($0.rgb(160, 20)) }
        #expect(t.isRed(f.rgb(160, 20)) && t.isBlue(f.rgb(160, 180)))
        #expect(f.rgb(160, 260) == (0, 0, 0))
        // Full screen: centred in the whole screen (rows 70–250).
        await player.setLayout(.fullscreen)
        f = try await frame { t.isBlue($0.rgb(160, 240)) }
        #expect(t.isRed(f.rgb(160, 80)) && t.isBlue(f.rgb(160, 240)))
        #expect(f.rgb(160, 20) == (0, 0, 0))
        await player.setLayout(.inline)
        f = try await frame { t.isRed($0.rgb(160, 20)) }
        #expect(t.isRed(f.rgb(160, 20)))
        renderer.close()
        _ = await player.shutdown()
    }

    @Test func anEmptyPlaylistShowsTheTestPattern() async throws {
        let player = try Player(settings: PlayerSettings(), extra: [("vo", "null"), ("ao", "null")])
        await player.start()
        let seen = await waitFor(player.events) { if case .playing = $0 { true } else { false } }
        #expect(seen?.last == .playing(testPattern))
        _ = await player.shutdown()
    }

    @Test func mpvsYtdlHookIsOffUnlessThePlayersMpvTableTurnsItOn() async throws {
        let plain = try Player(settings: PlayerSettings(), extra: headless)
        #expect(plain.mpvHandle.string("ytdl") == "no")
        _ = await plain.shutdown()
        var settings = PlayerSettings()
        settings.mpv["ytdl"] = "yes"
        let asked = try Player(settings: settings, extra: headless)
        #expect(asked.mpvHandle.string("ytdl") == "yes")
        _ = await asked.shutdown()
    }
}

@Suite("mpv key names")
struct KeyNameTests {
    @Test func theTableIsLibmpvsOwnList() throws {
        let mpv = try MPVHandle(options: [("vo", "null"), ("ao", "null")])
        defer { mpv.quit() }
        let list = try #require(mpv.string("input-key-list"))
        #expect(Set(list.split(separator: ",").map(String.init)) == KeyNames.special)
    }

    @Test(arguments: ["f", "F11", "enter", "Ctrl+f", "ctrl+Shift+KP_ENTER", "+", "Shift++", "0x41", "é", "PLAYPAUSE"])
    func keysMpvTakes(key: String) throws {
        #expect(KeyNames.problem(with: key) == nil)
        // mpv agrees.
        let mpv = try MPVHandle(options: [("vo", "null"), ("ao", "null")])
        defer { mpv.quit() }
        try mpv.command(["keybind", key, "ignore"])
    }

    @Test(arguments: ["", "ctrl+", "notakey", "Hyper+x", "F25"])
    func keysMpvRefuses(key: String) throws {
        #expect(KeyNames.problem(with: key) != nil)
        let mpv = try MPVHandle(options: [("vo", "null"), ("ao", "null")])
        defer { mpv.quit() }
        #expect(throws: MPVError.self) { try mpv.command(["keybind", key, "ignore"]) }
    }
}
