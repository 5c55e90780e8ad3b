import Blocking
import Foundation

/// Runs a helper program (wlr-randr, xrandr, xinput, grim) found on `PATH`, with a timeout, and
/// returns its standard output; a failure names the command, its exit status and what it said.
///
/// The program runs through Foundation's `Process` on a ``Blocking`` thread, not through an
/// asynchronous process library: such a library resumes on the cooperative pool, and a process
/// whose pool is held (two synchronous waits on a two-core machine) then lets a 50 ms `xrandr`
/// time out.
public struct HelperProgram: Sendable {
    public let name: String
    /// Extra environment (`WAYLAND_DISPLAY`, `DISPLAY`), over the process's own.
    public let environment: [String: String]
    public var timeout: Double = 5

    public init(name: String, environment: [String: String] = [:], timeout: Double = 5) {
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

    /// Standard output as bytes (a picture from grim).
    public func output(_ arguments: [String]) async throws(DisplayError) -> [UInt8] {
        let helper = self
        return try await Blocking.run { () throws(DisplayError) in try helper.runNow(arguments) }
    }

    /// Runs the program and waits for it, on the calling thread.
    private func runNow(_ arguments: [String]) throws(DisplayError) -> [UInt8] {
        guard let path else { throw DisplayError("\(name) is not installed (it is in the Debian package '\(name)')") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        let command = ([name] + arguments).joined(separator: " ")
        do { try p.run() } catch { throw DisplayError("cannot run \(command): \(error.localizedDescription)") }
        // Read both pipes while it runs, so a chatty program cannot fill one and hang.
        nonisolated(unsafe) var stdout = Data(), stderr = Data()  // each written by one task, read after both end
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stdout = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { stderr = err.fileHandleForReading.readDataToEndOfFile() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            p.terminate()
            _ = group.wait(timeout: .now() + 1)
            throw DisplayError("\(command) did not finish within \(Int(timeout)) s")
        }
        p.waitUntilExit()
        let said = String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard p.terminationStatus == 0 else {
            throw DisplayError(
                "\(command) failed with exit status \(p.terminationStatus)" + (said.isEmpty ? "" : ": \(said)"))
        }
        return [UInt8](stdout)
    }
}
