/// Which way the interface is drawn: UIKit's `UIInterfaceOrientation`.
///
/// `angle` is the clockwise turn, as the viewer sees it, from the panel's natural portrait
/// drawing to this orientation. `landscapeRight` is drawn for a device held with its left edge up
/// (device `landscapeRight` ⇄ interface `landscapeLeft`; see ``DeviceOrientation/interfaceOrientation``).
public enum InterfaceOrientation: String, CaseIterable, Sendable, Hashable, Codable {
    case portrait
    case landscapeRight = "landscape-right"
    case portraitUpsideDown = "portrait-upside-down"
    case landscapeLeft = "landscape-left"

    /// The name used in files and on the wire.
    public var name: String { rawValue }

    /// Parses a wire name; `nil` when the name is not one of ``allNames``.
    public init?(name: String) { self.init(rawValue: name) }

    /// Every wire name, for error messages.
    public static let allNames: [String] = allCases.map(\.rawValue)

    /// Clockwise angle in degrees (0, 90, 180, 270) by which the content is turned on the panel
    /// to be upright in this orientation.
    ///
    /// The device turned left (right edge up, device `landscapeLeft`) needs the content turned
    /// 90° clockwise to stay upright: that is interface `landscapeRight`, 90°.
    public var angle: Int {
        switch self {
        case .portrait: 0
        case .landscapeRight: 90
        case .portraitUpsideDown: 180
        case .landscapeLeft: 270
        }
    }

    /// The orientation whose clockwise angle is `degrees` (any multiple of 90, negative allowed);
    /// `nil` for an angle that is not a multiple of 90.
    public init?(angle degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        switch ((degrees % 360) + 360) % 360 {
        case 0: self = .portrait
        case 90: self = .landscapeRight
        case 180: self = .portraitUpsideDown
        default: self = .landscapeLeft
        }
    }

    /// The device orientation in which this interface orientation is upright (the inverse of
    /// ``DeviceOrientation/interfaceOrientation``).
    public var deviceOrientation: DeviceOrientation {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeRight: .landscapeLeft
        case .landscapeLeft: .landscapeRight
        }
    }

    /// True for the two landscape orientations.
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }

    /// True for portrait and upside down.
    public var isPortrait: Bool { !isLandscape }

    /// The clockwise turn, in degrees 0..<360, that takes the interface from `self` to `other`.
    public func clockwiseTurn(to other: InterfaceOrientation) -> Int {
        ((other.angle - angle) % 360 + 360) % 360
    }

    /// The size of the turn from `self` to `other`: 0, 90 or 180 degrees, whichever way is shorter.
    public func turn(to other: InterfaceOrientation) -> Int {
        let cw = clockwiseTurn(to: other)
        return min(cw, 360 - cw)
    }

    /// The orientation that differs by a half turn.
    public var opposite: InterfaceOrientation { InterfaceOrientation(angle: angle + 180)! }
}

extension InterfaceOrientation: CustomStringConvertible {
    public var description: String { rawValue }
}
