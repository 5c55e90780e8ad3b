import CUdev
import Glibc

/// A device as udev knows it: where it is in sysfs, and the properties udev's rules gave it
/// (`ACCEL_MOUNT_MATRIX` from systemd's hwdb, for one), read with libudev from the database that
/// systemd-udevd keeps under `/run/udev`. Owns its libudev context and device and releases them
/// in `deinit`.
///
/// libudev accepts only devices on a real sysfs (it checks the file system's type).
public final class UdevDevice {
    let udev: OpaquePointer
    let handle: OpaquePointer

    private init?(_ find: (OpaquePointer) -> OpaquePointer?) {
        guard let udev = udev_new() else { return nil }
        guard let device = find(udev) else {
            udev_unref(udev)
            return nil
        }
        self.udev = udev
        handle = device
    }

    deinit {
        udev_device_unref(handle)
        udev_unref(udev)
    }

    /// The device behind a character device number (`udev_device_new_from_devnum`), or `nil`.
    public convenience init?(characterDevice major: UInt32, _ minor: UInt32) {
        self.init { udev_device_new_from_devnum($0, CChar(UInt8(ascii: "c")), cudev_makedev(major, minor)) }
    }

    /// The device of a subsystem by its name, as `iio` and `iio:device0`
    /// (`udev_device_new_from_subsystem_sysname`), or `nil`.
    public convenience init?(subsystem: String, name: String) {
        self.init { udev_device_new_from_subsystem_sysname($0, subsystem, name) }
    }

    /// The device at a sysfs path (`udev_device_new_from_syspath`), or `nil`.
    public convenience init?(syspath: String) {
        self.init { udev_device_new_from_syspath($0, syspath) }
    }

    /// The devices of `subsystem` that udev gave `property` = `value` (`input`,
    /// `ID_INPUT_TOUCHSCREEN`, `1`), by their sysfs paths, in order.
    public static func all(subsystem: String, property: String, value: String) -> [UdevDevice] {
        guard let udev = udev_new() else { return [] }
        defer { udev_unref(udev) }
        guard let enumerate = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(enumerate) }
        udev_enumerate_add_match_subsystem(enumerate, subsystem)
        udev_enumerate_add_match_property(enumerate, property, value)
        udev_enumerate_scan_devices(enumerate)
        var paths: [String] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let e = entry {
            if let name = udev_list_entry_get_name(e) { paths.append(String(cString: name)) }
            entry = udev_list_entry_get_next(e)
        }
        return paths.sorted().compactMap { UdevDevice(syspath: $0) }
    }

    /// The device's node (`/dev/input/event3`), when it has one.
    public var devnode: String? { udev_device_get_devnode(handle).map { String(cString: $0) } }

    /// A sysfs attribute of the device (`device/name`), or `nil`.
    public func attribute(_ name: String) -> String? {
        udev_device_get_sysattr_value(handle, name).map { String(cString: $0) }
    }

    /// The device's sysfs path (`/sys/devices/...`).
    public var syspath: String { udev_device_get_syspath(handle).map { String(cString: $0) } ?? "" }

    /// The device's subsystem (`iio`), when it has one.
    public var subsystem: String? { udev_device_get_subsystem(handle).map { String(cString: $0) } }

    /// A property udev gave the device, or `nil` when it has none (or udev never processed it).
    public func property(_ name: String) -> String? {
        udev_device_get_property_value(handle, name).map { String(cString: $0) }
    }
}
