/// A set of interface orientations: UIKit's `UIInterfaceOrientationMask`.
public struct OrientationMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b1111 }

    public static let portrait = OrientationMask(rawValue: 1 << 0)
    public static let landscapeRight = OrientationMask(rawValue: 1 << 1)
    public static let portraitUpsideDown = OrientationMask(rawValue: 1 << 2)
    public static let landscapeLeft = OrientationMask(rawValue: 1 << 3)

    /// Both landscape orientations.
    public static let landscape: OrientationMask = [.landscapeLeft, .landscapeRight]
    /// Everything but upside down (the iPhone default).
    public static let allButUpsideDown: OrientationMask = [.portrait, .landscapeLeft, .landscapeRight]
    /// All four orientations.
    public static let all: OrientationMask = [.portrait, .landscapeLeft, .landscapeRight, .portraitUpsideDown]

    /// The mask holding just `orientation`.
    public init(_ orientation: InterfaceOrientation) {
        switch orientation {
        case .portrait: self = .portrait
        case .landscapeRight: self = .landscapeRight
        case .portraitUpsideDown: self = .portraitUpsideDown
        case .landscapeLeft: self = .landscapeLeft
        }
    }

    /// The mask holding every orientation in `orientations`.
    public init(_ orientations: some Sequence<InterfaceOrientation>) {
        self = orientations.reduce(into: []) { $0.insert(OrientationMask($1)) }
    }

    /// True when `orientation` is in the mask.
    public func allows(_ orientation: InterfaceOrientation) -> Bool { contains(OrientationMask(orientation)) }

    /// The orientations in the mask, in the order portrait, landscape-right, upside down, landscape-left.
    public var orientations: [InterfaceOrientation] { InterfaceOrientation.allCases.filter(allows) }

    /// The wire names of the orientations in the mask.
    public var names: [String] { orientations.map(\.name) }
}

extension OrientationMask: CustomStringConvertible {
    public var description: String { "[" + names.joined(separator: ", ") + "]" }
}
