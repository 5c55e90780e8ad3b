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

    /// Under a unit of Type=notify (NOTIFY_SOCKET set) the launcher becomes `upright
    /// notify-relay` (the same process): what the compositor's side says reaches the service
    /// manager from the launcher's process ID, and a stop reaches the compositor, whose end is
    /// then not taken for a renderer that failed.
    @Test func underAServiceManagerTheLauncherRelaysAndAStopEndsTheCompositor() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let compositor = directory + "/compositor"
        try """
        #!/bin/sh
        echo "renderer=${WLR_RENDERER:-default}" >> "\(directory)/runs"
        python3 -c 'import os, socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"READY=1", os.environ["NOTIFY_SOCKET"])'
        exec sleep 30
        """.write(toFile: compositor, atomically: true, encoding: .utf8)
        chmod(compositor, 0o755)
        let notify = try ServiceManagerTests.NotifySocket()
        let bin = uprightBinary.deletingLastPathComponent().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.launcher)
        process.arguments = [compositor]
        var env = ProcessInfo.processInfo.environment
        env["WLR_RENDERER"] = nil
        env["JOURNAL_STREAM"] = "test"
        env["NOTIFY_SOCKET"] = notify.path
        env["RUNTIME_DIRECTORY"] = directory
        env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        process.environment = env
        try process.run()
        defer { if process.isRunning { kill(-process.processIdentifier, SIGKILL) } }
        let received = await notify.collectWithSenders(for: 2)
        #expect(received.map(\.message) == ["READY=1"])
        #expect(received.map(\.sender) == [process.processIdentifier])
        process.terminate()
        await Blocking.run { process.waitUntilExit() }
        #expect(process.terminationStatus == 143)  // sleep's end by SIGTERM, as the script saw it
        let runs = try String(contentsOfFile: directory + "/runs", encoding: .utf8)
        #expect(runs == "renderer=default\n", "started once, not again with pixman after the stop")
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
