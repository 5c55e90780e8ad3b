import Foundation
import Subprocess
import SystemPackage

/// Runs a helper program (wlr-randr, xrandr, xinput, grim) found on `PATH` through
/// swift-subprocess, with a timeout, and returns its standard output; a failure names the
/// command, its exit status and what it said.
public struct HelperProgram: Sendable {
    public let name: String
    /// Extra environment (`WAYLAND_DISPLAY`, `DISPLAY`), over the process's own.
    public let environment: [String: String]
    /// Seconds: a helper that has not answered by then is ended and its call fails. Generous: on
    /// a machine that is starting everything at once (a kiosk's boot) helpers take seconds.
    public var timeout: Double = 10

    public init(name: String, environment: [String: String] = [:], timeout: Double = 10) {
        self.name = name
        self.environment = environment
        self.timeout = timeout
    }

    /// The program's path, or `nil` when it is not installed.
    public var path: String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return (dirs + ["/usr/bin", "/usr/local/bin"]).map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Standard output as text.
    public func run(_ arguments: [String]) async throws(DisplayError) -> String {
        String(decoding: try await output(arguments), as: UTF8.self)
    }

    private struct Outcome: Sendable {
        var status: TerminationStatus
        var output: [UInt8]
        var error: String
    }

    private struct TimedOut: Error {}

    /// Standard output as bytes (a picture from grim).
    public func output(_ arguments: [String]) async throws(DisplayError) -> [UInt8] {
        guard let path else { throw DisplayError("\(name) is not installed (it is in the Debian package '\(name)')") }
        let command = ([name] + arguments).joined(separator: " ")
        let extra = Dictionary(
            uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), $0.value) })
        let timeout = timeout
        let outcome: Outcome
        do {
            outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    let r = try await Subprocess.run(
                        .path(FilePath(path)), arguments: Arguments(arguments),
                        environment: .inherit.updating(extra), input: .none, output: .bytes(limit: 64 << 20),
                        error: .string(limit: 1 << 16))
                    return Outcome(status: r.terminationStatus, output: r.standardOutput, error: r.standardError)
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw TimedOut()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch is TimedOut {
            throw DisplayError("\(command) did not finish within \(Int(timeout)) s")
        } catch {
            throw DisplayError("cannot run \(command): \(error)")
        }
        guard outcome.status.isSuccess else {
            let said = outcome.error.trimmingCharacters(in: .whitespacesAndNewlines)
            throw DisplayError("\(command) failed with \(outcome.status)" + (said.isEmpty ? "" : ": \(said)"))
        }
        return outcome.output
    }
}
