import ArgumentParser
import Blocking
import Control
import Display
import Foundation
import Playback
import Settings
import UprightDaemon
import Wire

/// `upright touch-check`: targets over the running player's picture, each tap judged, and the
/// calibration matrix that would put the taps right, written to a sway drop-in when asked.
struct TouchCheckCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touch-check",
        abstract: "Check where taps land on a running `upright play`: targets at the corners and the centre.",
        discussion: """
            The player shows a cross at each corner of the picture, then at its centre, in the orientation \
            shown now; tap each. Every tap is reported as a hit or a miss, with its offset in the picture's \
            pixels. Run it again in each orientation to find a mounting error. When every target has its \
            tap, the calibration matrix that would put each tap on its target is printed, and, with \
            --write, written as a sway drop-in (input "ID" calibration_matrix ...), to be included from \
            sway's configuration. The exit status is 0 when every tap hit, 1 otherwise.
            """)

    @Option(help: "The control socket (default: as `upright ctl` finds it).")
    var socket: String?

    @Option(help: "Seconds to wait for all the taps before giving up.")
    var timeout: Double = 120

    @Option(help: "Write the calibration as a sway drop-in to this file (when every target has its tap).")
    var write: String?

    @Option(help: "The touchscreen as sway names it (vendor:product:name; default: the only one udev finds).")
    var device: String?

    func run() async throws {
        let path = socket ?? findControlSocket()
        let limit = timeout
        let report = try await Blocking.run { () throws -> TouchCheckReport in try Self.follow(path, timeout: limit) }
        print(report.state)
        guard report.taps.count == report.targets.count else { throw ExitCode(1) }
        let output = try await Blocking.run { () throws -> OutputTransform in try Self.outputTransform(path) }
        guard let matrix = Self.matrix(report, output: output) else {
            throw CLIFailure("the taps lie on a line: no calibration can be made from them")
        }
        print("calibration matrix (the touchscreen's own points, after any in force): " + Self.text(matrix))
        if let write {
            let identifier = try device ?? Self.onlyTouchscreen()
            // libinput's matrix replaces the one in force: the new one is the fit after it.
            let (current, whence) = await Self.calibrationInForce(identifier)
            let full = TouchCalibration.compose(matrix, current)
            print("the calibration in force \(whence): \(Self.text(current)); to set: \(Self.text(full))")
            try Self.writeDropIn(full, to: write, identifier: identifier)
        }
        if !report.taps.allSatisfy(\.hit) { throw ExitCode(1) }
    }

    /// Starts the check and prints each tap as it is judged, until the last or the time is up.
    static func follow(_ path: String, timeout: Double) throws -> TouchCheckReport {
        var report = try ask("start", path)
        print("Tap each cross on the screen: the four corners, then the centre.")
        let end = Date().addingTimeInterval(timeout)
        var said = 0
        while true {
            for (n, tap) in report.taps.enumerated().dropFirst(said) { print(line(n, tap)) }
            said = report.taps.count
            if !report.running { return report }
            if Date() > end {
                _ = try ask("stop", path)
                print("no tap for target \(said + 1) within \(Int(timeout)) s")
                throw ExitCode(1)
            }
            Thread.sleep(forTimeInterval: 0.1)
            report = try ask(nil, path)
        }
    }

    static func text(_ matrix: [Double]) -> String { matrix.map { String(format: "%.4f", $0) }.joined(separator: " ") }

    /// The calibration libinput applies to the device now, as sway says it, and where it came
    /// from; none (the identity) without sway.
    static func calibrationInForce(_ identifier: String) async -> ([Double], String) {
        let identity: [Double] = [1, 0, 0, 0, 1, 0]
        let (backend, _) = await DisplayDetection.backend(DisplaySettings())
        guard let sway = backend as? SwayBackend else { return (identity, "(no sway found: taken as none)") }
        guard let matrix = await sway.calibration(of: identifier) else {
            return (identity, "(sway says none for \(identifier))")
        }
        return (matrix, "(sway's, for \(identifier))")
    }

    /// One tap's line: "target 2 (top right): missed by 120 px: 110 px right, 48 px up".
    static func line(_ n: Int, _ tap: TouchCheckReport.Tap) -> String {
        let names = ["top left", "top right", "bottom right", "bottom left", "centre"]
        return "target \(n + 1) (\(n < names.count ? names[n] : "?")): "
            + PlaybackCore.tapWords(dx: tap.dx, dy: tap.dy, hit: tap.hit)
    }

    /// The matrix that would put each tap on its target, in the touchscreen's own points.
    static func matrix(_ report: TouchCheckReport, output: OutputTransform) -> [Double]? {
        var c = TouchCalibration(width: Double(report.width), height: Double(report.height))
        for tap in report.taps where tap.tap.count == 2 { c.record((tap.tap[0], tap.tap[1])) }
        return c.matrix { TouchPath.panelPoint(picture: $0, pictureTurn: report.angle, output: output) }
    }

    /// The output's transform now, from the player's status.
    static func outputTransform(_ path: String) throws -> OutputTransform {
        let reply = try send(ControlRequestLine(command: "status").line, path)
        let degrees = reply.status?.display.transform ?? 0
        return OutputTransform(clockwise: degrees % 90 == 0 ? degrees : 0)
    }

    /// The one touchscreen udev finds, as sway names it.
    static func onlyTouchscreen() throws -> String {
        let found = Touchscreen.found()
        guard found.count == 1 else {
            throw CLIFailure(
                found.isEmpty
                    ? "udev finds no touchscreen: name it with --device"
                    : "udev finds \(found.count) touchscreens (\(found.map(\.swayIdentifier).joined(separator: ", "))): "
                        + "name one with --device")
        }
        return found[0].swayIdentifier
    }

    static func writeDropIn(_ matrix: [Double], to file: String, identifier: String) throws {
        do {
            try TouchCalibration.swayDropIn(identifier: identifier, matrix: matrix)
                .write(toFile: file, atomically: true, encoding: .utf8)
        } catch {
            throw CLIFailure("cannot write \(file): \(error.localizedDescription)")
        }
        print("wrote \(file): include it from sway's configuration, then `swaymsg reload`")
    }

    /// Asks the touch check (`nil`: where it stands); a refusal is the error.
    static func ask(_ argument: String?, _ path: String) throws -> TouchCheckReport {
        let reply = try send(ControlRequestLine(command: "touch-check", argument: argument).line, path)
        guard let report = reply.touchCheck else {
            throw CLIFailure("the player says no touch check runs" + (reply.message.map { ": \($0)" } ?? ""))
        }
        return report
    }

    static func send(_ line: String, _ path: String) throws -> ControlReply {
        let text: String
        do {
            text = try ControlClient.send(line, to: path)
        } catch {
            throw CLIFailure(String(describing: error))
        }
        guard let reply = ControlReply(line: text) else { throw CLIFailure("the player's reply is not one: \(text)") }
        guard reply.ok else { throw CLIFailure(reply.error ?? "the player refused: \(text)") }
        return reply
    }
}
