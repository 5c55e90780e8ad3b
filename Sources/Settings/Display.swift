public import OrientationCore

/// Which display backend to use: `auto` finds one from the environment.
public enum DisplayBackendChoice: String, Sendable, Hashable, CaseIterable {
    case auto, sway, wlroots, gnome, kde, x11, none

    /// Every name, for error messages.
    public static let allNames = allCases.map(\.rawValue)
}

/// The `[display]` settings: the configuration reads into this type.
public struct DisplaySettings: Sendable, Hashable {
    public var backend = DisplayBackendChoice.auto
    /// `auto` (the output showing Upright) or an output's name.
    public var output = "auto"
    /// The interface orientation the panel shows upright at transform 0 (its natural orientation
    /// and mounting together).
    public var natural: InterfaceOrientation = .portrait
    /// The mode to state when the compositor reports none (headless outputs), `WIDTHxHEIGHT`.
    public var mode: DisplayMode?
    /// X11 touch devices by name or id; empty: every touchscreen.
    public var touch: [String] = []
    /// Upright owns the output (a kiosk) and may turn it; false on a shared desktop.
    public var kiosk = true
    /// How long to wait for a compositor that is named but not there yet, or for any display at
    /// all, before the process gives up and exits non-zero (`nil`: wait for ever).
    public var wait: Duration? = .seconds(60)

    public init() {}
}

public struct DisplayMode: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// Parses `WIDTHxHEIGHT`.
    public init?(_ text: String) {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }
    public var description: String { "\(width)x\(height)" }
}
