import Display
import Foundation
import Testing

/// Every way out of `upright play` waits for mpv's shutdown and `mpv_terminate_destroy` before the
/// process exits. With no display mpv falls back to `vo=sdl`, which draws through EGL (llvmpipe):
/// an `exit` under its live GL threads corrupted the heap in about one run in twenty.
@Suite("upright play exits cleanly")
struct ExitTests {
    /// The environment of a machine with no display at all, and a private runtime directory.
    static func noDisplay() throws -> (environment: [String: String], directory: String) {
        let directory = NSTemporaryDirectory() + "upright-exit-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        for name in ["WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK", "UPRIGHT_CONTROL"] { environment[name] = nil }
        environment["XDG_RUNTIME_DIR"] = directory
        return (environment, directory)
    }

    @Test func fiftyRunsWithNoDisplayEndWithoutACrash() async throws {
        let (environment, directory) = try Self.noDisplay()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["play", "--uri", "none", "--duration", "0.4", "--no-control"]
        // Two at a time (two cores); each run's status and last words, for the failure message.
        let runs = try await withThrowingTaskGroup(of: [Run].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    var runs: [Run] = []
                    for _ in 0..<25 { runs.append(try await upright(arguments, environment: environment)) }
                    return runs
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(runs.count == 50)
        let failed = runs.filter { $0.status != 0 }
        #expect(
            failed.isEmpty,
            "\(failed.count) of 50 runs failed: \(failed.map { "\($0.status): \($0.stderr.suffix(300))" })")
    }

    @Test(.enabled(if: DisplayPresence.drmDevices().isEmpty, "a DRM device is a display"))
    func noDisplayAtAllIsSaidLoudlyAndEndsTheProcessAfterTheWait() async throws {
        let (environment, directory) = try Self.noDisplay()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try temporaryFile("[display]\nwait = 1\n")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try await upright(
            ["play", "--config", config, "--uri", "none", "--no-control"], environment: environment)
        #expect(run.status != 0)
        #expect(run.stderr.contains("error: no display: no WAYLAND_DISPLAY, DISPLAY or DRM device"), "\(run.stderr)")
        #expect(run.stderr.contains("(waited 1 s; display.wait sets how long)"), "\(run.stderr)")
    }
}
