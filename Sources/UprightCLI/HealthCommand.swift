import ArgumentParser
import Control
import Foundation
import UprightDaemon
import Wire

/// `upright health`: whether the node plays as configured, as an exit status a fleet's update
/// tool can read (RAUC's mark-good, a Mender state script).
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Say whether this screen plays as configured: exit 0 healthy, 1 not (one line why), 2 cannot tell.",
        discussion: """
            Asks the running `upright play` over its control socket. Healthy: a picture on \
            screen that has been neither black nor frozen for 10 s (sampled every 2 s as \
            `upright ctl screenshot` reads it), the display and the sensor working as \
            configured, and no restart loop (3 starts in 5 minutes). One line on standard \
            output says the verdict and why.
            """)

    @Option(help: "The control socket (default: as `upright ctl` finds it).")
    var socket: String?

    @Option(help: "Wait up to this many seconds for the screen to be healthy, asking each second.")
    var wait: Double = 0

    func validate() throws {
        guard wait >= 0, wait <= 86_400 else { throw ValidationError("--wait is 0 to 86400 seconds") }
    }

    func run() throws {
        let path = socket ?? findControlSocket()
        let end = Date().addingTimeInterval(wait)
        var report = Self.ask(path)
        while report.exit != 0, Date() < end {
            Thread.sleep(forTimeInterval: min(1, max(0, end.timeIntervalSinceNow)))
            report = Self.ask(path)
        }
        print(report.verdict + (report.reason.map { ": \($0)" } ?? ""))
        if report.exit != 0 { throw ExitCode(Int32(report.exit)) }
    }

    /// The session's answer, or "cannot tell" when none answers.
    static func ask(_ path: String) -> HealthReport {
        let none = HealthReport(
            verdict: "cannot tell", reason: "no session answers at \(path) (is upright play running?)", exit: 2,
            samples: 0)
        guard FileManager.default.fileExists(atPath: path),
            let line = try? ControlClient.send(ControlRequestLine(command: "health").line, to: path),
            let reply = ControlReply(line: line)
        else { return none }
        if let health = reply.health { return health }
        return HealthReport(
            verdict: "cannot tell", reason: reply.error ?? "the session gave no verdict", exit: 2, samples: 0)
    }
}
