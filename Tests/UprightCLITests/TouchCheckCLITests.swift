import Control
import Foundation
import Testing
import Wire

/// `upright touch-check` against a running player (vo=null: its window is 1280×720 to the
/// overlays), with taps given as mpv takes a touch (its `mouse` command: the binding, the
/// message and `mouse-pos`, as a finger's would go). The report is read and the taps are given
/// on the control socket from this process, as `ctl touch-check` does: an `upright ctl`
/// process's own start, seconds on a loaded machine, would count against the check's time.
@Suite("upright touch-check")
struct TouchCheckCLITests {
    static let targets: [(Double, Double)] = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.5, 0.5)]

    /// The player's reply to `touch-check` with `argument` (JSON).
    static func ask(_ socket: String, _ argument: String? = nil) async throws -> [String: Any] {
        let line = ControlRequestLine(command: "touch-check", argument: argument).line
        let out = try await ControlClient.send(line, to: socket)
        return try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any] ?? [:]
    }

    static func report(_ socket: String) async throws -> [String: Any] {
        try await ask(socket)["touch_check"] as? [String: Any] ?? [:]
    }

    /// Waits until the report passes `check` (`seconds` at most).
    static func waitFor(_ socket: String, seconds: Int = 10, _ check: ([String: Any]) -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if check(try await report(socket)) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// The picture turned on its surface (no display: the output cannot turn), so the taps reach
    /// the window turned a quarter: right taps are all hits; taps mirrored across the window are
    /// missed, named, and give the matrix that mirrors them back, written as sway's drop-in.
    @Test func tapsOnTheCrossesHitAndMirroredTapsMissWithTheMatrixThatPutsThemRight() async throws {
        let dir = NSTemporaryDirectory() + "touch-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/upright.toml"
        try "[lock]\nevdev = \"none\"\n[player]\nplaylist = [\"av://lavfi:color=c=blue:s=64x64:r=25\"]\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        let play = try SignalTests.Play(["--config", config, "--uri", "none", "--vo", "null", "--control", socket])
        defer { play.process.send(SIGKILL) }
        #expect(await play.waitFor("playing "), "\(play.stderr)")
        // Full screen: its scene turns to every orientation (the inline one keeps portrait).
        _ = try await upright(["ctl", "--socket", socket, "fullscreen"])
        let turned = try await upright(["ctl", "--socket", socket, "rotate-to", "landscape-right"])
        #expect(turned.status == 0, "\(turned.stdout)")
        let drop = dir + "/touch.conf"
        for mirrored in [false, true] {
            let check = Task {
                try await upright(
                    ["touch-check", "--socket", socket, "--timeout", "60"]
                        + (mirrored ? ["--write", drop, "--device", "1:2:Test Panel"] : []))
            }
            // The check's process starts (seconds on a loaded machine) and starts the check.
            let started = try await Self.waitFor(socket, seconds: 60) {
                $0["running"] as? Bool == true && ($0["taps"] as? [Any])?.isEmpty == true
            }
            guard started else {
                Issue.record("no check started: \(try await Self.report(socket))\n\(play.stderr)")
                return
            }
            #expect(try await Self.report(socket)["angle"] as? Int == 90)
            for (n, (x, y)) in Self.targets.enumerated() {
                // The viewer's point on the window turned a quarter clockwise (720×1280 seen).
                let (wx, wy) = (1280 - y * 1280, x * 720)
                let at = "\(Int((mirrored ? 1280 - wx : wx).rounded())) \(Int(wy.rounded()))"
                let tap = try await Self.ask(socket, "tap " + at)
                #expect(tap["ok"] as? Bool == true, "\(tap)")
                let got = try await Self.waitFor(socket) { ($0["taps"] as? [Any])?.count == n + 1 }
                if !got {
                    let report = try await Self.report(socket)
                    Issue.record("tap \(n + 1) not taken: \(report)\n\(play.stderr)\n\(play.stdout)")
                    return
                }
            }
            let run = try await check.value
            if mirrored {
                #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
                #expect(
                    run.stdout.contains("target 1 (top left): missed by 1024 px: 0 px right, 1024 px down"),
                    "\(run.stdout)")
                #expect(run.stdout.contains("target 5 (centre): hit, 0 px off"), "\(run.stdout)")
                #expect(run.stdout.contains("done: 1 of 5 hits"))
                let written = try String(contentsOfFile: drop, encoding: .utf8)
                #expect(
                    written.hasSuffix("input \"1:2:Test Panel\" calibration_matrix -1.0 0 1.0 0 1.0 0\n"), "\(written)")
            } else {
                #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
                #expect(run.stdout.components(separatedBy: ": hit, 0 px off").count == 6, "\(run.stdout)")
                #expect(run.stdout.contains("done: 5 of 5 hits"))
                #expect(!FileManager.default.fileExists(atPath: drop), "written only when asked")
            }
        }
        // A bad request says what it takes.
        let bad = try await upright(["ctl", "--socket", socket, "touch-check", "tap", "x"])
        #expect(bad.status == 1 && bad.stdout.contains("touch-check takes \\\"start\\\""), "\(bad.stdout)")
        #expect(bad.stdout.contains("got 'tap x'"), "the words after the command are its one argument: \(bad.stdout)")
    }
}
