import Blocking
import Foundation
import Glibc
import TestSupport
import Testing

/// `upright play` and a real headless sway that comes late, and outputs turned behind its back.
@Suite("Compositors that come late and outputs turned by someone else", .serialized)
struct CompositorTests {
    /// `upright ctl status`'s reply.
    static func status(_ socket: String) async throws -> String {
        try await upright(["ctl", "--socket", socket, "status"]).stdout
    }

    /// Waits up to `seconds` for `condition`, without holding a thread of the pool. It returns as
    /// soon as the condition holds, so the bounds are generous: each look at sway runs `swaymsg`,
    /// which a loaded machine may take seconds to start (a turn back logged in time was seen
    /// after 3 s once).
    static func eventually(_ seconds: Double, _ condition: () throws -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if (try? condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Whether sway shows a window of process `pid` or of a child of it (mpv runs in its own).
    static func shows(_ sway: HeadlessSway, pid: Int32) throws -> Bool {
        let tree = try sway.swaymsg(["-t", "get_tree", "-r"])
        return ([pid] + children(of: pid)).contains { tree.contains("\"pid\": \($0)") }
    }

    /// The pids of `pid`'s children (`/proc/PID/task/TID/children` lists each thread's own).
    static func children(of pid: Int32) -> [Int32] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.flatMap { tid in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    @Test func thePackagedSwaySessionBootsIntoPlayback() async throws {
        // The session's user finds its configuration in ~/.config/upright (HOME is the sway's directory).
        let directory = HeadlessSway.newDirectory()
        let config = directory + "/.config/upright"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "[sensor]\nuri = \"none\"\n[display]\nwait = 3\n[player.mpv]\nvo = \"wlshm\"\nao = \"null\"\n".write(
            toFile: config + "/upright.toml", atomically: true, encoding: .utf8)
        for path in [directory, directory + "/.config", config] { chmod(path, 0o755) }
        chmod(config + "/upright.toml", 0o644)
        // The session's user reads the session file and runs the binary: copies in its own
        // directory, as the checkout may be in a folder only root can enter (root's home).
        let bin = directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: uprightBinary.path, toPath: bin + "/upright")
        try FileManager.default.copyItem(
            atPath: HeadlessSway.packageRoot + "/packaging/kiosk/sway.conf", toPath: directory + "/kiosk.conf")
        chmod(bin, 0o755)
        chmod(directory + "/kiosk.conf", 0o644)
        let sway = try HeadlessSway(
            directory: directory, include: directory + "/kiosk.conf", path: bin + ":/usr/bin:/bin")
        defer { sway.stop() }
        #expect(
            await Self.eventually(10) { try sway.swaymsg(["-t", "get_tree", "-r"]).contains("\"app_id\": \"mpv\"") })
        // The screen shows the test pattern (many colours), not a black or empty output.
        var colours = 0
        for _ in 0..<40 where colours < 50 {
            try await Task.sleep(for: .milliseconds(100))
            let shot = try sway.screenshot()
            var seen: Set<Int> = []
            for y in stride(from: 0, to: shot.height, by: 16) {
                for x in stride(from: 0, to: shot.width, by: 16) {
                    let p = shot.rgb(x, y)
                    seen.insert(Int(p.r) << 16 | Int(p.g) << 8 | Int(p.b))
                }
            }
            colours = seen.count
        }
        #expect(colours >= 50, "\(colours) colours on the screen")

        // The session's sway killed: its Upright exits with it, none stays.
        /// The session's processes of the binary: `upright play` and its mpv process (`upright-mpv`).
        func sessionUpright() -> [Int32] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/exe")) == bin + "/upright"
                    && !Self.isZombie($0)
            }
        }
        let players = sessionUpright().filter {
            (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)) != "upright-mpv\n"
        }
        #expect(players.count == 1, "\(players)")
        sway.process.signal(SIGKILL)
        let log = { (try? String(contentsOfFile: directory + "/sway.log", encoding: .utf8)) ?? "" }
        #expect(await Self.eventually(10) { sessionUpright().isEmpty }, "still running: \(sessionUpright()); \(log())")
        // Ended with the sway that started it (a new session's sway would start its own Upright),
        // never by a crash.
        #expect(log().contains("which started Upright, has ended: Upright ends with it"), "\(log())")
        #expect(!log().contains("Program crashed"), "\(log())")
    }

    @Test func aCompositorStartedAfterUprightIsUsedWhenItAppears() async throws {
        let directory = HeadlessSway.newDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/runtime", withIntermediateDirectories: true)
        let socket = directory + "/control.sock"
        var environment = ProcessInfo.processInfo.environment
        for name in ["SWAYSOCK", "DISPLAY"] { environment[name] = nil }
        environment["XDG_RUNTIME_DIR"] = directory + "/runtime"
        environment["WAYLAND_DISPLAY"] = directory + "/runtime/wayland-1"
        let play = try SignalTests.Play(
            ["--uri", "none", "--vo", "wlshm", "--control", socket], environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("control socket: "), "\(play.stderr)")
        try await Task.sleep(for: .seconds(4))
        let waiting = try await Self.status(socket)
        #expect(waiting.contains("waiting for the Wayland compositor"), "\(waiting)")
        #expect(waiting.contains(#""playing": null"#), "nothing plays without a display: \(waiting)")

        let sway = try HeadlessSway(directory: directory)
        defer { sway.stop() }
        let pid = play.process.processIdentifier
        #expect(await Self.eventually(5) { try Self.shows(sway, pid: pid) }, "no window within 5 s: \(play.stderr)")
        let found = try await Self.status(socket)
        #expect(found.contains(#""backend": "sway""#) && found.contains(#""problem": null"#), "\(found)")
        #expect(play.process.isRunning)
    }

    // Only sway here: wlr-randr lists sway's headless output with no transform at all, so the wlroots
    // backend cannot see a foreign turn on it (the controller's rule is tested with every backend in
    // DisplayControllerTests).
    @Test(arguments: ["sway"])
    func aForeignTurnIsUndoneAndTheOutputIsPutBackAtExit(backend: String) async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        // wlr-randr lists sway's headless output with no mode: the configuration states it.
        let (play, socket) = try Self.play(
            beside: sway, config: "[display]\nbackend = \"\(backend)\"\nmode = \"800x1280\"\n", vo: "wlshm")
        defer { if play.process.isRunning { play.process.send(SIGKILL) } }
        #expect(await play.waitFor("display: \(backend)"), "\(play.stderr)")
        _ = try await upright(["ctl", "--socket", socket, "fullscreen"])
        #expect(await Self.eventually(10) { try sway.transform() == "90" })

        // Someone else (kanshi at a hotplug, a person) turns the output: Upright turns it back.
        try sway.swaymsg(["output", "HEADLESS-1", "transform", "180"])
        #expect(await Self.eventually(2) { try sway.transform() == "90" }, "\(play.stderr)")
        #expect(play.stderr.contains("HEADLESS-1 was turned to 180° clockwise by someone else"), "\(play.stderr)")

        // Turned again just before the end: the original transform is still put back.
        try sway.swaymsg(["output", "HEADLESS-1", "transform", "270"])
        play.process.send(SIGINT)
        let process = play.process
        await Blocking.run { process.waitUntilExit() }
        #expect(process.terminationStatus == 0, "\(play.stderr)")
        #expect(try sway.transform() == "normal")
    }

    /// kanshi 1.3 cannot apply a profile to sway 1.7's headless output (wlr-output-management
    /// reports it without a mode), so here it only runs: Upright must name it as a rival.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/kanshi"), "needs kanshi"))
    func aRunningKanshiIsNamedInTheStatusAndTheLog() async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let profile = sway.directory + "/kanshi.conf"
        try "profile {\n  output HEADLESS-1 transform 180\n}\n".write(
            toFile: profile, atomically: true, encoding: .utf8)
        let kanshi = Process()
        kanshi.executableURL = URL(fileURLWithPath: "/usr/bin/kanshi")
        kanshi.arguments = ["-c", profile]
        kanshi.environment = ["WAYLAND_DISPLAY": sway.wayland, "XDG_RUNTIME_DIR": sway.runtimeDirectory]
        kanshi.standardOutput = FileHandle.nullDevice
        kanshi.standardError = FileHandle.nullDevice
        try kanshi.run()
        defer { kanshi.send(SIGKILL) }
        let (play, socket) = try Self.play(beside: sway, config: "", vo: "wlshm")
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("display: sway"), "\(play.stderr)")
        #expect(
            play.stderr.contains("also turning outputs: kanshi (pid \(kanshi.processIdentifier))"), "\(play.stderr)")
        let status = try await Self.status(socket)
        #expect(status.contains(#""others_turning_outputs": ["kanshi (pid "#), "\(status)")
    }

    /// sway stopped (SIGINT: its sockets go) or killed (SIGKILL: its IPC socket stays, refusing
    /// connections), then a new sway with a new socket name: Upright waits, then finds it, turns
    /// the output with the interface strategy again, and puts the original back at exit.
    @Test(arguments: [(SIGINT, "wlshm"), (SIGKILL, "wlshm")])
    func aCompositorThatGoesAwayAndComesBackIsUsedAgain(signal: Int32, vo: String) async throws {
        let directory = HeadlessSway.newDirectory()
        var sway = try HeadlessSway(directory: directory)
        let control = NSTemporaryDirectory() + "upright-back-\(UUID().uuidString.prefix(8))"
        let socket = control + "/control.sock"
        defer { try? FileManager.default.removeItem(atPath: control) }
        // SWAYSOCK names the first sway's socket; the new one's is found in the runtime directory.
        var environment = ProcessInfo.processInfo.environment.merging(sway.environment) { $1 }
        environment["DISPLAY"] = nil
        environment["XDG_RUNTIME_DIR"] = sway.runtimeDirectory
        let play = try SignalTests.Play(["--uri", "none", "--vo", vo, "--control", socket], environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("display: sway"), "\(play.stderr)")
        _ = try await upright(["ctl", "--socket", socket, "fullscreen"])
        #expect(await Self.eventually(10) { try sway.transform() == "90" })

        let first = sway.socket
        if signal == SIGINT {
            sway.stop()
        } else {
            sway.process.signal(SIGKILL)
            #expect(await Self.eventually(5) { kill(sway.pid, 0) != 0 || Self.isZombie(sway.pid) })
            #expect(FileManager.default.fileExists(atPath: first), "a killed sway leaves its socket")
        }
        #expect(await play.waitFor("the display went away"), "\(play.stderr)")
        let waiting = try await Self.status(socket)
        #expect(waiting.contains("waiting for the Wayland compositor"), "\(waiting)")
        #expect(waiting.contains(#""playing": null"#), "nothing plays meanwhile: \(waiting)")
        #expect(play.process.isRunning)
        // mpv ended with its window, and its pictures with it (libmpv 0.35 leaves those that were
        // on screen mapped).
        let waitingPid = play.process.processIdentifier
        #expect(await Self.eventually(10) { Self.mpvPictureMappings(waitingPid) == 0 }, "\(play.stderr)")

        sway = try HeadlessSway(directory: directory)
        defer { sway.stop() }
        #expect(sway.socket != first)
        let pid = play.process.processIdentifier
        #expect(await Self.eventually(8) { try Self.shows(sway, pid: pid) }, "no window again: \(play.stderr)")
        // The output is turned to the full screen's landscape again, by the interface strategy.
        #expect(await Self.eventually(10) { try sway.transform() == "90" }, "\(play.stderr)")
        let back = try await Self.status(socket)
        #expect(back.contains(#""backend": "sway""#) && back.contains(#""problem": null"#), "\(back)")
        #expect(back.contains(#""strategy": "interface""#), "\(back)")
        #expect(!play.stderr.contains("mpv has shut down"), "nothing is sent to an mpv that ended: \(play.stderr)")
        // Someone turns it: turned back. At exit: the original transform.
        try sway.swaymsg(["output", "HEADLESS-1", "transform", "180"])
        #expect(await Self.eventually(10) { try sway.transform() == "90" }, "\(play.stderr)")
        kill(pid, SIGTERM)
        #expect(await Self.eventually(8) { !play.process.isRunning })
        #expect(try sway.transform() == "normal")
    }

    /// How many of `pid`'s mappings are mpv's picture files (`memfd:mpv`).
    static func mpvPictureMappings(_ pid: Int32) -> Int {
        let maps = (try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? ""
        return maps.split(separator: "\n").filter { $0.hasSuffix("/memfd:mpv (deleted)") }.count
    }

    /// The compositor killed for good: after `[display] wait` the process exits non-zero (for
    /// systemd to start it again, or the session's end to take it). mpv ends with its window
    /// (wlshm), or lives on, idle (gpu, which cannot open here: no EGL): the display is asked
    /// whether it answers while playing, not only when mpv ends.
    @Test(arguments: ["wlshm", "gpu"])
    func aCompositorKilledForGoodEndsTheProcessAfterTheWait(vo: String) async throws {
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let (play, _) = try Self.play(beside: sway, config: "[display]\nwait = 2\n", vo: vo)
        defer { if play.process.isRunning { play.process.send(SIGKILL) } }
        #expect(await play.waitFor(vo == "gpu" ? "cannot play " : "playing "), "\(play.stderr)")
        sway.process.signal(SIGKILL)
        try #require(await Self.eventually(10) { !play.process.isRunning }, "\(play.stderr)")
        #expect(play.process.terminationStatus != 0)
        #expect(play.stderr.contains("the display went away"), "\(play.stderr)")
        #expect(play.stderr.contains("waited 2 s; display.wait sets how long"), "\(play.stderr)")
    }

    /// `upright play` (no sensor) beside `sway` with `config`, its configuration file and control
    /// socket in sway's directory (removed with it).
    /// `upright play` on `sway` with `config`; `uri` its sensor, `launcher` what runs it (a fake
    /// accelerometer's namespace).
    static func play(
        beside sway: HeadlessSway, config: String, vo: String, uri: String = "none", launcher: [String] = []
    ) throws -> (SignalTests.Play, String) {
        let file = sway.directory + "/upright.toml"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        let socket = sway.directory + "/control.sock"
        var environment = ProcessInfo.processInfo.environment.merging(sway.environment) { $1 }
        environment["XDG_RUNTIME_DIR"] = sway.runtimeDirectory
        let play = try SignalTests.Play(
            ["--config", file, "--uri", uri, "--vo", vo, "--control", socket], environment: environment,
            launcher: launcher)
        return (play, socket)
    }

    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.hasPrefix(" Z") ?? true
    }
}
