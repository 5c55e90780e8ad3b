import Foundation
import Glibc
import TestSupport
import Testing

/// `upright health` against a real `upright play` under a headless sway: 0 while it plays, then
/// 1 with its reason for a black screen, a frozen picture, a display gone, a sensor that fails
/// while configured and a restart loop; 2 with no session.
@Suite("upright health", .serialized)
struct HealthTests {
    /// `upright play` of `playlist` under `sway`, its state in `dir/state`, `extra` lines in its
    /// configuration, through `launcher` (a fake IIO tree's namespace).
    static func play(
        _ playlist: [String], sway: HeadlessSway, dir: String, uri: String = "none", extra: String = "",
        launcher: [String] = []
    ) throws -> (SignalTests.Play, String) {
        let config = dir + "/upright.toml"
        try """
        [lock]
        evdev = "none"
        [player]
        playlist = [\(playlist.map { "\"\($0)\"" }.joined(separator: ", "))]
        \(extra)
        [player.mpv]
        ao = "null"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "XDG_CURRENT_DESKTOP", "DBUS_SESSION_BUS_ADDRESS"] { environment[name] = nil }
        environment.merge(sway.environment) { $1 }
        environment["STATE_DIRECTORY"] = dir + "/state"
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(
            ["--config", config, "--uri", uri, "--vo", "wlshm", "--control", socket], environment: environment,
            launcher: launcher)
        return (play, socket)
    }

    /// `upright health --socket SOCKET ARGS`: its exit status and its line.
    static func health(_ socket: String, _ arguments: [String] = []) async throws -> (Int32, String) {
        let run = try await upright(["health", "--socket", socket] + arguments)
        return (run.status, run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Asks each second, up to `seconds`, until the answer's line contains `text` with `status`.
    static func until(_ socket: String, _ status: Int32, _ text: String, seconds: Int = 30) async throws -> (
        Int32, String
    ) {
        var last: (Int32, String) = (-1, "")
        for _ in 0..<seconds {
            last = try await health(socket)
            if last.0 == status, last.1.contains(text) { break }
            try await Task.sleep(for: .seconds(1))
        }
        return last
    }

    static func folder(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "health-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static let moving = "av://lavfi:testsrc2=size=320x240:rate=25"

    @Test func healthyWhilePlayingThenBlackThenCannotTell() async throws {
        let dir = try Self.folder("black")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sway = try HeadlessSway(mode: "640x360")
        defer { sway.stop() }
        var (play, socket) = try Self.play([Self.moving], sway: sway, dir: dir)
        let healthy = try await Self.health(socket, ["--wait", "40"])
        #expect(healthy == (0, "healthy"), "\(healthy)\n\(play.stderr)")
        // The same verdict in the status (the page's, MQTT's state, the metrics').
        let status = try await RemoteItemsTests.status(socket)
        #expect((status["health"] as? [String: Any])?["verdict"] as? String == "healthy", "\(status)")
        play.process.send(SIGTERM)
        play.process.waitUntilExit()
        let none = try await Self.health(socket)
        #expect(none.0 == 2 && none.1.hasPrefix("cannot tell: no session answers"), "\(none)")
        (play, socket) = try Self.play(["av://lavfi:color=c=black:size=320x240:rate=25"], sway: sway, dir: dir)
        defer { play.process.send(SIGKILL) }
        let black = try await Self.until(socket, 1, "black")
        #expect(black.0 == 1 && black.1.hasPrefix("unhealthy: the screen has been black for"), "\(black)")
    }

    /// A healthy `upright play` of a moving picture under a sway of its own, for `body` to break.
    static func whilePlaying(
        _ name: String, uri: String = "none", launcher: [String] = [],
        _ body: (HeadlessSway, SignalTests.Play, String) async throws -> Void
    ) async throws {
        let dir = try folder(name)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sway = try HeadlessSway(mode: "640x360")
        defer { sway.stop() }
        let (play, socket) = try play([moving], sway: sway, dir: dir, uri: uri, launcher: launcher)
        defer { play.process.send(SIGKILL) }
        let healthy = try await health(socket, ["--wait", "40"])
        #expect(healthy.0 == 0, "\(healthy)\n\(play.stderr)")
        try await body(sway, play, socket)
    }

    /// mpv's process stopped (as a hung decoder or driver holds it): the screen keeps its last
    /// picture, and mpv answers no screenshot. Unhealthy until Upright ends that mpv (20 s
    /// unanswered) and starts another; the verdict comes within 3 s though the session waits.
    @Test func aFrozenPictureIsUnhealthy() async throws {
        try await Self.whilePlaying("frozen") { _, play, socket in
            let said = play.stderr.split(separator: "mpv's process (pid ").dropFirst().first
            let pid = try #require(said.flatMap { Int32($0.prefix { $0.isNumber }) }, "\(play.stderr)")
            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }
            let frozen = try await Self.until(socket, 1, "frozen", seconds: 15)
            #expect(
                frozen.1.hasPrefix("unhealthy: the picture is frozen: mpv has not answered a screenshot for"),
                "\(frozen)")
        }
    }

    @Test func aDisplayThatGoesAwayIsUnhealthy() async throws {
        try await Self.whilePlaying("display") { sway, play, socket in
            sway.stop()
            let gone = try await Self.until(socket, 1, "the display")
            #expect(gone.1.hasPrefix("unhealthy: the display: "), "\(gone)\n\(play.stderr)")
        }
    }

    @Test func aSensorThatFailsWhileConfiguredIsUnhealthy() async throws {
        let fake = try FakeIIO()
        try fake.portrait()
        try await Self.whilePlaying("sensor", uri: "local:", launcher: fake.namespace) { _, play, socket in
            try fake.unplug()
            let failing = try await Self.until(socket, 1, "the sensor")
            #expect(failing.1.hasPrefix("unhealthy: the sensor: sensor "), "\(failing)\n\(play.stderr)")
        }
    }

    /// Three starts within five minutes: a restart loop, whatever plays now.
    @Test func aRestartLoopIsUnhealthy() async throws {
        let dir = try Self.folder("loop")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sway = try HeadlessSway(mode: "640x360")
        defer { sway.stop() }
        for _ in 0..<2 {
            let (crashing, _) = try Self.play([Self.moving], sway: sway, dir: dir)
            #expect(await crashing.waitFor("display: "), "\(crashing.stderr)")
            crashing.process.send(SIGKILL)
            crashing.process.waitUntilExit()
        }
        let (play, socket) = try Self.play([Self.moving], sway: sway, dir: dir)
        defer { play.process.send(SIGKILL) }
        let loop = try await Self.until(socket, 1, "restart loop")
        #expect(loop.1 == "unhealthy: a restart loop: started 3 times in the last 5 minutes", "\(loop)")
    }
}
