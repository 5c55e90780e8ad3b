import Foundation
import Glibc
import TestSupport
import Testing

/// mpv's process confined by Upright itself (no_new_privs, seccomp, Landlock), in a real
/// `upright play`: a Lua script run by that mpv tries what the confinement forbids and writes
/// what happened to the one place it may write, the cache.
@Suite("mpv's process confined", .serialized)
struct ConfinementTests {
    /// The script: each attempt and its outcome, one a line.
    static let script = """
        local out = {}
        local function try_open(name, path, mode)
            local f, err = io.open(path, mode)
            if f then f:close(); out[#out + 1] = name .. " ok" else out[#out + 1] = name .. " refused: " .. tostring(err) end
        end
        local dir = os.getenv("UPRIGHT_CHECK_DIR")
        try_open("terminal", "/dev/tty", "r")
        try_open("console", "/dev/console", "r")
        try_open("input", "/dev/input/event0", "r")
        try_open("outside", dir .. "/outside.txt", "w")
        try_open("cache", dir .. "/cache/inside.txt", "w")
        local r = mp.command_native({name = "subprocess", args = {"/bin/touch", dir .. "/spawned"}, playback_only = false})
        out[#out + 1] = "program " .. tostring(r and r.status) .. " " .. tostring(r and r.error_string)
        local f = io.open(dir .. "/cache/result.txt", "w")
        f:write(table.concat(out, "\\n") .. "\\n")
        f:close()
        """

    /// Runs `upright play` with the script and a playlist whose second item is the control socket
    /// itself (`ffmpeg://unix:`: mpv connects to it); `confine` sets `[player] confine`.
    static func run(confine: Bool) async throws -> (play: SignalTests.Play, result: [String: String], dir: String) {
        let dir = NSTemporaryDirectory() + "upright-confine-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir + "/cache", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true)
        try script.write(toFile: dir + "/check.lua", atomically: true, encoding: .utf8)
        let socket = dir + "/run/upright/control.sock"
        let config = """
            [player]
            confine = \(confine)
            playlist = ["av://lavfi:testsrc2=size=320x240:rate=25:duration=1", "ffmpeg://unix:\(socket)"]
            [player.mpv]
            scripts = "\(dir)/check.lua"
            [cache]
            directory = "\(dir)/cache"
            """
        try config.write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK"] { environment[name] = nil }
        environment["UPRIGHT_CHECK_DIR"] = dir
        environment["XDG_RUNTIME_DIR"] = dir + "/run"
        let play = try SignalTests.Play(
            ["--config", dir + "/upright.toml", "--uri", "none", "--vo", "null", "--control", socket],
            environment: environment)
        var result: [String: String] = [:]
        for _ in 0..<100 where result.count < 6 {
            try await Task.sleep(for: .milliseconds(100))
            let text = (try? String(contentsOfFile: dir + "/cache/result.txt", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                if words.count == 2 { result[words[0]] = words[1] }
            }
        }
        return (play, result, dir)
    }

    /// The pid `upright play` names for mpv's process.
    static func mpvPID(_ stderr: String) -> Int32? {
        guard let range = stderr.range(of: "mpv's process (pid ") else { return nil }
        return Int32(stderr[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func itCannotOpenTerminalsOrInputWriteOutsideItsPlacesStartProgramsOrUseTheControlSocket() async throws {
        let (play, result, dir) = try await Self.run(confine: true)
        defer {
            play.process.send(SIGKILL)
            try? FileManager.default.removeItem(atPath: dir)
        }
        #expect(await play.waitFor("confined by no_new_privs, a seccomp filter, Landlock"), "\(play.stderr)")
        let pid = try #require(Self.mpvPID(play.stderr), "\(play.stderr)")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("NoNewPrivs:\t1"), "\(status)")
        #expect(status.contains("Seccomp:\t2"), "\(status)")
        // Each refused by Landlock (EACCES), though the user may open them (root, here).
        #expect(result["terminal"] == "refused: /dev/tty: Permission denied", "\(result)")
        #expect(result["console"] == "refused: /dev/console: Permission denied", "\(result)")
        #expect(result["input"]?.hasPrefix("refused: /dev/input/event0:") == true, "\(result)")
        #expect(result["outside"] == "refused: \(dir)/outside.txt: Permission denied", "\(result)")
        #expect(result["cache"] == "ok", "\(result)")
        // No program: seccomp refuses the new process (mpv's subprocess fails to start).
        #expect(result["program"] == "-3 init", "\(result)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/spawned"))
        // The control socket refuses mpv's process by its pid.
        #expect(
            await play.waitFor("control socket: refused a connection from mpv's process (pid \(pid))"),
            "\(play.stderr)")
        #expect(play.process.isRunning)
    }

    /// The same script unconfined (`confine = false`) does what the confined one could not: the
    /// test above measures the confinement, not the machine.
    @Test func withConfineOffTheSameScriptWritesAndStartsAProgram() async throws {
        let (play, result, dir) = try await Self.run(confine: false)
        defer {
            play.process.send(SIGKILL)
            try? FileManager.default.removeItem(atPath: dir)
        }
        #expect(result["outside"] == "ok", "\(result)")
        #expect(result["program"] == "0 ", "\(result)")
        #expect(FileManager.default.fileExists(atPath: dir + "/spawned"))
        // No word of a confinement (the control socket refuses mpv's pid all the same, and says so
        // when the script's connection comes before the test ends).
        let said = play.stderr.split(separator: "\n").filter {
            $0.contains("mpv's process (pid") && !$0.contains("refused a connection")
        }
        #expect(said.isEmpty, "\(play.stderr)")
    }

    /// The runtime directory not there yet when mpv's process confines itself (the control
    /// socket elsewhere, the machine fresh): it is made first, and a screenshot, which mpv writes
    /// there, is taken.
    @Test func aScreenshotIsTakenWhenTheRuntimeDirectoryWasNotThereAtTheStart() async throws {
        let dir = NSTemporaryDirectory() + "upright-confine-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        [player]
        playlist = ["av://lavfi:color=c=red:s=320x240:r=25"]
        [cache]
        directory = "\(dir)/cache"
        """.write(toFile: dir + "/upright.toml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK", "RUNTIME_DIRECTORY"] { environment[name] = nil }
        environment["XDG_RUNTIME_DIR"] = dir + "/run"
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(
            ["--config", dir + "/upright.toml", "--uri", "none", "--vo", "null", "--control", socket],
            environment: environment)
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("confined by no_new_privs, a seccomp filter, Landlock"), "\(play.stderr)")
        #expect(await play.waitFor("playing "), "\(play.stderr)")
        let shot = try await upright(["ctl", "--socket", socket, "screenshot", "--out", dir + "/shot.png"])
        #expect(shot.status == 0, "\(shot.stdout)\(shot.stderr)\n\(play.stderr)")
        #expect((try? Data(contentsOf: URL(fileURLWithPath: dir + "/shot.png")))?.isEmpty == false)
        let attributes = try? FileManager.default.attributesOfItem(atPath: dir + "/run/upright")
        #expect(attributes?[.posixPermissions] as? Int == 0o700, "\(String(describing: attributes))")
    }
}
