import Blocking
import Foundation
import Glibc
import Session
import TestSupport
import Testing
import UprightDaemon
import Wire

/// The power plan in the real `upright play`, on a real headless sway, with the wall clock moved
/// by libfaketime (Debian's `faketime` package): the screen goes off at 22:00 and on at 07:00.
@Suite("The power plan end to end, under libfaketime")
struct ScheduleEndToEndTests {
    /// libfaketime's preload library, where Debian puts it.
    static let libfaketime: String? = {
        let lib = "/usr/lib"
        let arches = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        return arches.map { "\(lib)/\($0)/faketime/libfaketime.so.1" }.first {
            FileManager.default.fileExists(atPath: $0)
        }
    }()

    /// The fixture that lets libdispatch's timers run under libfaketime, built into `directory`.
    static func passthrough(in directory: String) async throws -> String {
        let output = directory + "/timerfd-passthrough.so"
        // The C compiler: the system's, or the clang beside the Swift toolchain on PATH.
        let compiler =
            (["/usr/bin/cc"]
            + ProcessInfo.processInfo.environment["PATH", default: ""].split(separator: ":")
            .map { "\($0)/clang" }).first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let cc = compiler else { throw CocoaError(.executableNotLoadable) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: cc)
        p.arguments = ["-shared", "-fPIC", "-O2", "-o", output, fixture("timerfd-passthrough.c")]
        try p.run()
        await Blocking.run { p.waitUntilExit() }
        guard p.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return output
    }

    /// `ctl status`, read back as the status it was written from (`nil` while there is none).
    static func status(_ socket: String) async -> SessionStatus? {
        guard let reply = try? await upright(["ctl", "--socket", socket, "status"]).stdout else { return nil }
        return ControlReply(line: reply)?.status
    }

    /// Waits up to `seconds` for the status to show the screen `state` with its next change `next`.
    static func screen(_ socket: String, is state: String, next: String, seconds: Double) async -> SessionStatus? {
        let end = Date().addingTimeInterval(seconds)
        var last: SessionStatus?
        while Date() < end {
            last = await status(socket)
            if last?.screen?.rawValue == state, last?.screenNextChange == next { return last }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return last
    }

    /// Each run starts 20 s before the plan's edge (a loaded machine takes seconds to start), on a
    /// Wednesday night or Thursday morning (UTC): the wall clock is libfaketime's, every timer's
    /// clock (monotonic) the real one. The two run side by side, each on a sway of its own.
    @Test(
        .enabled(if: libfaketime != nil, "libfaketime is not installed (Debian: faketime)"),
        arguments: [
            ("2026-11-25 21:59:40", "on", "22:00", "off", "07:00"),
            ("2026-11-26 06:59:40", "off", "07:00", "on", "22:00"),
        ])
    func offAtNightAndOnInTheMorning(
        start: String, beforeState: String, beforeNext: String, afterState: String, afterNext: String
    ) async throws {
        let (before, after) = ((beforeState, beforeNext), (afterState, afterNext))
        let sway = try HeadlessSway()
        defer { sway.stop() }
        let shim = try await Self.passthrough(in: sway.directory)
        let config = sway.directory + "/upright.toml"
        try """
        [sensor]
        uri = "none"
        [screen]
        on = "07:00"
        off = "22:00"
        cec = "/dev/null"
        [player]
        playlist = ["av://lavfi:color=c=gray:size=64x64:rate=5"]
        [player.mpv]
        vo = "null"
        ao = "null"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        do {
            let socket = sway.directory + "/control-\(before.0).sock"
            var environment = ProcessInfo.processInfo.environment
            for name in ["DISPLAY", "UPRIGHT_CONTROL"] { environment[name] = nil }
            environment.merge(sway.environment) { $1 }
            environment["TZ"] = "UTC"
            environment["FAKETIME"] = "@" + start
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            environment["LD_PRELOAD"] = shim + " " + Self.libfaketime!
            // Through env: a Swift program whose own start loads libfaketime sees no arguments
            // (CommandLine.arguments is empty); started by a process that already has it, it does.
            let play = try SignalTests.Play(
                ["--config", config, "--control", socket], environment: environment, launcher: ["/usr/bin/env"])
            defer { play.process.send(SIGKILL) }

            let first = await Self.screen(socket, is: before.0, next: before.1, seconds: 18)
            #expect(first?.screen?.rawValue == before.0, "at \(start): \(String(describing: first))\n\(play.stderr)")
            let then = await Self.screen(socket, is: after.0, next: after.1, seconds: 40)
            #expect(then?.screen?.rawValue == after.0, "after \(start): \(String(describing: then))\n\(play.stderr)")
            // The log says so; off, nothing plays meanwhile (the player is paused with the screen).
            let said =
                "screen \(after.0) (power plan) until \(after.1)"
                + (after.0 == "off" ? "; nothing plays meanwhile" : "")
            #expect(play.stderr.contains(said), "\(play.stderr)")
            // sway took the command; HDMI-CEC (here a device that is not an adapter) says why not,
            // and playback goes on.
            let refusals = play.stderr.split(separator: "\n").filter { $0.contains("screen power: ") }
            // (A start outside the window switches off at once: then once more at the edge.)
            #expect(
                !refusals.isEmpty
                    && refusals.allSatisfy {
                        $0 == "upright: warning: screen power: HDMI-CEC /dev/null: not a CEC adapter"
                    },
                "\(play.stderr)")
            #expect(play.process.isRunning)
        }
    }
}
