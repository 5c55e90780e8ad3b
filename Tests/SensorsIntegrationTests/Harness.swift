import Blocking
import Foundation
import Session
import TestSupport
import Testing
import Wire

/// The repository's root (this file is Tests/SensorsIntegrationTests/Harness.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The built `upright` next to the test bundle.
let uprightPath: String = {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("upright").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir.deleteLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/upright").path
}()

/// True when this machine can make a private mount namespace (root, or user namespaces allowed).
let namespacesWork: Bool = {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = getuid() == 0 ? ["unshare", "-m", "true"] : ["unshare", "-r", "-m", "true"]
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}()

let iiodPath: String? = ["/usr/sbin/iiod", "/usr/bin/iiod"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// A running process whose output is collected.
// @unchecked: Process is used from the test thread only; the pipes hold their own locks.
final class Running: @unchecked Sendable {
    let process = Process()
    private let out = CollectedPipe(), err = CollectedPipe()

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = out.pipe
        process.standardError = err.pipe
        try process.run()
    }

    var stdout: String { out.text }
    var stderr: String { err.text }

    /// Waits for the process to end by itself (at most `timeout` seconds), then for the pipes to
    /// drain. The waits hold no thread of the cooperative pool (on two cores, a test that does
    /// starves every task of the test process).
    func wait(timeout: Double = 30) async {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < end { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        let process = process
        await Blocking.run { process.waitUntilExit() }
        try? await Task.sleep(for: .milliseconds(100))
    }

    /// Waits until `condition` holds for the output (at most `timeout` seconds).
    @discardableResult
    func waitFor(timeout: Double = 10, _ condition: (Running) -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(self)
    }

    /// Ends a run given a long `--duration` once `condition` holds for its output (at most
    /// `timeout` seconds): SIGINT, which ends `upright sensor` as its duration would, then waits.
    /// A run cut to a short duration instead would end early on a loaded machine, before what
    /// the test waits for.
    func finish(timeout: Double = 20, when condition: (Running) -> Bool) async {
        _ = await waitFor(timeout: timeout, condition)
        if process.isRunning { process.interrupt() }
        await wait()
    }

    /// Ends the process: SIGTERM, or SIGKILL with `kill` (as a crash; iiod keeps running on SIGTERM
    /// while a client is connected).
    func stop(kill: Bool = false) {
        if process.isRunning {
            if kill { process.send(SIGKILL) } else { process.terminate() }
        }
        process.waitUntilExit()
    }
}

/// Runs `upright ARGS` inside the fake tree's namespace.
func uprightInNamespace(_ fake: FakeIIO, _ arguments: [String], environment: [String: String] = [:]) throws -> Running {
    try Running(
        repositoryRoot.appendingPathComponent("scripts/with-fake-iio.sh").path,
        [fake.root.path, uprightPath] + arguments, environment: environment)
}

/// The orientations of `upright replay`'s or `upright sensor --json`'s lines, each read back by its record.
func orientations(_ jsonLines: String) -> [String] {
    jsonLines.split(separator: "\n").compactMap { line in
        let data = Data(line.utf8)
        let change = try? JSONDecoder().decode(ChangeRecord.self, from: data)
        let other = try? JSONDecoder().decode(SensorRecord.Orientation.self, from: data)
        return (change?.orientation ?? other?.orientation)?.name
    }
}

/// `struct input_event` records (64-bit Linux: timeval, type, code, value) for the lock switch.
enum RotationLockSwitchRecords {
    static func record(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: type.littleEndian) { r += $0 }
        withUnsafeBytes(of: code.littleEndian) { r += $0 }
        withUnsafeBytes(of: value.littleEndian) { r += $0 }
        return r
    }

    /// EV_SW SW_ROTATE_LOCK.
    static func switched(on: Bool) -> [UInt8] { record(type: 0x05, code: 0x0c, value: on ? 1 : 0) }
    /// EV_KEY KEY_ROTATE_LOCK_TOGGLE pressed and released.
    static func keyPress() -> [UInt8] {
        record(type: 0x01, code: 0x231, value: 1) + record(type: 0x01, code: 0x231, value: 0)
    }
}
