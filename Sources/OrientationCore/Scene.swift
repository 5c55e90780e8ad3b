/// How a rotation is carried out.
public enum RotationStrategy: String, CaseIterable, Sendable, Hashable, Codable {
    /// Turn only the video surface (and the overlays with it); the output stays as it is.
    case surface
    /// Turn the whole output through the display backend.
    case interface
    /// `interface` when the display can turn its output and Upright owns it, else `surface`.
    case auto

    /// Every wire name, for error messages.
    public static let allNames: [String] = allCases.map(\.rawValue)
}

/// The strategy a decision applies: never both at once.
public enum AppliedStrategy: String, Sendable, Hashable, Codable {
    case surface
    case interface
    /// Nothing turns (a `keep` decision).
    case none
}

/// One screen of the product (idle, inline, full screen, a menu ...) and what it allows.
///
/// A scene overrides only what it needs; everything it leaves `nil` comes from
/// ``SceneSettings/defaults``: portrait only, no autorotation, like a view controller that
/// overrides nothing in the seed's category approach (not a base class).
public struct Scene: Sendable, Hashable {
    public var name: String
    public var supported: OrientationMask?
    public var autorotate: Bool?
    /// The orientation to present the scene in when the current one is not allowed
    /// (`preferredInterfaceOrientationForPresentation`).
    public var preferred: InterfaceOrientation?
    public var strategy: RotationStrategy?
    /// While the rotation lock is on, entering this scene turns to a supported orientation anyway
    /// (the physical one when the motion fallback knows it, else `preferred`).
    public var forceWhenLocked: Bool?
    /// A clip scene's file or URL: `play NAME` enters the scene, plays it once, and leaves.
    public var clip: String?
    /// The scene narrows its orientations to the shape of the item playing (`fit_content`).
    public var fitContent: Bool?
    /// Whether the tablet-mode switch turns auto-rotation off in this scene while the device is a
    /// laptop (`tablet_mode = "auto"`) or not (`"ignore"`); `nil`: as `[sensor] tablet_mode` says.
    public var followsTabletMode: Bool?

    public init(
        _ name: String, supported: OrientationMask? = nil, autorotate: Bool? = nil,
        preferred: InterfaceOrientation? = nil, strategy: RotationStrategy? = nil, forceWhenLocked: Bool? = nil,
        clip: String? = nil
    ) {
        self.name = name
        self.supported = supported
        self.autorotate = autorotate
        self.preferred = preferred
        self.strategy = strategy
        self.forceWhenLocked = forceWhenLocked
        self.clip = clip
    }

    /// The scene with every unset value taken from `defaults`.
    public func resolved(_ defaults: SceneSettings = .defaults) -> SceneSettings {
        SceneSettings(
            supported: supported ?? defaults.supported, autorotate: autorotate ?? defaults.autorotate,
            preferred: preferred ?? defaults.preferred, strategy: strategy ?? defaults.strategy,
            forceWhenLocked: forceWhenLocked ?? defaults.forceWhenLocked, fitContent: fitContent ?? defaults.fitContent)
    }

    /// The names of the built-in scenes.
    public static let idle = "idle"
    public static let inline = "inline"
    public static let fullscreen = "fullscreen"
}

/// A scene's settings with nothing left unset.
public struct SceneSettings: Sendable, Hashable {
    public var supported: OrientationMask
    public var autorotate: Bool
    public var preferred: InterfaceOrientation?
    public var strategy: RotationStrategy
    public var forceWhenLocked: Bool
    public var fitContent: Bool

    public init(
        supported: OrientationMask, autorotate: Bool, preferred: InterfaceOrientation?, strategy: RotationStrategy,
        forceWhenLocked: Bool, fitContent: Bool = false
    ) {
        self.fitContent = fitContent
        self.supported = supported
        self.autorotate = autorotate
        self.preferred = preferred
        self.strategy = strategy
        self.forceWhenLocked = forceWhenLocked
    }

    /// What a scene gets for everything it does not set: portrait only, no autorotation, the
    /// `auto` strategy, no forced rotation while locked.
    public static let defaults = SceneSettings(
        supported: .portrait, autorotate: false, preferred: nil, strategy: .auto, forceWhenLocked: false)
}

/// The shape of the item playing: what `fit_content` narrows a scene's orientations to.
public enum ContentShape: String, Sendable, Hashable {
    case unknown, portrait, landscape, square

    /// The shape of a picture `width` × `height` turned by `rotate` degrees (its metadata).
    public init(width: Int, height: Int, rotate: Int = 0) {
        guard width > 0, height > 0 else {
            self = .unknown
            return
        }
        let (w, h) = rotate % 180 == 0 ? (width, height) : (height, width)
        self = w == h ? .square : (w > h ? .landscape : .portrait)
    }

    /// The orientations that fit it; `nil` for a square or unknown item (the mask stays).
    public var mask: OrientationMask? {
        switch self {
        case .portrait: .portrait.union(OrientationMask(.portraitUpsideDown))
        case .landscape: .landscape
        case .square, .unknown: nil
        }
    }
}

/// What the display can do, as the display backend reports it.
public struct DisplayAbilities: Sendable, Hashable {
    /// The backend can turn its output at run time.
    public var canRotateOutput: Bool
    /// Upright owns the output (kiosk); a windowed Upright shares it and never turns it.
    public var ownsOutput: Bool

    public init(canRotateOutput: Bool, ownsOutput: Bool) {
        self.canRotateOutput = canRotateOutput
        self.ownsOutput = ownsOutput
    }

    /// No backend: only the surface can turn.
    public static let none = DisplayAbilities(canRotateOutput: false, ownsOutput: false)
    /// A kiosk on a compositor that turns outputs.
    public static let kiosk = DisplayAbilities(canRotateOutput: true, ownsOutput: true)

    /// The strategy `requested` comes to on this display.
    public func strategy(for requested: RotationStrategy) -> AppliedStrategy {
        let interfacePossible = canRotateOutput && ownsOutput
        switch requested {
        case .surface: return .surface
        case .interface, .auto: return interfacePossible ? .interface : .surface
        }
    }
}

/// Where the video sits: the layout a scene asks of the player.
public enum PlayerLayout: String, Sendable, Hashable {
    /// Inside the portrait layout: the upper part of the screen, the rest for overlays.
    case inline
    case fullscreen

    /// The layout of scene `name`: full screen for the full-screen scene, inline for the others.
    public init(scene name: String) { self = name == Scene.fullscreen ? .fullscreen : .inline }
}
