/// How the device is held, as the accelerometer sees it: UIKit's `UIDeviceOrientation`.
///
/// Names follow iOS. `landscapeLeft` is the device turned so that its right edge points up
/// (gravity along +x in the device frame), exactly as `UIDeviceOrientation.landscapeLeft`.
public enum DeviceOrientation: String, CaseIterable, Sendable, Hashable, Codable {
    case unknown
    case portrait
    case portraitUpsideDown = "portrait-upside-down"
    case landscapeLeft = "landscape-left"
    case landscapeRight = "landscape-right"
    case faceUp = "face-up"
    case faceDown = "face-down"

    /// The name used in files and on the wire (`portrait`, `landscape-left`, ...).
    public var name: String { rawValue }

    /// Parses a wire name; `nil` when the name is not one of ``allNames``.
    public init?(name: String) { self.init(rawValue: name) }

    /// Every wire name, in declaration order, for error messages.
    public static let allNames: [String] = allCases.map(\.rawValue)

    /// The four orientations in which the screen stands upright enough to be read.
    public static let upright: [DeviceOrientation] = [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight]

    /// True for the four upright orientations.
    public var isUpright: Bool {
        switch self {
        case .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight: true
        case .unknown, .faceUp, .faceDown: false
        }
    }

    /// True for face up and face down.
    @inlinable public var isFlat: Bool { self == .faceUp || self == .faceDown }

    /// The interface orientation that keeps the picture upright for this device orientation,
    /// or `nil` for unknown, face up and face down.
    ///
    /// This is UIKit's swap, and the one place Upright does it: turning the device to the left
    /// (`landscapeLeft`, right edge up) needs the interface turned the other way round, so
    /// device `landscapeLeft` is interface `landscapeRight` and device `landscapeRight` is
    /// interface `landscapeLeft`. Portrait and upside down map to themselves.
    public var interfaceOrientation: InterfaceOrientation? {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeLeft: .landscapeRight
        case .landscapeRight: .landscapeLeft
        case .unknown, .faceUp, .faceDown: nil
        }
    }
}

extension DeviceOrientation: CustomStringConvertible {
    public var description: String { rawValue }
}
