import Glibc

/// What the kernel's evdev ioctls say of an open input device. On a pipe of `input_event`
/// records (the way tests and tools feed input) they fail, and each answer is `nil` or false.
enum Evdev {
    /// `_IOC(dir, 'E', nr, size)`.
    private static func ioc(_ direction: UInt, _ nr: UInt, size: Int) -> UInt {
        (direction << 30) | (UInt(size) << 16) | (UInt(UInt8(ascii: "E")) << 8) | nr
    }
    private static let read: UInt = 2, write: UInt = 1

    /// The device's name (`EVIOCGNAME`).
    static func name(fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { ioctl(fd, ioc(read, 0x06, size: 256), $0.baseAddress!) }
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The codes the device has for event type `type` (`EVIOCGBIT`); `nil` when it is not an input device.
    static func codes(fd: Int32, type: UInt16, bytes: Int) -> Set<UInt16>? {
        var bits = [UInt8](repeating: 0, count: bytes)
        let r = bits.withUnsafeMutableBytes { ioctl(fd, ioc(read, 0x20 + UInt(type), size: bytes), $0.baseAddress!) }
        guard r >= 0 else { return nil }
        var out: Set<UInt16> = []
        for (i, byte) in bits.enumerated() where byte != 0 {
            for b in 0..<8 where byte & (1 << b) != 0 { out.insert(UInt16(i * 8 + b)) }
        }
        return out
    }

    /// The keys the device has (`KEY_MAX` is 0x2ff: 96 bytes of bits).
    static func keys(fd: Int32) -> Set<UInt16>? { codes(fd: fd, type: InputRecord.evKey, bytes: 96) }

    /// The switches the device has (`SW_MAX` is 0x10: 8 bytes of bits are plenty).
    static func switches(fd: Int32) -> Set<UInt16>? { codes(fd: fd, type: InputRecord.evSw, bytes: 8) }

    /// Whether the device has `SW_ROTATE_LOCK` among its `switches`, or `KEY_ROTATE_LOCK_TOGGLE`
    /// among its `keys`.
    static func hasLock(switches: Set<UInt16>?, keys: Set<UInt16>?) -> Bool {
        switches?.contains(InputRecord.swRotateLock) == true || keys?.contains(InputRecord.keyRotateLockToggle) == true
    }

    /// The state of the device's switch `code` now (`EVIOCGSW`); `nil` without the switch.
    static func switchState(fd: Int32, _ code: UInt16) -> Bool? {
        guard switches(fd: fd)?.contains(code) == true else { return nil }
        var bits = [UInt8](repeating: 0, count: 8)
        let r = bits.withUnsafeMutableBytes { ioctl(fd, ioc(read, 0x1b, size: 8), $0.baseAddress!) }
        guard r >= 0 else { return nil }
        return bits[Int(code) / 8] & (1 << (code % 8)) != 0
    }

    /// Takes the device for this process alone (`EVIOCGRAB`): its events no longer reach the
    /// compositor or the console. Returns the error number when the kernel refuses.
    static func grab(fd: Int32) -> Int32? {
        ioctl(fd, ioc(write, 0x90, size: MemoryLayout<Int32>.size), 1) < 0 ? errno : nil
    }
}
