import Foundation

/// A change the rotation-lock hardware reports.
public enum LockSwitchEvent: Sendable, Hashable {
    /// `SW_ROTATE_LOCK` moved to on or off.
    case set(Bool)
    /// `KEY_ROTATE_LOCK_TOGGLE` was pressed.
    case toggle
}

/// The rotation-lock switch of Linux input devices: evdev `SW_ROTATE_LOCK` (initial state by
/// `EVIOCGSW`, then events) and the key `KEY_ROTATE_LOCK_TOGGLE`. libinput does not pass
/// `SW_ROTATE_LOCK` on, so the event node is read directly.
public enum RotationLockSwitch {
    static let evSyn: UInt16 = 0x00, evKey: UInt16 = 0x01, evSw: UInt16 = 0x05
    static let swRotateLock: UInt16 = 0x0c
    static let keyRotateLockToggle: UInt16 = 0x231
    /// `struct input_event` on 64-bit Linux: a 16-byte timeval, then type, code (u16) and value (s32).
    public static let recordSize = 24

    /// The lock events in a run of `input_event` records (a partial record at the end is ignored).
    public static func decode(_ bytes: [UInt8]) -> [LockSwitchEvent] {
        var out: [LockSwitchEvent] = []
        var i = 0
        while i + recordSize <= bytes.count {
            let type = UInt16(bytes[i + 16]) | UInt16(bytes[i + 17]) << 8
            let code = UInt16(bytes[i + 18]) | UInt16(bytes[i + 19]) << 8
            let value = Int32(
                bitPattern: UInt32(bytes[i + 20]) | UInt32(bytes[i + 21]) << 8
                    | UInt32(bytes[i + 22]) << 16 | UInt32(bytes[i + 23]) << 24)
            if type == evSw, code == swRotateLock { out.append(.set(value != 0)) }
            if type == evKey, code == keyRotateLockToggle, value == 1 { out.append(.toggle) }
            i += recordSize
        }
        return out
    }

    /// One `input_event` record, for tests and tools that feed a pipe.
    public static func record(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: recordSize)
        r[16] = UInt8(type & 0xff); r[17] = UInt8(type >> 8)
        r[18] = UInt8(code & 0xff); r[19] = UInt8(code >> 8)
        let v = UInt32(bitPattern: value)
        for k in 0..<4 { r[20 + k] = UInt8((v >> (8 * UInt32(k))) & 0xff) }
        return r
    }

    /// `SW_ROTATE_LOCK` set or cleared, as a record.
    public static func switchRecord(locked: Bool) -> [UInt8] {
        record(type: evSw, code: swRotateLock, value: locked ? 1 : 0)
    }
    /// A press of `KEY_ROTATE_LOCK_TOGGLE`, as a record.
    public static func toggleRecord() -> [UInt8] { record(type: evKey, code: keyRotateLockToggle, value: 1) }

    static func ioc(read size: Int, _ nr: UInt) -> UInt {
        (2 << 30) | (UInt(size) << 16) | (UInt(UInt8(ascii: "E")) << 8) | nr
    }

    /// The switch's state now (`EVIOCGSW`), or `nil` when `fd` is not an input device with it.
    public static func currentState(fd: Int32) -> Bool? {
        guard capabilities(fd: fd).switch else { return nil }
        var bits = [UInt8](repeating: 0, count: 8)
        let r = bits.withUnsafeMutableBytes { ioctl(fd, ioc(read: 8, 0x1b), $0.baseAddress!) }
        guard r >= 0 else { return nil }
        return bits[Int(swRotateLock) / 8] & (1 << (swRotateLock % 8)) != 0
    }

    /// Whether an input device has `SW_ROTATE_LOCK` and `KEY_ROTATE_LOCK_TOGGLE` (`EVIOCGBIT`).
    public static func capabilities(fd: Int32) -> (switch: Bool, key: Bool) {
        func bit(_ ev: UInt16, _ code: UInt16, bytes: Int) -> Bool {
            var bits = [UInt8](repeating: 0, count: bytes)
            let r = bits.withUnsafeMutableBytes { ioctl(fd, ioc(read: bytes, 0x20 + UInt(ev)), $0.baseAddress!) }
            return r >= 0 && bits[Int(code) / 8] & (1 << (code % 8)) != 0
        }
        return (bit(evSw, swRotateLock, bytes: 8), bit(evKey, keyRotateLockToggle, bytes: 96))
    }

    /// The input devices under `/dev/input` that have the switch or the key.
    public static func find(in directory: String = "/dev/input") -> [(path: String, switch: Bool, key: Bool)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("event") }.sorted().compactMap { name in
            let path = directory + "/" + name
            let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            let c = capabilities(fd: fd)
            return c.switch || c.key ? (path, c.switch, c.key) : nil
        }
    }

    /// Reads lock events from an input device, or from any file or pipe of `input_event` records,
    /// on a dedicated thread. For a real device the first event is its state now (`EVIOCGSW`).
    /// The stream ends at end of file, or with an error it names.
    public static func events(path: String) -> AsyncThrowingStream<LockSwitchEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: LockSwitchEvent.self)
        let thread = Thread {
            let fd = Glibc.open(path, O_RDONLY)
            guard fd >= 0 else {
                continuation.finish(throwing: LockSwitchError(path: path, message: String(cString: strerror(errno))))
                return
            }
            defer { close(fd) }
            if let state = currentState(fd: fd) { continuation.yield(.set(state)) }
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: recordSize * 32)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n < 0 {
                    continuation.finish(
                        throwing: LockSwitchError(path: path, message: String(cString: strerror(errno))))
                    return
                }
                if n == 0 { break }
                pending += buffer[0..<n]
                let whole = pending.count / recordSize * recordSize
                for e in decode(Array(pending[0..<whole])) { continuation.yield(e) }
                pending.removeFirst(whole)
            }
            continuation.finish()
        }
        thread.name = "upright-lock-switch"
        thread.start()
        return stream
    }
}

/// The lock switch could not be read.
public struct LockSwitchError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "cannot read the rotation-lock switch \(path): \(message)" }
}

/// The rotation lock from its three sources (the configuration, runtime commands and the
/// switch): the latest word wins; the key toggles.
public struct RotationLockState: Sendable, Hashable {
    public private(set) var locked: Bool
    /// What set it last.
    public private(set) var source: LockSource

    public init(configured: Bool) {
        locked = configured
        source = .configuration
    }

    /// Applies a switch event; returns true when the lock changed.
    public mutating func apply(_ e: LockSwitchEvent) -> Bool {
        let before = locked
        switch e {
        case .set(let on): locked = on
        case .toggle: locked.toggle()
        }
        source = .lockSwitch
        return locked != before
    }

    /// Applies a command (`lock`, `unlock`); returns true when the lock changed.
    public mutating func command(locked on: Bool) -> Bool {
        let before = locked
        locked = on
        source = .command
        return locked != before
    }
}
