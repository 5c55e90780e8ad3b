/// What a press of a `play` button does while a clip plays: nothing (`ignore`), or its clip
/// plays after the one playing (`queue`).
public enum ClipPresses: String, Sendable, Hashable, CaseIterable {
    case ignore
    case queue
}

/// What the policy needs to know from the configuration: the app's and display's masks, the
/// launch orientation, the scenes and the transition timing.
public struct PolicyConfiguration: Sendable, Hashable {
    /// What the product ever allows (`[app] supported`, Info.plist's supported orientations).
    public var appSupported: OrientationMask
    /// The orientation of the first frame, before any sensor reading.
    public var launch: InterfaceOrientation
    /// What this display allows (`[display] supported`, `supportedInterfaceOrientationsForWindow:`).
    public var displaySupported: OrientationMask
    /// The scenes by name; the built-in `idle`, `inline` and `fullscreen` are always present.
    public var scenes: [String: Scene]
    /// The scene at the bottom of the stack when the policy starts.
    public var initialScene: String
    /// Duration of a quarter turn (s); a half turn takes twice as long.
    public var transitionDuration: Double
    /// What a `play` press does while a clip plays.
    public var clipPresses = ClipPresses.ignore

    public init(
        appSupported: OrientationMask = .allButUpsideDown, launch: InterfaceOrientation = .portrait,
        displaySupported: OrientationMask = .all, scenes: [Scene] = PolicyConfiguration.standardScenes,
        initialScene: String = Scene.inline, transitionDuration: Double = 0.3
    ) {
        self.appSupported = appSupported
        self.launch = launch
        self.displaySupported = displaySupported
        self.scenes = Dictionary(uniqueKeysWithValues: Self.builtInScenes.map { ($0.name, $0) })
        for s in scenes { self.scenes[s.name] = s }
        self.initialScene = initialScene
        self.transitionDuration = transitionDuration
    }

    /// The built-in scenes with nothing overridden (portrait only, no autorotation).
    public static let builtInScenes = [Scene(Scene.idle), Scene(Scene.inline), Scene(Scene.fullscreen)]

    /// The scenes a kiosk player wants out of the box: portrait inline and idle, and a full screen
    /// that follows the device between the two landscapes, forced to landscape while locked.
    public static let standardScenes = [
        Scene(Scene.idle), Scene(Scene.inline, supported: .portrait),
        Scene(
            Scene.fullscreen, supported: .landscape, autorotate: true, preferred: .landscapeRight,
            strategy: .auto, forceWhenLocked: true),
    ]

    /// The settings of scene `name` with its defaults filled in; `nil` for an unknown scene.
    public func settings(of name: String) -> SceneSettings? { scenes[name]?.resolved() }

    /// The orientations scene `name` may show: app ∩ display ∩ scene.
    public func effectiveMask(of name: String) -> OrientationMask {
        appSupported.intersection(displaySupported).intersection(settings(of: name)?.supported ?? [])
    }

    /// Everything wrong with this configuration; empty when the policy can run with it.
    public var problems: [PolicyProblem] {
        var out: [PolicyProblem] = []
        let base = appSupported.intersection(displaySupported)
        if base.isEmpty { out.append(.emptyAppDisplayMask(app: appSupported, display: displaySupported)) }
        if !base.allows(launch) {
            out.append(.launchOutsideMask(launch: launch, app: appSupported, display: displaySupported))
        }
        if scenes[initialScene] == nil { out.append(.unknownScene(initialScene)) }
        if !(transitionDuration >= 0 && transitionDuration.isFinite) {
            out.append(.badTransitionDuration(transitionDuration))
        }
        for name in scenes.keys.sorted() {
            let s = scenes[name]!.resolved()
            let mask = effectiveMask(of: name)
            if mask.isEmpty, !base.isEmpty {
                out.append(
                    .emptyIntersection(
                        scene: name, app: appSupported, display: displaySupported, sceneMask: s.supported))
            }
            if let p = s.preferred, !mask.isEmpty, !mask.allows(p) {
                out.append(.preferredOutsideMask(scene: name, preferred: p, mask: mask))
            }
        }
        return out
    }
}

/// A configuration the policy cannot run with. The configuration layer adds file:line:column.
public enum PolicyProblem: Sendable, Hashable, CustomStringConvertible {
    case emptyAppDisplayMask(app: OrientationMask, display: OrientationMask)
    case launchOutsideMask(launch: InterfaceOrientation, app: OrientationMask, display: OrientationMask)
    case emptyIntersection(scene: String, app: OrientationMask, display: OrientationMask, sceneMask: OrientationMask)
    case preferredOutsideMask(scene: String, preferred: InterfaceOrientation, mask: OrientationMask)
    case unknownScene(String)
    case badTransitionDuration(Double)

    /// The scene the problem is about, when it is about one.
    public var scene: String? {
        switch self {
        case .emptyIntersection(let scene, _, _, _), .preferredOutsideMask(let scene, _, _): scene
        case .unknownScene(let scene): scene
        case .emptyAppDisplayMask, .launchOutsideMask, .badTransitionDuration: nil
        }
    }

    public var description: String {
        switch self {
        case .emptyAppDisplayMask(let app, let display):
            "the app's supported orientations \(app) and the display's \(display) have nothing in common"
        case .launchOutsideMask(let launch, let app, let display):
            "the launch orientation '\(launch)' is not allowed by the app \(app) and the display \(display)"
        case .emptyIntersection(let scene, let app, let display, let sceneMask):
            "scene '\(scene)' can show no orientation: its supported \(sceneMask), the app's \(app) and "
                + "the display's \(display) have nothing in common"
        case .preferredOutsideMask(let scene, let preferred, let mask):
            "scene '\(scene)' prefers '\(preferred)', which is outside what it may show \(mask)"
        case .unknownScene(let scene):
            "no scene is named '\(scene)'"
        case .badTransitionDuration(let d):
            "the transition duration must be 0 or more seconds, not \(d)"
        }
    }
}
