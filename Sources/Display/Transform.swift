public import OrientationCore

/// An output's transform in Upright's one convention: the clockwise turn, in degrees (0, 90, 180,
/// 270), of what the panel shows. Each backend converts to its own words at its edge: sway's
/// `transform N` is clockwise, the Wayland protocol's and wlr-randr's values are
/// counter-clockwise, xrandr says `left` for a counter-clockwise quarter turn.
public struct OutputTransform: Sendable, Hashable, CustomStringConvertible {
    /// Clockwise degrees, 0..<360, a multiple of 90.
    public let clockwise: Int

    /// The transform turning `degrees` clockwise (any multiple of 90, negative allowed).
    public init(clockwise degrees: Int) {
        precondition(degrees % 90 == 0, "an output turns by quarter turns")
        clockwise = ((degrees % 360) + 360) % 360
    }

    public static let normal = OutputTransform(clockwise: 0)

    /// The output transform that shows `interface` upright on a panel whose own drawing, at
    /// transform 0, is upright in `natural` (the panel's natural orientation and mounting): the
    /// interface's clockwise angle taken from the panel's.
    public init(interface: InterfaceOrientation, natural: InterfaceOrientation) {
        self.init(clockwise: interface.angle - natural.angle)
    }

    /// The interface orientation this transform shows upright on a panel with `natural`.
    public func interface(natural: InterfaceOrientation) -> InterfaceOrientation {
        InterfaceOrientation(angle: clockwise + natural.angle)!
    }

    /// This transform composed after `other` (both clockwise).
    public func adding(_ other: OutputTransform) -> OutputTransform {
        OutputTransform(clockwise: clockwise + other.clockwise)
    }

    // MARK: Backend words

    /// sway's `transform` value (clockwise): `normal`, `90`, `180`, `270`.
    public var swayName: String { clockwise == 0 ? "normal" : "\(clockwise)" }

    /// Reads sway's `transform` from `get_outputs`; `nil` for a flipped transform, which Upright
    /// does not set and does not restore to anything else than itself.
    public init?(swayName: String) {
        switch swayName {
        case "normal": self.init(clockwise: 0)
        case "90", "180", "270": self.init(clockwise: Int(swayName)!)
        default: return nil
        }
    }

    /// wlr-randr's `--transform` value (counter-clockwise, as the Wayland protocol).
    public var wlrName: String { clockwise == 0 ? "normal" : "\((360 - clockwise) % 360)" }

    /// Reads wlr-randr's `Transform:` line (counter-clockwise).
    public init?(wlrName: String) {
        switch wlrName {
        case "normal": self.init(clockwise: 0)
        case "90", "180", "270": self.init(clockwise: 360 - Int(wlrName)!)
        default: return nil
        }
    }

    /// mutter's `MetaMonitorTransform` (DisplayConfig's `transform`): 0–3 are counter-clockwise
    /// quarter turns, as the Wayland protocol's; 4–7 are flipped.
    public var mutterValue: UInt32 { UInt32((360 - clockwise) % 360 / 90) }

    /// Reads mutter's transform; `nil` for a flipped one, which Upright never sets.
    public init?(mutterValue: UInt32) {
        guard mutterValue < 4 else { return nil }
        self.init(clockwise: 360 - Int(mutterValue) * 90)
    }

    /// kscreen-doctor's rotation (`output.NAME.rotation.WORD`): xrandr's words, `none` for normal.
    public var kscreenName: String { clockwise == 0 ? "none" : xrandrName }

    /// xrandr's `--rotate` value: `left` is a counter-clockwise quarter turn.
    public var xrandrName: String {
        switch clockwise {
        case 90: "right"
        case 180: "inverted"
        case 270: "left"
        default: "normal"
        }
    }

    /// Reads xrandr's rotation word.
    public init?(xrandrName: String) {
        switch xrandrName {
        case "normal": self.init(clockwise: 0)
        case "right": self.init(clockwise: 90)
        case "inverted": self.init(clockwise: 180)
        case "left": self.init(clockwise: 270)
        default: return nil
        }
    }

    /// The X input coordinate transformation matrix (row-major 3×3) that makes a touchscreen
    /// follow an output turned by this transform, as the libinput and evdev drivers expect: it
    /// maps the panel's normalised touch point to the turned screen's (clockwise 90: a touch at
    /// the panel's top-right corner is the screen's top-left).
    public var touchMatrix: [Double] {
        switch clockwise {
        case 90: [0, 1, 0, -1, 0, 1, 0, 0, 1]
        case 180: [-1, 0, 1, 0, -1, 1, 0, 0, 1]
        case 270: [0, -1, 1, 1, 0, 0, 0, 0, 1]
        default: [1, 0, 0, 0, 1, 0, 0, 0, 1]
        }
    }

    public var description: String { "\(clockwise)° clockwise" }
}
