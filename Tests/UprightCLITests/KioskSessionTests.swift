import Blocking
import Foundation
import TestSupport
import Testing

/// `upright-kiosk-session`, the packaged sessions' launcher, with a stand-in compositor that
/// records how it was started.
@Suite("The kiosk session's launcher")
struct KioskSessionTests {
    static let launcher = HeadlessSway.packageRoot + "/packaging/kiosk/upright-kiosk-session"

    /// A compositor that dies at start unless it renders in software (Mesa's llvmpipe on a
    /// virtual GPU without 3D), as sway and cage did on a real boot.
    static func compositor(in directory: String, failsWith status: Int = 134) throws -> String {
        let path = directory + "/compositor"
        try """
        #!/bin/sh
        echo "renderer=${WLR_RENDERER:-default} watchdog_pid=${WATCHDOG_PID:-unset} args=$*" >> "\(directory)/runs"
        [ "${WLR_RENDERER:-}" = pixman ] && exit 0
        exit \(status)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "kiosk-session-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs the launcher and waits for it on the calling thread (callers use Blocking.run: a wait
    /// on the cooperative pool starves every task of the test process on two cores).
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["WLR_RENDERER"] = nil
        // Not under systemd's journal here: the launcher's output stays on its stderr.
        env["JOURNAL_STREAM"] = "test"
        process.environment = env.merging(environment) { $1 }
        let err = Pipe()
        process.standardError = err
        try process.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }

    @Test func aCompositorThatDiesAtStartIsStartedAgainWithSoftwareRendering() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let compositor = try Self.compositor(in: directory)
        let (status, said) = try await Blocking.run {
            try Self.run([compositor, "--config", "kiosk.conf"], environment: ["WATCHDOG_PID": "1"])
        }
        #expect(status == 0)
        let runs = try String(contentsOfFile: directory + "/runs", encoding: .utf8)
        #expect(
            runs == """
                renderer=default watchdog_pid=unset args=--config kiosk.conf
                renderer=pixman watchdog_pid=unset args=--config kiosk.conf

                """)
        #expect(
            said.contains("ended with status 134 within 20 s of its start; starting it again with WLR_RENDERER=pixman"))
    }

    @Test func theOperatorsRendererIsKeptAndTheStatusPassedOn() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let compositor = try Self.compositor(in: directory, failsWith: 3)
        let (status, _) = try await Blocking.run { try Self.run([compositor], environment: ["WLR_RENDERER": "gles2"]) }
        #expect(status == 3)
        let runs = try String(contentsOfFile: directory + "/runs", encoding: .utf8)
        #expect(runs == "renderer=gles2 watchdog_pid=unset args=\n")
    }
}
