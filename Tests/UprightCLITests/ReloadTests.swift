import Blocking
import Control
import Foundation
import TestSupport
import Testing
import UprightDaemon

/// SIGHUP and SIGTERM sent to a real `upright play` process.
@Suite("upright play signals", .serialized)
struct SignalTests {
    /// Starts `upright play ARGS`, collecting standard error.
    final class Play: @unchecked Sendable {  // the pipes hold their own locks
        let process = Process()
        private let err = CollectedPipe(), out = CollectedPipe()

        /// `fileLimit` sets the process's descriptor limit (`ulimit -n`) before it starts;
        /// `launcher` runs it (`["/usr/bin/env"]`: `env` execs it).
        init(
            _ arguments: [String], fileLimit: Int? = nil, environment: [String: String]? = nil,
            launcher: [String] = []
        ) throws {
            if let launch = launcher.first {
                process.executableURL = URL(fileURLWithPath: launch)
                process.arguments = launcher.dropFirst() + [uprightBinary.path, "play"] + arguments
            } else if let fileLimit {
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments =
                    ["-c", "ulimit -n \(fileLimit) && exec \"$0\" play \"$@\"", uprightBinary.path] + arguments
            } else {
                process.executableURL = uprightBinary
                process.arguments = ["play"] + arguments
            }
            // Without one given: the test's own, less any display (a display test of this process may
            // have set WAYLAND_DISPLAY for its in-process libmpv).
            var inherited = ProcessInfo.processInfo.environment
            for name in ["WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK"] { inherited[name] = nil }
            process.environment = environment ?? inherited
            process.standardOutput = out.pipe
            process.standardError = err.pipe
            try process.run()
        }

        var stderr: String { err.text }
        /// The decision log (JSON lines).
        var stdout: String { out.text }

        /// Waits, holding no thread of the cooperative pool, until standard error passes `check`.
        func waitFor(_ check: (String) -> Bool, seconds: Double = 10) async -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if check(stderr) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        /// SIGHUP, sent again each second until standard error says `text` (15 s at most): one sent
        /// before the reloader listens is ignored, and on a loaded machine it starts after the
        /// first log lines.
        func hangUp(until text: String) async -> Bool {
            for _ in 0..<15 {
                process.send(SIGHUP)
                if await waitFor(text, seconds: 1) { return true }
            }
            return false
        }

        /// Waits, holding no thread of the cooperative pool, until standard error says `text`.
        func waitFor(_ text: String, seconds: Double = 10) async -> Bool {
            await waitFor({ $0.contains(text) }, seconds: seconds)
        }
    }

    @Test func hupReloadsAndABadFileLeavesTheRunningOne() async throws {
        let config = try temporaryFile("[player]\nloop = true\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let play = try Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control"])
        defer { if play.process.isRunning { play.process.send(SIGKILL) } }
        #expect(await play.waitFor("display: "), "\(play.stderr)")

        try "[app]\nlaunch = \"sideways\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(await play.hangUp(until: "reload refused, the running configuration stays"), "\(play.stderr)")
        #expect(play.stderr.contains("\(config):2:10: error: unknown orientation 'sideways'"))
        #expect(play.process.isRunning)

        try "[player]\nloop = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        play.process.send(SIGHUP)
        #expect(await play.waitFor("configuration reloaded from \(config)"), "\(play.stderr)")

        play.process.send(SIGTERM)
        let process = play.process
        await Blocking.run { process.waitUntilExit() }
        #expect(play.process.terminationStatus == 0, "\(play.stderr)")
    }
}

extension SignalTests {
    @Test func hupReadsTheDropInsAgain() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/upright.toml.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/upright.toml"
        try "[player]\nloop = true\n".write(toFile: config, atomically: true, encoding: .utf8)
        let play = try Play(["--config", config, "--uri", "none", "--vo", "null", "--no-control"])
        defer { if play.process.isRunning { play.process.send(SIGKILL) } }
        #expect(await play.waitFor("display: "), "\(play.stderr)")
        // A drop-in that a fleet tool wrote, with a mistake: refused with its own file's place.
        let dropIn = dir + "/upright.toml.d/50-fleet.toml"
        try "[transition]\nduration = -1\n".write(toFile: dropIn, atomically: true, encoding: .utf8)
        #expect(await play.hangUp(until: "reload refused, the running configuration stays"), "\(play.stderr)")
        #expect(play.stderr.contains("\(dropIn):2:12: error:"), "\(play.stderr)")
        try "[transition]\nduration = 0.5\n".write(toFile: dropIn, atomically: true, encoding: .utf8)
        play.process.send(SIGHUP)
        #expect(await play.waitFor("configuration reloaded from \(config)"), "\(play.stderr)")
        #expect(play.process.isRunning)
    }
}

@Suite("upright ctl")
struct CtlTests {
    @Test(arguments: [
        (#"{"ok": false, "error": "permission denied"}"#, Int32(1)), (#"{"error":"bad","ok":false}"#, 1),
        (#"{"ok": true}"#, 0), ("not json", 1),
    ])
    func theExitStatusFollowsTheReply(reply: String, status: Int32) async throws {
        let path = NSTemporaryDirectory() + "upright-ctl-\(UUID().uuidString.prefix(8))/control.sock"
        let server = try await ControlServer(path: path, answer: { _ in reply })
        server.start()
        defer { server.stop() }
        // The server answers from tasks: the client's wait must not hold a thread of the pool.
        let run = try await upright(["ctl", "--socket", path, "status"])
        #expect(run.status == status, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout == reply + "\n")
    }
}
