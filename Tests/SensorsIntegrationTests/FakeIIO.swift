import Blocking
import Foundation
import Session
import TestSupport
import Testing

/// A fake IIO accelerometer: a sysfs-like tree that `scripts/with-fake-iio.sh` mounts over
/// /sys/bus/iio in a private mount namespace, so the real libiio (and a real iiod) read it.
final class FakeIIO {
    let root: URL
    var device: URL { root.appendingPathComponent("devices/iio:device0") }
    let scale = 0.00981

    init(
        name: String = "accel_3d", scale: Bool = true, matrix: String? = "1, 0, 0; 0, 1, 0; 0, 0, 1",
        channels: [String] = ["x", "y", "z"], udevMatrix: String? = nil
    ) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("upright-iio-\(UUID().uuidString)")
        let dev = root.appendingPathComponent("devices/iio:device0")
        try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
        try write("name", name)
        for c in channels { try setValue("in_accel_\(c)_raw", "0") }
        if scale { try write("in_accel_scale", String(self.scale)) }
        if let matrix { try write("in_accel_mount_matrix", matrix) }
        try write("in_accel_sampling_frequency", "25")
        if let udevMatrix { try setUdevMatrix(udevMatrix) }
    }

    /// Gives the device udev's `ACCEL_MOUNT_MATRIX`, as systemd's hwdb would. libudev takes only
    /// devices on a real sysfs, so the fake device borrows the character device number of /dev/null
    /// (1:3, its `dev` attribute), and udev's database entry for that number — in a private
    /// /run/udev the namespace script mounts — carries the property.
    func setUdevMatrix(_ matrix: String) throws {
        try write("dev", "1:3")
        let data = root.appendingPathComponent("udev/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try "E:ACCEL_MOUNT_MATRIX=\(matrix)\n".write(
            to: data.appendingPathComponent("c1:3"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Writes a file atomically (a temporary file moved over the old one).
    func write(_ file: String, _ value: String, in directory: URL? = nil) throws {
        let dir = directory ?? device
        let tmp = dir.appendingPathComponent(".\(file).tmp")
        try (value + "\n").write(to: tmp, atomically: false, encoding: .utf8)
        _ = rename(tmp.path, dir.appendingPathComponent(file).path)
    }

    /// Changes a value as a driver's does: the file keeps its inode (a reader may keep it open, as
    /// Upright does) and its size (the value is padded to a fixed width and written in place, so a
    /// reader never sees a short file).
    func setValue(_ file: String, _ value: String, in directory: URL? = nil) throws {
        let url = (directory ?? device).appendingPathComponent(file)
        let text = Data((value.padding(toLength: max(15, value.count), withPad: " ", startingAt: 0) + "\n").utf8)
        if let h = FileHandle(forWritingAtPath: url.path) {
            defer { try? h.close() }
            if try h.seekToEnd() == UInt64(text.count) {
                try h.seek(toOffset: 0)
                try h.write(contentsOf: text)
                return
            }
        }
        try write(file, String(decoding: text.dropLast(), as: UTF8.self), in: directory)
    }

    /// Sets the reading to a device-frame vector in m/s² (identity mount matrix: raw = −x, −y, +z).
    func set(x: Double, y: Double, z: Double) throws {
        try setValue("in_accel_x_raw", String(Int((-x / scale).rounded())))
        try setValue("in_accel_y_raw", String(Int((-y / scale).rounded())))
        try setValue("in_accel_z_raw", String(Int((z / scale).rounded())))
    }

    func portrait() throws { try set(x: 0.3, y: 9.7, z: 1.2) }
    func landscapeLeft() throws { try set(x: 9.7, y: 0.2, z: 1.2) }
    func landscapeRight() throws { try set(x: -9.7, y: 0.2, z: 1.2) }
    func faceUp() throws { try set(x: 0.1, y: 0.2, z: 9.8) }

    /// Adds a sensor hub's gravity device (`iio:device1`, `gravity_x/y/z`) reading this device-frame vector.
    func addGravityDevice(x: Double, y: Double, z: Double) throws {
        let dev = root.appendingPathComponent("devices/iio:device1")
        try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
        try write("name", "gravity", in: dev)
        try write("in_gravity_scale", String(scale), in: dev)
        try setValue("in_gravity_x_raw", String(Int((-x / scale).rounded())), in: dev)
        try setValue("in_gravity_y_raw", String(Int((-y / scale).rounded())), in: dev)
        try setValue("in_gravity_z_raw", String(Int((z / scale).rounded())), in: dev)
    }

    /// Hides the device (as if unplugged) or brings it back.
    func unplug() throws {
        try FileManager.default.moveItem(at: device, to: root.appendingPathComponent("unplugged"))
    }

    func replug() throws {
        try FileManager.default.moveItem(at: root.appendingPathComponent("unplugged"), to: device)
    }
}

/// The repository's root (this file is Tests/SensorsIntegrationTests/FakeIIO.swift).
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
