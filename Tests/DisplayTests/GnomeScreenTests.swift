import Display
import Foundation
import MPV
import OrientationCore
import Playback
import Player
import TestSupport
import Testing

/// mpv (vo=wlshm) in a real headless mutter, the output turned through DisplayConfig. mutter has
/// no screencopy: the turn is read back with GetCurrentState, and mpv's relayout from its OSD size.
extension WaylandScreenTests {
    @Suite("The screen on a real headless GNOME", .serialized)
    struct GnomeScreenTests {
        @Test func eachOrientationTurnsTheMonitorAndMpvLaysItselfOutAgain() async throws {
            let gnome = try await HeadlessDesktop.start(.gnome)
            defer { gnome.stop() }
            setenv("WAYLAND_DISPLAY", gnome.environment["XDG_RUNTIME_DIR"]! + "/wayland-0", 1)
            var playerSettings = PlayerSettings()
            playerSettings.playlist = [upPattern]
            let player = try Player(settings: playerSettings, extra: [("vo", "wlshm"), ("ao", "null"), ("fs", "yes")])
            await player.start()
            await player.setLayout(.fullscreen)
            let display = DisplayController.forTest(.gnome, directory: gnome.directory, environment: gnome.environment)
            #expect(await display.start() == .kiosk)
            for (o, mutter) in [
                (InterfaceOrientation.landscapeRight, 3), (.portraitUpsideDown, 2), (.landscapeLeft, 1), (.portrait, 0),
            ] {
                #expect(await display.apply(o) == nil)
                await player.apply(o, strategy: .interface)
                #expect(try gnome.transform() == mutter, "\(o)")
                // mpv saw the turned size: its OSD is the viewer's screen.
                let w: Int64 = o.isLandscape ? 1280 : 800
                var osd: Int64 = 0
                for _ in 0..<50 where osd != w {
                    try await Task.sleep(for: .milliseconds(100))
                    osd = (try? await player.property(MPVProperty<Int64>("osd-width"))) ?? 0
                }
                #expect(osd == w, "\(o): osd-width \(osd)")
            }
            #expect(await display.apply(.landscapeLeft) == nil)
            await display.restore()
            #expect(try gnome.transform() == 0)
            _ = await player.shutdown()
        }

        @Test func theScreenIsSwitchedOffAndOnThroughPowerSaveMode() async throws {
            let gnome = try await HeadlessDesktop.start(.gnome)
            defer { gnome.stop() }
            let display = DisplayController.forTest(.gnome, directory: gnome.directory, environment: gnome.environment)
            _ = await display.start()
            #expect(try gnome.powerSaveMode() == 0)
            #expect(await display.setPower(false) == nil)
            #expect(try gnome.powerSaveMode() == 3)
            #expect(await display.setPower(true) == nil)
            #expect(try gnome.powerSaveMode() == 0)
        }

        @Test func aMonitorBesideItKeepsItsConfigurationAndStaysAdjacent() async throws {
            let gnome = try await HeadlessDesktop.start(.gnome, mode: "800x1280,1024x768")
            defer { gnome.stop() }
            #expect(try gnome.logicalMonitor(of: "Meta-1") == (800, 0, 0))
            let display = DisplayController.forTest(
                .gnome, directory: gnome.directory, environment: gnome.environment, output: "Meta-0")
            #expect(await display.start() == .kiosk)
            #expect(await display.apply(.landscapeRight) == nil)
            #expect(try gnome.logicalMonitor(of: "Meta-0") == (0, 0, 3))
            // Meta-0 is 1280 wide now: Meta-1 moves along its right edge, unturned, in its mode.
            #expect(try gnome.logicalMonitor(of: "Meta-1") == (1280, 0, 0))
            await display.restore()
            #expect(try gnome.logicalMonitor(of: "Meta-0") == (0, 0, 0))
            #expect(try gnome.logicalMonitor(of: "Meta-1") == (800, 0, 0))
        }
    }
}
