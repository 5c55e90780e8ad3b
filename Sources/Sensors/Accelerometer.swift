import Foundation
public import IIO
public import Settings
import Udev

/// Why the accelerometer cannot be read, in words that name the device and the attribute.
public enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    case context(IIOError)
    case noAccelerometer(uri: String, devices: [String])
    case noSuchDevice(String, uri: String, accelerometers: [String])
    case missingAttribute(device: String, channel: String, attribute: String)
    case read(IIOError)
    case badValue(device: String, channel: String, attribute: String, text: String)

    public var description: String {
        switch self {
        case .context(let e): return "cannot open the sensor context: \(e)"
        case .noAccelerometer(let uri, let devices):
            return "no accelerometer at \(uri) (a device with accel_x, accel_y and accel_z channels); "
                + (devices.isEmpty ? "it has no IIO devices" : "its devices: " + devices.joined(separator: ", "))
        case .noSuchDevice(let d, let uri, let found):
            return "no accelerometer named '\(d)' at \(uri); found: "
                + (found.isEmpty ? "none" : found.joined(separator: ", "))
        case .missingAttribute(let device, let channel, let attribute):
            return "\(device): channel \(channel) has no '\(attribute)' attribute (in_\(channel)_\(attribute) or "
                + "in_accel_\(attribute)); cannot convert its readings to m/s²"
        case .read(let e): return e.description
        case .badValue(let device, let channel, let attribute, let text):
            return "\(device): \(channel) \(attribute) reads '\(text)', not a usable number"
        }
    }
}

/// An accelerometer opened through libiio: its three axes, their scale and offset, and the mount
/// matrix that puts its readings into the device frame. Not thread-safe: one reader thread owns it.
public final class Accelerometer {
    public let uri: String
    public let label: String
    public let matrix: MountMatrix
    public let matrixSource: MountMatrixSource
    /// Matrices refused on the way, and other remarks, as sentences.
    public let notes: [String]
    /// udev's `ACCEL_MOUNT_MATRIX` for the device as udev has it (local devices only), used or not.
    public let udevMatrix: String?
    /// `raw` (scaled here) or `input` (already in m/s²).
    public let valueAttribute: String
    public let scales: [Double]
    public let offsets: [Double]
    let context: IIOContext
    let axes: [IIOChannel]
    /// One reader per axis for ``valueAttribute``: the per-sample path.
    let readers: [IIOValueReader]

    /// True when readings come from sysfs files kept open (a local context), not through libiio.
    public var readsFilesDirectly: Bool { readers.allSatisfy(\.readsDirectly) }

    /// Opens the context, finds the accelerometer (or, with `kind: "gravity"`, a device with the
    /// `gravity_x/y/z` channels of a sensor hub's gravity vector) and reads what converting its
    /// values needs.
    public init(settings: SensorSettings, kind: String = "accel") throws(SensorError) {
        uri = settings.uri.description
        do {
            context = try IIOContext(uri: uri)
            try? context.setTimeout(milliseconds: 1000)
        } catch {
            throw .context(error)
        }
        let axisIDs = ["\(kind)_x", "\(kind)_y", "\(kind)_z"]
        let chosen = try Self.choose(settings.device, among: context.devices, axes: axisIDs, uri: uri)
        label = chosen.label
        let device = context.device(chosen.id)!
        axes = axisIDs.map { device.channel($0)! }
        let useInput = axes.allSatisfy { $0.has("input") } && !axes.allSatisfy { $0.has("raw") }
        valueAttribute = useInput ? "input" : "raw"
        readers = axes.map { $0.valueReader(useInput ? "input" : "raw") }
        if useInput {
            scales = [1, 1, 1]
            offsets = [0, 0, 0]
        } else {
            (scales, offsets) = try Self.conversion(of: axes, device: chosen.label)
        }
        udevMatrix = settings.uri.isLocal ? Self.udevMountMatrix(deviceID: chosen.id) : nil
        let sysfs = axes[0].has("mount_matrix") ? try? axes[0].read("mount_matrix") : nil
        let configured = settings.mountMatrix.trimmingCharacters(in: .whitespaces)
        (matrix, matrixSource, notes) = Self.mountMatrix(
            configured: configured == "auto" ? nil : configured, udev: udevMatrix, sysfs: sysfs)
    }

    /// The device `wanted` names (`auto`: `accel_3d`, else the first) among those with all of `axes`.
    static func choose(_ wanted: String, among all: [IIODeviceInfo], axes: [String], uri: String)
        throws(SensorError) -> IIODeviceInfo
    {
        let accelerometers = all.filter { d in axes.allSatisfy(d.channels.contains) }
        let wanted = wanted.trimmingCharacters(in: .whitespaces)
        let found: IIODeviceInfo?
        if wanted.isEmpty || wanted == "auto" {
            guard let d = accelerometers.first(where: { $0.name == "accel_3d" }) ?? accelerometers.first else {
                throw .noAccelerometer(uri: uri, devices: all.map(\.label))
            }
            return d
        } else if let i = Int(wanted) {
            found = accelerometers.indices.contains(i) ? accelerometers[i] : nil
        } else {
            found = accelerometers.first { $0.name == wanted || $0.id == wanted }
        }
        guard let found else { throw .noSuchDevice(wanted, uri: uri, accelerometers: accelerometers.map(\.label)) }
        return found
    }

    /// Each axis's `scale` (required, above 0) and `offset` (0 when absent), for raw values.
    static func conversion(of axes: [IIOChannel], device: String) throws(SensorError) -> ([Double], [Double]) {
        var scales: [Double] = [], offsets: [Double] = []
        for ch in axes {
            guard ch.has("scale") else {
                throw .missingAttribute(device: device, channel: ch.id, attribute: "scale")
            }
            do {
                let s = try ch.readDouble("scale")
                guard s > 0 else {
                    throw SensorError.badValue(device: device, channel: ch.id, attribute: "scale", text: String(s))
                }
                scales.append(s)
                offsets.append(ch.has("offset") ? try ch.readDouble("offset") : 0)
            } catch let e as IIOError {
                throw .read(e)
            } catch let e as SensorError {
                throw e
            } catch {
                throw .read(IIOError(call: "reading scale of \(ch.id)", message: "\(error)", code: 0))
            }
        }
        return (scales, offsets)
    }

    /// The mount matrix: the configuration's, then udev's `ACCEL_MOUNT_MATRIX`, then sysfs, then
    /// the identity; a matrix that is refused is said in the notes and the next one is tried.
    static func mountMatrix(configured: String?, udev: String?, sysfs: String?)
        -> (MountMatrix, MountMatrixSource, [String])
    {
        var notes: [String] = []
        for (text, source) in [(configured, MountMatrixSource.configuration), (udev, .udev), (sysfs, .sysfs)] {
            guard let text, !text.isEmpty else { continue }
            guard let m = MountMatrix(parsing: text) else {
                notes.append("refused the \(source.rawValue) '\(text)': it is not three rows of three numbers")
                continue
            }
            let problems = m.problems
            guard problems.isEmpty else {
                notes.append("refused the \(source.rawValue) '\(text)': " + problems.joined(separator: "; "))
                continue
            }
            return (m, source, notes)
        }
        return (.identity, .identity, notes)
    }

    /// The device's sampling frequency in Hz (the shared `sampling_frequency` attribute), if it has one.
    public var samplingFrequency: Double? {
        guard axes[0].has("sampling_frequency") else { return nil }
        return try? axes[0].readDouble("sampling_frequency")
    }

    /// Sets the device's sampling frequency (`sampling_frequency`).
    ///
    /// - Throws: ``SensorError/read(_:)`` with libiio's message (a read-only attribute, a value the
    ///   driver refuses), or ``SensorError/missingAttribute(device:channel:attribute:)``.
    public func setSamplingFrequency(_ hz: Double) throws(SensorError) {
        guard axes[0].has("sampling_frequency") else {
            throw .missingAttribute(device: label, channel: axes[0].id, attribute: "sampling_frequency")
        }
        do {
            try axes[0].write("sampling_frequency", hz == hz.rounded() ? String(Int(hz)) : String(hz))
        } catch {
            throw .read(error)
        }
    }

    /// One reading in the device frame, m/s².
    ///
    /// - Throws: ``SensorError/read(_:)`` when the device cannot be read (it went away, iiod stopped),
    ///   ``SensorError/badValue(device:channel:attribute:text:)`` for a value that is not a number.
    public func read() throws(SensorError) -> (x: Double, y: Double, z: Double) {
        var v = (0.0, 0.0, 0.0)
        for (i, reader) in readers.enumerated() {
            let n: Double
            do {
                n = try reader.read()
            } catch  where error.code == EINVAL {
                let text =
                    error.message.hasPrefix("'")
                    ? String(error.message.dropFirst().prefix { $0 != "'" }) : error.message
                throw .badValue(device: label, channel: axes[i].id, attribute: valueAttribute, text: text)
            } catch {
                throw .read(error)
            }
            let value = (n + offsets[i]) * scales[i]
            switch i {
            case 0: v.0 = value
            case 1: v.1 = value
            default: v.2 = value
            }
        }
        return matrix.gravity(v)
    }

    /// udev's `ACCEL_MOUNT_MATRIX` for a local device, if it has one: the property systemd's hwdb
    /// (`60-sensor.hwdb`) gives it through udev's rules, read with libudev from udev's database. The
    /// device is found by its character device number (its `dev` attribute), as udev keys its
    /// database, or by subsystem and name when it has none.
    static func udevMountMatrix(deviceID: String) -> String? {
        let numbers = (try? String(contentsOfFile: "/sys/bus/iio/devices/\(deviceID)/dev", encoding: .utf8))
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").compactMap { UInt32($0) } }
        let device =
            if let numbers, numbers.count == 2 {
                UdevDevice(characterDevice: numbers[0], numbers[1])
            } else {
                UdevDevice(subsystem: "iio", name: deviceID)
            }
        return device?.property("ACCEL_MOUNT_MATRIX")
    }
}
