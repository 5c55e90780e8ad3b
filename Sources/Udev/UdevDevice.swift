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

    /// The device's sysfs path (`/sys/devices/...`).
    public var syspath: String { udev_device_get_syspath(handle).map { String(cString: $0) } ?? "" }

    /// The device's subsystem (`iio`), when it has one.
    public var subsystem: String? { udev_device_get_subsystem(handle).map { String(cString: $0) } }

    /// A property udev gave the device, or `nil` when it has none (or udev never processed it).
    public func property(_ name: String) -> String? {
        udev_device_get_property_value(handle, name).map { String(cString: $0) }
    }
}
