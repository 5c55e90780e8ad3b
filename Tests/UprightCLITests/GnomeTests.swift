import Blocking
import Foundation
import Glibc
import TestSupport
import Testing

/// `upright play` under a real headless GNOME (mutter): the output turned through
/// DisplayConfig, GNOME's own auto-rotation held off through dconf, both put back at exit.
@Suite("GNOME: turning the output through mutter", .serialized)
struct GnomeTests {
    static let lockKey = ["org.gnome.settings-daemon.peripherals.touchscreen", "orientation-lock"]

    @Test func theInterfaceStrategyTurnsTheVirtualMonitorAndSigtermPutsItBack() async throws {
        let gnome = try await HeadlessDesktop.start()
        defer { gnome.stop() }
        #expect(try gnome.transform() == 0)
        #expect(try gnome.gsettings(["get"] + Self.lockKey) == "false")
        let config = try temporaryFile(
            """
            [scenes.inline]
            supported = ["portrait", "landscape-right", "landscape-left"]
            autorotate = true
            strategy = "interface"
            [lock]
            evdev = "none"
            [player.mpv]
            vo = "wlshm"
            ao = "null"
            """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let socket = gnome.directory + "/control.sock"
        let environment = gnome.clientEnvironment()
        // The replayed device turns right edge up (landscape-left) 1.5 s in.
        let play = try SignalTests.Play(
            ["--config", config, "--uri", "replay:\(fixture("rotate.csv"))", "--control", socket],
            environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(
            await play.waitFor("display: gnome (org.gnome.Mutter.DisplayConfig is on the session bus"),
            "\(play.stderr)")
        // landscape-right on a portrait panel: 90° clockwise, mutter's 3 (counter-clockwise quarters).
        #expect(await CompositorTests.eventually(8) { (try? gnome.transform()) == 3 }, "\(play.stderr)")
        #expect(try gnome.gsettings(["get"] + Self.lockKey) == "true", "GNOME's auto-rotation is held off")
        let status = try await upright(["ctl", "--socket", socket, "status"]).stdout
        #expect(status.contains(#""backend": "gnome""#) && status.contains(#""transform": 90"#), "\(status)")
        #expect(status.contains("GNOME's auto-rotation"), "the rotation owner is named: \(status)")

        play.process.send(SIGTERM)
        let process = play.process
        await Blocking.run { process.waitUntilExit() }
        #expect(process.terminationStatus == 0, "\(play.stderr)")
        #expect(try gnome.transform() == 0, "SIGTERM puts the monitor back")
        #expect(try gnome.gsettings(["get"] + Self.lockKey) == "false", "and GNOME's auto-rotation as it was")
    }

    @Test func aRunThatDiedLeavesBothToTheNextStart() async throws {
        let gnome = try await HeadlessDesktop.start()
        defer { gnome.stop() }
        let runtime = gnome.directory + "/upright-runtime"
        var environment = gnome.clientEnvironment()
        environment["RUNTIME_DIRECTORY"] = runtime
        let arguments = [
            "--uri", "none", "--vo", "null", "--no-control",
        ]
        // Locked by a run killed with no chance to put it back ...
        let first = try SignalTests.Play(arguments, environment: environment)
        #expect(await first.waitFor("display: gnome"), "\(first.stderr)")
        #expect(await CompositorTests.eventually(5) { (try? gnome.gsettings(["get"] + Self.lockKey)) == "true" })
        first.process.send(SIGKILL)
        let process = first.process
        await Blocking.run { process.waitUntilExit() }
        #expect(try gnome.gsettings(["get"] + Self.lockKey) == "true")
        // ... the next start puts it back first (and holds it again), and its own exit leaves it as found.
        let second = try SignalTests.Play(arguments, environment: environment)
        #expect(await second.waitFor("display: gnome"), "\(second.stderr)")
        second.process.send(SIGTERM)
        let again = second.process
        await Blocking.run { again.waitUntilExit() }
        #expect(try gnome.gsettings(["get"] + Self.lockKey) == "false", "\(second.stderr)")
    }

    @Test func doctorNamesTheDesktopTheBackendAndGnomesOwnRotation() async throws {
        let gnome = try await HeadlessDesktop.start()
        defer { gnome.stop() }
        let environment = gnome.clientEnvironment(desktop: "GNOME")
        let run = try await upright(["doctor", "--uri", "none"], environment: environment)
        #expect(run.stdout.contains("desktop: GNOME"), "\(run.stdout)")
        #expect(
            run.stdout.contains("display backend: gnome (XDG_CURRENT_DESKTOP is GNOME: mutter's DisplayConfig)"),
            "\(run.stdout)")
        #expect(
            run.stdout.contains("output Meta-0: active, 800x1280, turned 0° clockwise, turns at run time"),
            "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "also turning outputs: GNOME's auto-rotation (org.gnome.settings-daemon.peripherals.touchscreen "
                    + "orientation-lock was off): Upright keeps it locked while it plays"), "\(run.stdout)")
    }
}
