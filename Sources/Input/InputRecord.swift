/// One `struct input_event` as the kernel delivers it on 64-bit Linux: a 16-byte `timeval`, then
/// `type` and `code` (u16) and `value` (s32), little-endian. The time is not read: the session
/// stamps each input with its own clock.
public struct InputRecord: Sendable, Hashable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(type: UInt16, code: UInt16, value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }

    /// The size of one record.
    public static let size = 24

    /// Event types (`EV_*`).
    public static let evSyn: UInt16 = 0x00, evKey: UInt16 = 0x01, evSw: UInt16 = 0x05
    /// The highest event type the kernel defines (`EV_MAX`); a record above it is not an input event.
    public static let evMax: UInt16 = 0x1f
    /// `SW_ROTATE_LOCK` and `KEY_ROTATE_LOCK_TOGGLE`.
    public static let swRotateLock: UInt16 = 0x0c
    /// `SW_TABLET_MODE`: set while a 2-in-1 is a tablet (its hinge folded over, its keyboard off).
    public static let swTabletMode: UInt16 = 0x01
    public static let keyRotateLockToggle: UInt16 = 0x231

    /// A key's value: released, pressed, or the driver's auto-repeat.
    public static let released: Int32 = 0, pressed: Int32 = 1, repeated: Int32 = 2

    /// The whole records in `bytes` (a partial record at the end is left for the caller).
    public static func decode(_ bytes: some Collection<UInt8>) -> [InputRecord] {
        let b = Array(bytes)
        var out: [InputRecord] = []
        out.reserveCapacity(b.count / size)
        var i = 0
        while i + size <= b.count {
            let type = UInt16(b[i + 16]) | UInt16(b[i + 17]) << 8
            let code = UInt16(b[i + 18]) | UInt16(b[i + 19]) << 8
            let value = Int32(
                bitPattern: UInt32(b[i + 20]) | UInt32(b[i + 21]) << 8 | UInt32(b[i + 22]) << 16
                    | UInt32(b[i + 23]) << 24)
            out.append(InputRecord(type: type, code: code, value: value))
            i += size
        }
        return out
    }

    /// The record's bytes, for tests and tools that feed a pipe.
    public var bytes: [UInt8] {
        var r = [UInt8](repeating: 0, count: Self.size)
        r[16] = UInt8(type & 0xff)
        r[17] = UInt8(type >> 8)
        r[18] = UInt8(code & 0xff)
        r[19] = UInt8(code >> 8)
        let v = UInt32(bitPattern: value)
        for k in 0..<4 { r[20 + k] = UInt8((v >> (8 * UInt32(k))) & 0xff) }
        return r
    }

    /// A key event (`EV_KEY`): pressed, released or repeated.
    public static func key(_ code: UInt16, _ value: Int32) -> InputRecord {
        InputRecord(type: evKey, code: code, value: value)
    }

    /// The end of a group of events (`SYN_REPORT`).
    public static let syn = InputRecord(type: evSyn, code: 0, value: 0)

    /// A press and release of `code` as a keyboard sends it, each followed by `SYN_REPORT`.
    public static func click(_ code: UInt16) -> [UInt8] {
        [key(code, pressed), syn, key(code, released), syn].flatMap(\.bytes)
    }

    /// `SW_ROTATE_LOCK` set or cleared.
    public static func lockSwitch(_ on: Bool) -> InputRecord {
        InputRecord(type: evSw, code: swRotateLock, value: on ? 1 : 0)
    }

    /// `SW_TABLET_MODE` set (a tablet) or cleared (a laptop).
    public static func tabletSwitch(_ tablet: Bool) -> InputRecord {
        InputRecord(type: evSw, code: swTabletMode, value: tablet ? 1 : 0)
    }

    /// Whether a tablet-mode record says tablet (true) or laptop (false), if it is one.
    public var tabletMode: Bool? {
        type == Self.evSw && code == Self.swTabletMode ? value != 0 : nil
    }

    /// What a rotation-lock record means, if it is one.
    public var lockEvent: LockSwitchEvent? {
        if type == Self.evSw, code == Self.swRotateLock { return .set(value != 0) }
        if type == Self.evKey, code == Self.keyRotateLockToggle, value == Self.pressed { return .toggle }
        return nil
    }
}

/// A change the rotation-lock hardware reports.
public enum LockSwitchEvent: Sendable, Hashable {
    /// `SW_ROTATE_LOCK` moved to on or off.
    case set(Bool)
    /// `KEY_ROTATE_LOCK_TOGGLE` was pressed.
    case toggle
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

/// What set the rotation lock last.
public enum LockSource: String, Sendable, Hashable {
    case configuration
    /// A command: a hotkey, `upright ctl`, ...
    case command
    /// The rotation-lock switch of an input device.
    case lockSwitch = "switch"
}
