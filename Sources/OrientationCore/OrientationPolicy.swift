/// A command from a person or a program: hotkeys, the control socket, the events file.
public enum PolicyCommand: Sendable, Hashable {
    /// The full-screen hotkey: inline ⇄ full screen.
    case fullscreen
    case lock
    case unlock
    case toggleLock
    /// Turn to an orientation now (forced), still inside the mask.
    case rotateTo(InterfaceOrientation)
    /// Accept the rotate suggestion offered while locked.
    case acceptSuggestion
    case push(String)
    case pop
    /// Show a scene modally (a menu, a message).
    case present(String)
    /// Remove the topmost modal scene.
    case dismiss
    /// Enter a clip's scene (a button bound to `play <clip>`); pushed, not modal.
    case play(String)
    /// The clip of scene `name` ended: its scene goes, with every scene entered above it meanwhile.
    case clipEnded(String)

    /// The command's wire name (`fullscreen`, `rotate-to`, ...).
    public var name: String {
        switch self {
        case .fullscreen: "fullscreen"
        case .lock: "lock"
        case .unlock: "unlock"
        case .toggleLock: "toggle-lock"
        case .rotateTo: "rotate-to"
        case .acceptSuggestion: "accept-suggestion"
        case .push: "push"
        case .pop: "pop"
        case .present: "present"
        case .dismiss: "dismiss"
        case .play: "play"
        case .clipEnded: "clip-ended"
        }
    }
}

/// Something that happened, for the policy to re-evaluate.
public enum PolicyEvent: Sendable, Hashable {
    /// The sensor's device orientation changed (it reads `unknown` while locked).
    case device(DeviceOrientation)
    /// The motion fallback's answer: how the device is physically held, even while locked.
    case motion(DeviceOrientation)
    /// The display backend's abilities changed.
    case display(DisplayAbilities)
    /// The item playing has this shape (a scene with `fit_content` narrows to it).
    case content(ContentShape)
    case command(PolicyCommand)
}

/// Why a decision came out as it did: one word each, for logs, status and the dry run.
public enum DecisionReason: String, Sendable, Hashable, Codable {
    // rotate
    /// The launch orientation, applied before the first frame.
    case launch
    /// The device turned into an orientation the scene allows.
    case device
    /// The current orientation is not allowed by the scene now on top.
    case scene
    /// `rotate-to`, or entering a scene that forces its orientation while locked.
    case forced
    /// The rotate suggestion was accepted.
    case suggestion
    /// The display's abilities changed: the same orientation, now turned another way.
    case strategy
    // keep
    /// The device's orientation is not allowed here.
    case unsupported
    case locked
    /// The device lies flat.
    case flat
    /// The scene does not rotate with the device.
    case autorotateOff = "autorotate-off"
    /// The device orientation is not known.
    case unknown
    /// Already there.
    case already
    /// The command could not be carried out (unknown scene, nothing to pop, no suggestion ...).
    case rejected
}

/// A decision of the policy.
public struct RotationDecision: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case rotate
        case keep
    }

    /// Time of the event that led to it (s, the caller's clock or trace time).
    public var t: Double
    public var kind: Kind
    /// The interface orientation after the decision.
    public var interface: InterfaceOrientation
    /// How a rotation is carried out; `none` for `keep`.
    public var strategy: AppliedStrategy
    /// The topmost scene when it was taken.
    public var scene: String
    public var reason: DecisionReason
    /// What caused it: `launch`, `device`, `motion`, `display`, `settled` or a command's name.
    public var cause: String

    public init(
        t: Double, kind: Kind, interface: InterfaceOrientation, strategy: AppliedStrategy, scene: String,
        reason: DecisionReason, cause: String
    ) {
        self.t = t
        self.kind = kind
        self.interface = interface
        self.strategy = strategy
        self.scene = scene
        self.reason = reason
        self.cause = cause
    }
}

/// A rotation under way: will-rotate starts it, did-rotate ends it.
public struct Transition: Sendable, Hashable {
    /// Counts transitions from 1, so each will-rotate pairs with exactly one did-rotate.
    public var id: Int
    public var from: InterfaceOrientation
    public var to: InterfaceOrientation
    public var fromStrategy: AppliedStrategy
    public var strategy: AppliedStrategy
    public var start: Double
    /// Seconds; twice the quarter-turn duration for a half turn.
    public var duration: Double
    public var end: Double { start + duration }
}

/// What the policy asks the shell to do or tell.
public enum PolicyOutput: Sendable, Hashable {
    case decision(RotationDecision)
    case willRotate(Transition)
    case didRotate(Transition, at: Double)
    /// A rotate suggestion offered while locked (`nil`: withdrawn).
    case suggestion(InterfaceOrientation?, at: Double)
}

/// The rotation policy: the iOS model of the seeds, for a kiosk. Pure: no I/O and no clock; time
/// comes with each event.
///
/// The interface orientation is always inside the effective mask of the topmost scene
/// (app ∩ display ∩ scene). Every event re-evaluates at once: a device turn, the lock, the motion
/// fallback's answer, a scene pushed, popped, presented or dismissed (no push/modal asymmetry), the
/// display's abilities, and commands. While a rotation is under way input is suspended and commands
/// are queued, then carried out in order after did-rotate.
public struct OrientationPolicy: Sendable {
    public struct StackEntry: Sendable, Hashable {
        public var scene: String
        public var modal: Bool
    }

    public private(set) var configuration: PolicyConfiguration
    /// The scene stack, bottom first; the last entry decides.
    public private(set) var stack: [StackEntry]
    /// The device orientation as the sensor reports it (`unknown` while locked).
    public private(set) var device: DeviceOrientation = .unknown
    /// The motion fallback's last answer.
    public private(set) var physical: DeviceOrientation = .unknown
    public private(set) var locked: Bool
    public private(set) var display: DisplayAbilities
    /// The interface orientation applied (the target, from will-rotate on).
    public private(set) var interface: InterfaceOrientation
    /// How ``interface`` is applied.
    public private(set) var strategy: AppliedStrategy
    public private(set) var transition: Transition?
    /// The rotate suggestion offered while locked.
    public private(set) var suggestion: InterfaceOrientation?
    /// Commands waiting for the transition to end.
    public private(set) var queued: [PolicyCommand] = []
    /// Input is suspended while this is above zero.
    public private(set) var inputSuspended = 0
    public private(set) var lastDecision: RotationDecision?
    private var transitions = 0
    private var reevaluateAfterTransition = false

    /// A policy for a valid configuration, in the launch orientation.
    ///
    /// - Throws: the configuration's ``PolicyConfiguration/problems``, all of them.
    public init(configuration: PolicyConfiguration, display: DisplayAbilities = .none, locked: Bool = false)
        throws(PolicyConfigurationError)
    {
        let problems = configuration.problems
        guard problems.isEmpty else { throw PolicyConfigurationError(problems: problems) }
        self.configuration = configuration
        self.display = display
        self.locked = locked
        stack = [StackEntry(scene: configuration.initialScene, modal: false)]
        interface = configuration.launch
        strategy = display.strategy(for: configuration.settings(of: configuration.initialScene)!.strategy)
    }

    /// The topmost scene's name.
    public var topScene: String { stack.last!.scene }
    /// The orientations the topmost scene may show.
    public var effectiveMask: OrientationMask {
        let base = configuration.effectiveMask(of: topScene)
        guard configuration.settings(of: topScene)?.fitContent == true, let shape = content.mask else { return base }
        let narrowed = base.intersection(shape)
        return narrowed.isEmpty ? base : narrowed
    }
    /// The shape of the item playing.
    public private(set) var content: ContentShape = .unknown
    /// The video surface's turn (clockwise degrees); never non-zero together with ``outputAngle``.
    public var surfaceAngle: Int { strategy == .surface ? interface.angle : 0 }
    /// The output's turn (clockwise degrees); never non-zero together with ``surfaceAngle``.
    public var outputAngle: Int { strategy == .interface ? interface.angle : 0 }

    /// The launch decision, before the first frame, then an evaluation of the starting state.
    public mutating func start(at t: Double) -> [PolicyOutput] {
        var out: [PolicyOutput] = [
            .decision(
                record(
                    RotationDecision(
                        t: t, kind: .rotate, interface: interface, strategy: strategy, scene: topScene, reason: .launch,
                        cause: "launch")))
        ]
        out += evaluate(at: t, cause: "launch", entering: true)
        return out
    }

    /// Takes a new configuration (a reload) and keeps the state: the interface orientation, the
    /// lock, the readings and the scene stack (less any scene the new configuration no longer has).
    /// Then evaluates, as on entering the topmost scene: a scene whose mask changed is presented
    /// in an orientation it allows.
    ///
    /// - Throws: the new configuration's problems, all of them; the policy is then unchanged.
    public mutating func reconfigure(_ new: PolicyConfiguration, at t: Double) throws(PolicyConfigurationError)
        -> [PolicyOutput]
    {
        let problems = new.problems
        guard problems.isEmpty else { throw PolicyConfigurationError(problems: problems) }
        var out = advance(to: t)
        configuration = new
        stack = stack.filter { new.settings(of: $0.scene) != nil }
        if stack.isEmpty || stack[0].modal { stack.insert(StackEntry(scene: new.initialScene, modal: false), at: 0) }
        out += evaluate(at: t, cause: "reload", entering: true)
        return out
    }

    /// Ends a transition that is due by `t` and carries out the commands queued behind it.
    public mutating func advance(to t: Double) -> [PolicyOutput] {
        var out: [PolicyOutput] = []
        while let tr = transition, tr.end <= t {
            transition = nil
            inputSuspended -= 1
            out.append(.didRotate(tr, at: tr.end))
            if reevaluateAfterTransition {
                reevaluateAfterTransition = false
                out += evaluate(at: tr.end, cause: "settled", entering: false)
            }
            while transition == nil, !queued.isEmpty {
                out += perform(queued.removeFirst(), at: tr.end)
            }
        }
        return out
    }

    /// Handles one event at time `t` (not earlier than the previous one).
    public mutating func handle(_ event: PolicyEvent, at t: Double) -> [PolicyOutput] {
        var out = advance(to: t)
        switch event {
        case .device(let o):
            let reading = locked ? DeviceOrientation.unknown : o
            guard reading != device else { return out }
            device = reading
            if transition != nil {
                reevaluateAfterTransition = true
            } else {
                out += evaluate(at: t, cause: "device", entering: false)
            }
        case .motion(let o):
            physical = o
            out += updateSuggestion(at: t)
        case .display(let abilities):
            guard abilities != display else { return out }
            display = abilities
            if transition != nil {
                reevaluateAfterTransition = true
            } else {
                out += evaluate(at: t, cause: "display", entering: false)
            }
        case .content(let shape):
            guard shape != content else { return out }
            content = shape
            if transition != nil {
                reevaluateAfterTransition = true
            } else {
                out += evaluate(at: t, cause: "content", entering: true)
            }
        case .command(let c):
            if transition != nil {
                queued.append(c)
            } else {
                out += perform(c, at: t)
            }
        }
        return out
    }

    // MARK: - Commands

    private mutating func perform(_ command: PolicyCommand, at t: Double) -> [PolicyOutput] {
        let cause = command.name
        switch command {
        case .lock, .unlock, .toggleLock:
            let lock = command == .lock || (command == .toggleLock && !locked)
            locked = lock
            if lock {
                device = .unknown
                var out = [PolicyOutput.decision(keep(t, .locked, cause))]
                out += updateSuggestion(at: t)
                return out
            }
            var out = evaluate(at: t, cause: cause, entering: false)
            if suggestion != nil {
                suggestion = nil
                out.append(.suggestion(nil, at: t))
            }
            return out
        case .rotateTo(let o):
            guard effectiveMask.allows(o) else { return [.decision(keep(t, .unsupported, cause))] }
            guard o != interface else { return [.decision(keep(t, .already, cause))] }
            return rotate(to: o, at: t, reason: .forced, cause: cause)
        case .acceptSuggestion:
            guard let s = suggestion, effectiveMask.allows(s), s != interface else {
                return [.decision(keep(t, .rejected, cause))]
            }
            var out = rotate(to: s, at: t, reason: .suggestion, cause: cause)
            suggestion = nil
            out.append(.suggestion(nil, at: t))
            return out
        case .push(let name), .present(let name), .play(let name):
            guard configuration.scenes[name] != nil else { return [.decision(keep(t, .rejected, cause))] }
            if case .present = command {
                stack.append(StackEntry(scene: name, modal: true))
            } else {
                stack.append(StackEntry(scene: name, modal: false))
            }
            return evaluate(at: t, cause: cause, entering: true)
        case .pop:
            guard stack.count > 1 else { return [.decision(keep(t, .rejected, cause))] }
            stack.removeLast()
            return evaluate(at: t, cause: cause, entering: true)
        case .dismiss:
            guard let i = stack.lastIndex(where: \.modal) else { return [.decision(keep(t, .rejected, cause))] }
            stack.removeSubrange(i...)
            return evaluate(at: t, cause: cause, entering: true)
        case .clipEnded(let name):
            guard let i = stack.lastIndex(where: { $0.scene == name }), i > 0 else {
                return [.decision(keep(t, .rejected, cause))]
            }
            stack.removeSubrange(i...)
            return evaluate(at: t, cause: cause, entering: true)
        case .fullscreen:
            if topScene == Scene.fullscreen, stack.count > 1 {
                stack.removeLast()
            } else if stack.last!.modal || topScene == Scene.fullscreen {
                return [.decision(keep(t, .rejected, cause))]
            } else {
                stack.append(StackEntry(scene: Scene.fullscreen, modal: false))
            }
            return evaluate(at: t, cause: cause, entering: true)
        }
    }

    // MARK: - Evaluation

    /// Decides the interface orientation for the current state. `entering` is true when the topmost
    /// scene has just changed (it re-evaluates against the current device orientation).
    private mutating func evaluate(at t: Double, cause: String, entering: Bool) -> [PolicyOutput] {
        let scene = configuration.settings(of: topScene)!
        let mask = effectiveMask
        let wanted = display.strategy(for: scene.strategy)
        let deviceTarget = device.interfaceOrientation.flatMap { mask.allows($0) ? $0 : nil }
        let physicalTarget = physical.interfaceOrientation.flatMap { mask.allows($0) ? $0 : nil }

        if !mask.allows(interface) {
            // The scene on top cannot show the current orientation: present it in one it can.
            let target: InterfaceOrientation
            if locked {
                target = (scene.forceWhenLocked ? physicalTarget : nil) ?? presentationOrientation(scene, mask)
            } else {
                target = (scene.autorotate ? deviceTarget : nil) ?? presentationOrientation(scene, mask)
            }
            var out = rotate(to: target, at: t, reason: .scene, cause: cause)
            out += updateSuggestion(at: t)
            return out
        }
        if locked {
            if entering, scene.forceWhenLocked, let p = physicalTarget, p != interface {
                return rotate(to: p, at: t, reason: .forced, cause: cause)
            }
            var out = strategyChange(to: wanted, at: t, cause: cause) ?? [.decision(keep(t, .locked, cause))]
            out += updateSuggestion(at: t)
            return out
        }
        if scene.autorotate, let target = deviceTarget, target != interface {
            return rotate(to: target, at: t, reason: .device, cause: cause)
        }
        if let moved = strategyChange(to: wanted, at: t, cause: cause) { return moved }
        guard scene.autorotate else { return [.decision(keep(t, .autorotateOff, cause))] }
        switch device {
        case .unknown: return [.decision(keep(t, .unknown, cause))]
        case .faceUp, .faceDown: return [.decision(keep(t, .flat, cause))]
        default: break
        }
        return [.decision(keep(t, deviceTarget == nil ? .unsupported : .already, cause))]
    }

    /// The orientation to present a scene in when the current one is not allowed: its preferred one,
    /// else the allowed orientation nearest to the current one.
    private func presentationOrientation(_ scene: SceneSettings, _ mask: OrientationMask) -> InterfaceOrientation {
        if let p = scene.preferred, mask.allows(p) { return p }
        let current = interface
        return mask.orientations.min { current.turn(to: $0) < current.turn(to: $1) }!
    }

    /// A rotation that keeps the orientation but moves it between the surface and the output, when
    /// the display's abilities or the scene's strategy changed; `nil` when nothing needs to move.
    private mutating func strategyChange(to wanted: AppliedStrategy, at t: Double, cause: String) -> [PolicyOutput]? {
        guard wanted != strategy else { return nil }
        if interface.angle == 0 {
            strategy = wanted  // nothing is turned, so nothing moves
            return nil
        }
        return rotate(to: interface, at: t, reason: .strategy, cause: cause, strategy: wanted)
    }

    private mutating func rotate(
        to target: InterfaceOrientation, at t: Double, reason: DecisionReason, cause: String,
        strategy newStrategy: AppliedStrategy? = nil
    ) -> [PolicyOutput] {
        let wanted = newStrategy ?? display.strategy(for: configuration.settings(of: topScene)!.strategy)
        let from = interface, fromStrategy = strategy
        interface = target
        strategy = wanted
        var out: [PolicyOutput] = [
            .decision(
                record(
                    RotationDecision(
                        t: t, kind: .rotate, interface: target, strategy: wanted, scene: topScene, reason: reason,
                        cause: cause)))
        ]
        let quarterTurns = from.turn(to: target) / 90
        let duration = configuration.transitionDuration * Double(max(1, quarterTurns))
        transitions += 1
        let tr = Transition(
            id: transitions, from: from, to: target, fromStrategy: fromStrategy, strategy: wanted, start: t,
            duration: duration)
        transition = tr
        inputSuspended += 1
        out.append(.willRotate(tr))
        if duration == 0 { out += advance(to: t) }
        return out
    }

    /// Offers, changes or withdraws the rotate suggestion: while locked, a physical orientation the
    /// scene allows, other than the current one, is suggested (as Android does).
    private mutating func updateSuggestion(at t: Double) -> [PolicyOutput] {
        var s: InterfaceOrientation?
        if locked, let p = physical.interfaceOrientation, effectiveMask.allows(p), p != interface { s = p }
        guard s != suggestion else { return [] }
        suggestion = s
        return [.suggestion(s, at: t)]
    }

    private mutating func keep(_ t: Double, _ reason: DecisionReason, _ cause: String) -> RotationDecision {
        record(
            RotationDecision(
                t: t, kind: .keep, interface: interface, strategy: .none, scene: topScene, reason: reason, cause: cause)
        )
    }

    private mutating func record(_ d: RotationDecision) -> RotationDecision {
        lastDecision = d
        return d
    }
}

/// The problems that keep a configuration from running.
public struct PolicyConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var problems: [PolicyProblem]
    public var description: String { problems.map(\.description).joined(separator: "; ") }
}
