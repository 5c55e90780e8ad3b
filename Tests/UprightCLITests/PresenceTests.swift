import Foundation
import Glibc
import TestSupport
import Testing

/// `[screen] idle_off` on a real `upright play` under a headless sway: the output is switched off
/// after the idle time (sway takes the command; its headless output has no power to show it
/// off), and `upright ctl presence` (as MQTT's `command/presence` or a motion sensor's key asks
/// it) switches it on again.
@Suite("Presence", .serialized)
struct PresenceTests {
    @Test func theScreenSleepsAfterItsIdleTimeAndAPersonWakesIt() async throws {
        let dir = try HealthTests.folder("presence")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sway = try HeadlessSway(mode: "640x360")
        defer { sway.stop() }
        let (play, socket) = try HealthTests.play(
            [HealthTests.moving], sway: sway, dir: dir, extra: "[screen]\nidle_off = 3\n[display]\nkiosk = true")
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playing "), "\(play.stderr)")
        #expect(
            await play.waitFor("screen off (no one for 3 s ([screen] idle_off)); nothing plays meanwhile"),
            "\(play.stderr)")
        var status = try await RemoteItemsTests.status(socket)
        #expect(status["screen"] as? String == "off" && status["present"] as? Bool == false, "\(status)")
        let run = try await upright(["ctl", "--socket", socket, "presence"])
        #expect(run.stdout.contains("presence: the screen wakes"), "\(run.stdout)\(run.stderr)")
        #expect(await play.waitFor("screen on (someone is there)"), "\(play.stderr)")
        #expect(!play.stderr.contains("screen power:"), "sway took both: \(play.stderr)")
        status = try await RemoteItemsTests.status(socket)
        #expect(status["screen"] as? String == "on" && status["present"] as? Bool == true, "\(status)")
        #expect((status["presence_ago"] as? Double).map { $0 < 3 } == true, "\(status)")
    }
}
