public import Foundation
import Glibc

/// A fake IIO accelerometer: a sysfs-like tree that `scripts/with-fake-iio.sh` mounts over
/// /sys/bus/iio in a private mount namespace, so the real libiio (and a real iiod) read it.
/// ``namespace`` runs a command there.
public final class FakeIIO {
    public let root: URL
    public var device: URL { root.appendingPathComponent("devices/iio:device0") }
    public let scale = 0.00981

    public init(
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
    public func setUdevMatrix(_ matrix: String) throws {
        try write("dev", "1:3")
        let data = root.appendingPathComponent("udev/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try "E:ACCEL_MOUNT_MATRIX=\(matrix)\n".write(
            to: data.appendingPathComponent("c1:3"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Writes a file atomically (a temporary file moved over the old one).
    public func write(_ file: String, _ value: String, in directory: URL? = nil) throws {
        let dir = directory ?? device
        let tmp = dir.appendingPathComponent(".\(file).tmp")
        try (value + "\n").write(to: tmp, atomically: false, encoding: .utf8)
        _ = rename(tmp.path, dir.appendingPathComponent(file).path)
    }

    /// Changes a value as a driver's does: the file keeps its inode (a reader may keep it open, as
    /// Upright does) and its size (the value is padded to a fixed width and written in place, so a
    /// reader never sees a short file).
    public func setValue(_ file: String, _ value: String, in directory: URL? = nil) throws {
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
    public func set(x: Double, y: Double, z: Double) throws {
        try setValue("in_accel_x_raw", String(Int((-x / scale).rounded())))
        try setValue("in_accel_y_raw", String(Int((-y / scale).rounded())))
        try setValue("in_accel_z_raw", String(Int((z / scale).rounded())))
    }

    public func portrait() throws { try set(x: 0.3, y: 9.7, z: 1.2) }
    public func landscapeLeft() throws { try set(x: 9.7, y: 0.2, z: 1.2) }
    public func landscapeRight() throws { try set(x: -9.7, y: 0.2, z: 1.2) }
    public func faceUp() throws { try set(x: 0.1, y: 0.2, z: 9.8) }

    /// Adds a sensor hub's gravity device (`iio:device1`, `gravity_x/y/z`) reading this device-frame vector.
    public func addGravityDevice(x: Double, y: Double, z: Double) throws {
        let dev = root.appendingPathComponent("devices/iio:device1")
        try FileManager.default.createDirectory(at: dev, withIntermediateDirectories: true)
        try write("name", "gravity", in: dev)
        try write("in_gravity_scale", String(scale), in: dev)
        try setValue("in_gravity_x_raw", String(Int((-x / scale).rounded())), in: dev)
        try setValue("in_gravity_y_raw", String(Int((-y / scale).rounded())), in: dev)
        try setValue("in_gravity_z_raw", String(Int((z / scale).rounded())), in: dev)
    }

    /// Hides the device (as if unplugged) or brings it back.
    public func unplug() throws {
        try FileManager.default.moveItem(at: device, to: root.appendingPathComponent("unplugged"))
    }

    public func replug() throws {
        try FileManager.default.moveItem(at: root.appendingPathComponent("unplugged"), to: device)
    }
}

extension FakeIIO {
    /// The launcher that runs a command with this tree as its /sys/bus/iio (`scripts/with-fake-iio.sh`).
    public var namespace: [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [root.appendingPathComponent("scripts/with-fake-iio.sh").path, self.root.path]
    }
}
