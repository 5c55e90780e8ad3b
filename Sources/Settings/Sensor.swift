import OrientationCore

/// Where the accelerometer is read, as the configuration's `uri` names it.
public enum SensorURI: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// Through libiio: `local:`, `ip:HOST[:PORT]`, `usb:`, `serial:`, `xml:FILE`.
    case iio(String)
    /// A recorded trace in real time: `replay:FILE.csv[?loop=1][&speed=N]`.
    case replay(ReplaySpec)
    /// No accelerometer.
    case none

    /// The schemes libiio takes, as written before the colon.
    public static let iioSchemes = ["local", "ip", "usb", "serial", "xml"]

    /// What a URI may be, in words, for errors.
    public static let expected =
        "local:, ip:HOST[:PORT], usb:, serial:, xml:FILE, replay:FILE.csv[?loop=1&speed=N] or none"

    /// Parses a URI; `nil` when it is none of the forms in ``expected``.
    public init?(parsing text: String) {
        if text == "none" {
            self = .none
        } else if text.hasPrefix("replay:"), text.count > "replay:".count {
            self = .replay(ReplaySpec(text))
        } else if let colon = text.firstIndex(of: ":"), Self.iioSchemes.contains(String(text[..<colon])),
            text == "local:" || text[text.index(after: colon)...].isEmpty == false || text.hasPrefix("usb:")
        {
            self = .iio(text)
        } else {
            return nil
        }
    }

    /// A URI written in code; one that does not parse is read as libiio's own.
    public init(stringLiteral value: String) { self = SensorURI(parsing: value) ?? .iio(value) }

    /// The URI as written.
    public var description: String {
        switch self {
        case .iio(let uri): uri
        case .replay(let spec): spec.uri
        case .none: "none"
        }
    }

    /// libiio's URI, for a live accelerometer.
    public var iioURI: String? {
        if case .iio(let uri) = self { return uri }
        return nil
    }

    /// The accelerometer of this machine (`local:`): udev knows it.
    public var isLocal: Bool { self == .iio("local:") }
}

/// The `[sensor]` settings: the configuration reads into this type.
public struct SensorSettings: Sendable, Hashable {
    public var uri: SensorURI = .iio("local:")
    /// `auto`, a device name (`accel_3d`), a device id (`iio:device2`) or an index among the accelerometers.
    public var device = "auto"
    public var rateHz = 25.0
    /// `auto`, or a matrix in hwdb form (`"0, 1, 0; -1, 0, 0; 0, 0, 1"`).
    public var mountMatrix = "auto"
    /// Whether a 2-in-1's tablet-mode switch turns auto-rotation off while it is a laptop.
    public var tabletMode = TabletModeSetting.auto

    public init(
        uri: SensorURI = .iio("local:"), device: String = "auto", rateHz: Double = 25, mountMatrix: String = "auto",
        tabletMode: TabletModeSetting = .auto
    ) {
        self.uri = uri
        self.device = device
        self.rateHz = rateHz
        self.mountMatrix = mountMatrix
        self.tabletMode = tabletMode
    }
}

/// `[sensor] tablet_mode`: what the tablet-mode switch (`SW_TABLET_MODE`) does.
public enum TabletModeSetting: String, Sendable, Hashable, CaseIterable {
    /// Auto-rotation off while the device is a laptop, on while it is a tablet (as GNOME does).
    case auto
    /// The switch is not read; the device turns either way.
    case ignore
}

/// The `[lock]` settings: the configuration reads into this type.
public struct LockSettings: Sendable, Hashable {
    /// Locked at start.
    public var locked = false
    public var evdev = LockSwitchSetting.auto
    /// After an unlock by hand, the lock comes back once this long passes without a turn (`nil`:
    /// never).
    public var relockAfter: Duration?
    public init(locked: Bool = false, evdev: LockSwitchSetting = .auto, relockAfter: Duration? = nil) {
        self.locked = locked
        self.evdev = evdev
        self.relockAfter = relockAfter
    }
}

/// `replay:FILE.csv?loop=1&speed=N` taken apart; two specs are equal when they replay the same
/// file the same way, however the URI was written.
public struct ReplaySpec: Sendable, Hashable {
    /// The URI as written.
    public var uri: String
    public var path: String
    public var loop = false
    public var speed = 1.0

    public init(_ uri: String) {
        self.uri = uri
        var rest = uri.hasPrefix("replay:") ? String(uri.dropFirst("replay:".count)) : uri
        if let q = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { continue }
                if kv[0] == "loop" { loop = kv[1] == "1" || kv[1] == "true" || kv[1] == "yes" }
                if kv[0] == "speed", let s = Double(kv[1]), s > 0, s.isFinite { speed = s }
            }
            rest = String(rest[..<q])
        }
        path = rest
    }

    public static func == (a: ReplaySpec, b: ReplaySpec) -> Bool {
        (a.path, a.loop, a.speed) == (b.path, b.loop, b.speed)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(loop)
        hasher.combine(speed)
    }
}
