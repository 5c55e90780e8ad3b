import Display
import Foundation
import MPV
import OrientationCore
import Playback
import Player
import TestSupport
import Testing

/// Top half red, bottom half blue: which way is up shows in the pixels.
let upPattern = "av://lavfi:color=c=red:size=320x180:rate=25,drawbox=x=0:y=90:w=320:h=90:color=blue:t=fill"

func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.r > 180 && p.g < 80 && p.b < 80 }
func isBlue(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.b > 180 && p.r < 80 && p.g < 80 }

/// mpv with vo=wlshm on a real headless sway, screenshots by grim, for both strategies.
extension WaylandScreenTests {
    @Suite("The screen on a real headless sway", .serialized)
    struct ScreenTests {
        /// A player drawing into `sway` (libwayland takes an absolute socket path in `WAYLAND_DISPLAY`).
        func player(on sway: HeadlessSway) async throws -> Player {
            setenv("WAYLAND_DISPLAY", sway.wayland, 1)
            var settings = PlayerSettings()
            settings.playlist = [upPattern]
            // mpv's own log, for a failure's message (mpv has shut down by itself mid-turn, rarely).
            let log = [("log-file", sway.directory + "/mpv.log"), ("msg-level", "all=info,vo=v")]
            let player = try Player(settings: settings, extra: [("vo", "wlshm"), ("ao", "null"), ("fs", "yes")] + log)
            await player.start()
            await player.setLayout(.fullscreen)
            return player
        }

        /// Screenshots until `check` accepts one (at most `bound` seconds); the last one either way.
        func screenshot(_ sway: HeadlessSway, bound: Double = 5, until check: (Image) -> Bool) async throws -> (
            Image, Bool
        ) {
            var last = try sway.screenshot()
            for _ in 0..<Int(bound * 10) {
                if check(last) { return (last, true) }
                try await Task.sleep(for: .milliseconds(100))
                last = try sway.screenshot()
            }
            return (last, check(last))
        }

        @Test func interfaceStrategyTurnsTheOutputAndMPVLaysItselfOutAgain() async throws {
            let sway = try HeadlessSway()
            defer { sway.stop() }
            let player = try await player(on: sway)
            let display = DisplayController.forTest(.sway, directory: sway.directory, environment: sway.environment)
            #expect(await display.start() == .kiosk)
            var content = OverlayContent()
            content.clock = "12:00"
            content.title = "Status line"
            await player.setOverlays(content)
            /// Light text pixels in the band at the top of the logical screen, across its middle third.
            func statusLinePixels(_ s: Image) -> Int {
                var n = 0
                for y in 0..<min(60, s.height) {
                    for x in stride(from: s.width / 3, to: 2 * s.width / 3, by: 2) {
                        let p = s.rgb(x, y)
                        if p.r > 200, p.g > 200, p.b > 200 { n += 1 }
                    }
                }
                return n
            }
            for (o, transform) in [
                (InterfaceOrientation.landscapeRight, "90"), (.portraitUpsideDown, "180"), (.landscapeLeft, "270"),
                (.portrait, "normal"),
            ] {
                #expect(await display.apply(o) == nil)
                await player.apply(o, strategy: .interface)
                #expect(try sway.transform() == transform)
                // The logical screen is the viewer's: landscape is 1280×800, with the picture upright in it.
                let (w, h) = o.isLandscape ? (1280, 800) : (800, 1280)
                let (shot, ok) = try await screenshot(sway) {
                    $0.width == w && $0.height == h && isRed($0.rgb(w / 2, h / 2 - 120))
                        && isBlue($0.rgb(w / 2, h / 2 + 120)) && statusLinePixels($0) > 20
                }
                #expect(
                    ok,
                    "\(o): \(shot.width)x\(shot.height), \(shot.rgb(w / 2, h / 2 - 120)) / \(shot.rgb(w / 2, h / 2 + 120))\n\(mpvLogTail(sway))"
                )
                // mpv saw the new size and the overlays were laid out again for it: the status line is
                // centred at the top of the turned screen.
                #expect(statusLinePixels(shot) > 20, "\(o): no status line at the top")
                #expect(try await player.property(MPVProperty<Int64>("osd-width")) == Int64(w))
                #expect(try await player.property(.videoRotate) == 0)  // never a double rotation
            }
            await display.restore()
            #expect(try sway.transform() == "normal")
            _ = await player.shutdown()
        }

        @Test func surfaceStrategyTurnsOnlyTheVideo() async throws {
            let sway = try HeadlessSway()
            defer { sway.stop() }
            let player = try await player(on: sway)
            // Where the picture's top (red) and bottom (blue) fall on the untouched 800×1280 output.
            for (o, red, blue) in [
                (InterfaceOrientation.landscapeRight, (600, 640), (200, 640)),
                (.portraitUpsideDown, (400, 780), (400, 500)),
                (.landscapeLeft, (200, 640), (600, 640)), (.portrait, (400, 500), (400, 780)),
            ] {
                await player.apply(o, strategy: .surface)
                let (shot, ok) = try await screenshot(sway) {
                    isRed($0.rgb(red.0, red.1)) && isBlue($0.rgb(blue.0, blue.1))
                }
                #expect(ok, "\(o): \(shot.rgb(red.0, red.1)) / \(shot.rgb(blue.0, blue.1))")
                #expect(shot.width == 800 && shot.height == 1280)
                #expect(try sway.transform() == "normal")
            }
            _ = await player.shutdown()
        }

        /// libmpv 0.35 closes its display's socket, then wl_display_disconnect closes it again: the
        /// process's `close` holds libmpv's back, so the one close is libwayland's.
        @Test func libmpvsOwnCloseOfTheDisplaySocketIsHeldBack() async throws {
            #expect(MPVCloseGuard.installed, "libmpv's close calls must reach the guard")
            let sway = try HeadlessSway()
            defer { sway.stop() }
            // The player's mpv runs in a process of its own: the guard is for an mpv in this one.
            setenv("WAYLAND_DISPLAY", sway.wayland, 1)
            let mpv = try MPVHandle(
                options: [("vo", "wlshm"), ("ao", "null"), ("fs", "yes"), ("idle", "yes")], separateProcess: false)
            try mpv.command(["loadfile", upPattern])
            let (shot, drawn) = try await screenshot(sway) { isRed($0.rgb(400, 500)) }
            #expect(drawn, "\(shot.rgb(400, 500))")
            let before = MPVCloseGuard.held
            #expect(await mpv.shutdown())
            #expect(MPVCloseGuard.held > before)
        }

        @Test func theLayoutChangesWithoutAResize() async throws {
            let sway = try HeadlessSway()
            defer { sway.stop() }
            let player = try await player(on: sway)
            // Inline: the video in the upper 60 % of the portrait screen, black below.
            await player.setLayout(.inline)
            let (inline, inlineOK) = try await screenshot(sway) {
                isRed($0.rgb(400, 264)) && isBlue($0.rgb(400, 504)) && $0.rgb(400, 1000) == (0, 0, 0)
            }
            #expect(inlineOK, "inline: \(inline.rgb(400, 264)) \(inline.rgb(400, 504)) \(inline.rgb(400, 1000))")
            // Full screen with no output change and no turn of the video: mpv 0.35 with vo=wlshm lays
            // out new margins only at its next resize, which the player brings about (PlacementNudge).
            await player.setLayout(.fullscreen)
            let (full, fullOK) = try await screenshot(sway, bound: 1) {
                isRed($0.rgb(400, 520)) && isBlue($0.rgb(400, 760))
            }
            #expect(fullOK, "full screen: \(full.rgb(400, 520)) \(full.rgb(400, 760))")
            _ = await player.shutdown()
        }
    }
}

/// The last lines of the player's mpv log in `sway`'s directory, for a failure's message.
func mpvLogTail(_ sway: HeadlessSway, lines: Int = 25) -> String {
    let text = (try? String(contentsOfFile: sway.directory + "/mpv.log", encoding: .utf8)) ?? "(no mpv log)"
    return "mpv's log, last lines:\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
}
