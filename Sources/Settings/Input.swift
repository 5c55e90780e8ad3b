/// Which input devices carry the rotation-lock switch.
public enum LockSwitchSetting: Sendable, Hashable, CustomStringConvertible {
    /// Every input device that has the switch or the key.
    case auto
    case none
    /// One device (or a pipe of `input_event` records).
    case path(String)

    public init(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "none": self = .none
        default: self = .path(text)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .path(let p): p
        }
    }
}

/// The `[input]` settings: the configuration reads into this type.
public struct InputSettings: Sendable, Hashable {
    /// `["auto"]`: every input device that has a bound key; else the devices by path.
    public var devices = ["auto"]
    /// Take the devices for Upright alone (`EVIOCGRAB`).
    public var grab = false

    public init(devices: [String] = ["auto"], grab: Bool = false) {
        self.devices = devices
        self.grab = grab
    }
}
