import Foundation
import Testing
import Udev

/// libudev on this machine's real sysfs: /dev/null (character device 1:3) is on every Linux system.
/// Reading a property from udev's database is tested where the database is made for a test, in a
/// private mount namespace (the sensor's integration tests).
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/sys/dev/char/1:3")))
struct UdevDeviceTests {
    @Test func findsADeviceByItsNumber() throws {
        let null = try #require(UdevDevice(characterDevice: 1, 3))
        #expect(null.syspath == "/sys/devices/virtual/mem/null")
        #expect(null.subsystem == "mem")
        // Properties come from the device's uevent as well as udev's database.
        #expect(null.property("DEVNAME") == "/dev/null")
        #expect(null.property("MAJOR") == "1")
        #expect(null.property("ACCEL_MOUNT_MATRIX") == nil)
    }

    @Test func findsADeviceBySubsystemAndName() throws {
        let null = try #require(UdevDevice(subsystem: "mem", name: "null"))
        #expect(null.syspath == "/sys/devices/virtual/mem/null")
    }

    @Test func aMissingDeviceIsNil() {
        #expect(UdevDevice(subsystem: "iio", name: "iio:device999") == nil)
        #expect(UdevDevice(characterDevice: 4095, 1_048_000) == nil)
    }
}
