import OrientationCore
import PropertyBased
import Testing

/// Drives a policy through timed events and keeps everything it said.
struct PolicyRun {
    var policy: OrientationPolicy
    var outputs: [PolicyOutput] = []
    var t = 0.0

    init(
        _ configuration: PolicyConfiguration = PolicyConfiguration(), display: DisplayAbilities = .none,
        locked: Bool = false
    ) throws {
        policy = try OrientationPolicy(configuration: configuration, display: display, locked: locked)
        outputs = policy.start(at: 0)
    }

    /// Handles an event `dt` seconds after the previous one (default: after any transition ended).
    @discardableResult
    mutating func send(_ event: PolicyEvent, after dt: Double = 1) -> [RotationDecision] {
        t += dt
        let out = policy.handle(event, at: t)
        outputs += out
        return out.compactMap { if case .decision(let d) = $0 { d } else { nil } }
    }

    @discardableResult
    mutating func device(_ o: DeviceOrientation, after dt: Double = 1) -> RotationDecision? {
        send(.device(o), after: dt).last
    }
    @discardableResult
    mutating func command(_ c: PolicyCommand, after dt: Double = 1) -> RotationDecision? {
        send(.command(c), after: dt).last
    }

    var decisions: [RotationDecision] { outputs.compactMap { if case .decision(let d) = $0 { d } else { nil } } }
    var suggestions: [InterfaceOrientation?] {
        outputs.compactMap { if case .suggestion(let s, _) = $0 { s } else { nil } }
    }
}

let standard = PolicyConfiguration()

@Suite("Policy configuration")
struct PolicyConfigurationTests {
    @Test func theStandardConfigurationIsValid() {
        #expect(standard.problems.isEmpty)
        #expect(standard.effectiveMask(of: Scene.inline) == .portrait)
        #expect(standard.effectiveMask(of: Scene.fullscreen) == .landscape)
    }

    @Test func aSceneOverridesOnlyWhatItNeeds() {
        let s = Scene("menu", autorotate: true).resolved()
        #expect(s.supported == .portrait)  // from the defaults
        #expect(s.autorotate == true)
        #expect(s.preferred == nil && s.strategy == .auto && s.forceWhenLocked == false)
        #expect(Scene("bare").resolved() == SceneSettings.defaults)
        #expect(PolicyConfiguration(scenes: []).settings(of: Scene.fullscreen) == SceneSettings.defaults)
    }

    @Test(
        arguments: [
            (OrientationMask.all, OrientationMask.all, OrientationMask.landscape, OrientationMask.landscape),
            (.allButUpsideDown, .all, .all, .allButUpsideDown),
            (.allButUpsideDown, OrientationMask([.portrait, .landscapeLeft]), .landscape, .landscapeLeft),
            (.portrait, .all, .landscape, OrientationMask()),
        ] as [(OrientationMask, OrientationMask, OrientationMask, OrientationMask)])
    func effectiveMaskIsTheIntersection(
        app: OrientationMask, display: OrientationMask, scene: OrientationMask,
        expected: OrientationMask
    ) {
        let c = PolicyConfiguration(
            appSupported: app, displaySupported: display, scenes: [Scene("s", supported: scene)])
        #expect(c.effectiveMask(of: "s") == expected)
    }

    @Test func anEmptyIntersectionNamesTheSceneAndTheMasks() {
        let c = PolicyConfiguration(appSupported: .portrait, scenes: [Scene("video", supported: .landscape)])
        #expect(
            c.problems == [.emptyIntersection(scene: "video", app: .portrait, display: .all, sceneMask: .landscape)])
        #expect(
            c.problems[0].description
                == "scene 'video' can show no orientation: its supported [landscape-right, landscape-left], the app's "
                + "[portrait] and the display's [portrait, landscape-right, portrait-upside-down, landscape-left] have nothing in common"
        )
        #expect(c.problems[0].scene == "video")
    }

    @Test func preferredOutsideTheMask() {
        let c = PolicyConfiguration(scenes: [Scene("video", supported: .landscape, preferred: .portrait)])
        #expect(c.problems == [.preferredOutsideMask(scene: "video", preferred: .portrait, mask: .landscape)])
    }

    @Test func launchAndInitialSceneAndDuration() {
        let c = PolicyConfiguration(
            appSupported: .landscape, launch: .portrait, scenes: [Scene(Scene.inline, supported: .landscape)],
            initialScene: "nope", transitionDuration: -1)
        #expect(c.problems.contains(.launchOutsideMask(launch: .portrait, app: .landscape, display: .all)))
        #expect(c.problems.contains(.unknownScene("nope")))
        #expect(c.problems.contains(.badTransitionDuration(-1)))
        #expect(throws: PolicyConfigurationError.self) { try OrientationPolicy(configuration: c) }
    }

    @Test(arguments: [
        (RotationStrategy.surface, DisplayAbilities.kiosk, AppliedStrategy.surface),
        (.interface, .kiosk, .interface), (.auto, .kiosk, .interface),
        (.interface, .none, .surface), (.auto, .none, .surface),
        (.auto, DisplayAbilities(canRotateOutput: true, ownsOutput: false), .surface),
        (.interface, DisplayAbilities(canRotateOutput: true, ownsOutput: false), .surface),
        (.auto, DisplayAbilities(canRotateOutput: false, ownsOutput: true), .surface),
    ])
    func strategyChoice(requested: RotationStrategy, display: DisplayAbilities, applied: AppliedStrategy) {
        #expect(display.strategy(for: requested) == applied)
    }
}

@Suite("Policy decisions")
struct PolicyDecisionTests {
    @Test func theLaunchOrientationComesFirst() throws {
        var c = standard
        c.launch = .portrait
        let run = try PolicyRun(c)
        #expect(
            run.decisions.first
                == RotationDecision(
                    t: 0, kind: .rotate, interface: .portrait, strategy: .surface,
                    scene: Scene.inline, reason: .launch, cause: "launch"))
        #expect(run.policy.interface == .portrait)
    }

    /// In the standard full-screen scene (landscapes, autorotate), each device orientation.
    @Test(arguments: [
        (
            DeviceOrientation.landscapeLeft, RotationDecision.Kind.rotate, InterfaceOrientation.landscapeRight,
            DecisionReason.device
        ),
        (.portrait, .keep, .landscapeLeft, .unsupported),
        (.portraitUpsideDown, .keep, .landscapeLeft, .unsupported),
        (.faceUp, .keep, .landscapeLeft, .flat),
        (.faceDown, .keep, .landscapeLeft, .flat),
        (.unknown, .keep, .landscapeLeft, .unknown),
    ])
    func deviceTurnsInFullScreen(
        device: DeviceOrientation, kind: RotationDecision.Kind, interface: InterfaceOrientation,
        reason: DecisionReason
    ) throws {
        var run = try PolicyRun()
        #expect(run.command(.fullscreen)?.interface == .landscapeRight)  // preferred, device unknown
        #expect(run.device(.landscapeRight)?.interface == .landscapeLeft)  // held the other way first
        let decisionValue = run.device(device)
        let decision = try #require(decisionValue)
        #expect(decision.kind == kind)
        #expect(decision.reason == reason)
        #expect(decision.interface == interface)
        #expect(run.policy.effectiveMask.allows(run.policy.interface))
    }

    @Test func theUIKitSwap() throws {
        var run = try PolicyRun()
        run.command(.fullscreen)
        #expect(run.device(.landscapeRight)?.interface == .landscapeLeft)
        #expect(run.device(.landscapeLeft)?.interface == .landscapeRight)
        #expect(run.device(.landscapeLeft)?.reason == nil)  // no change, no decision
    }

    @Test func alreadyThere() throws {
        var run = try PolicyRun()
        run.command(.fullscreen)
        #expect(run.device(.landscapeLeft)?.reason == .already)  // preferred landscape-right is already it
    }

    @Test func inlineDoesNotAutorotate() throws {
        var run = try PolicyRun()
        #expect(run.device(.landscapeLeft)?.reason == .autorotateOff)
        #expect(run.policy.interface == .portrait)
    }

    @Test func unknownDevice() throws {
        var c = standard
        c.scenes[Scene.inline] = Scene(Scene.inline, supported: .allButUpsideDown, autorotate: true)
        var run = try PolicyRun(c)
        #expect(run.decisions.last?.reason == .unknown)
        #expect(run.device(.landscapeLeft)?.interface == .landscapeRight)
        #expect(run.device(.unknown)?.reason == .unknown)
        #expect(run.policy.interface == .landscapeRight)
    }

    @Test func fullScreenHotkeyFollowsTheDeviceOrThePreferredLandscape() throws {
        var run = try PolicyRun()
        _ = run.device(.landscapeRight)  // inline: autorotate off
        let enterValue = run.command(.fullscreen)
        let enter = try #require(enterValue)
        #expect(enter.kind == .rotate && enter.interface == .landscapeLeft && enter.reason == .scene)
        #expect(enter.scene == Scene.fullscreen)
        let leaveValue = run.command(.fullscreen)
        let leave = try #require(leaveValue)
        #expect(
            leave.kind == .rotate && leave.interface == .portrait && leave.reason == .scene
                && leave.scene == Scene.inline)

        var upright = try PolicyRun()
        _ = upright.device(.portrait)
        #expect(upright.command(.fullscreen)?.interface == .landscapeRight)  // preferred
    }

    @Test func lockedFullScreenTurnsToThePhysicalLandscape() throws {
        var run = try PolicyRun()
        #expect(run.command(.lock)?.reason == .locked)
        #expect(run.device(.landscapeLeft) == nil)  // the device reads unknown while locked
        run.send(.motion(.landscapeRight))
        let enterValue = run.command(.fullscreen)
        let enter = try #require(enterValue)
        #expect(enter.interface == .landscapeLeft && enter.kind == .rotate)
        // Turning the device while locked does nothing but offer a suggestion.
        #expect(run.device(.landscapeLeft) == nil)
        run.send(.motion(.landscapeLeft))
        #expect(run.suggestions.last == .landscapeRight)
        let acceptedValue = run.command(.acceptSuggestion)
        let accepted = try #require(acceptedValue)
        #expect(accepted.reason == .suggestion && accepted.interface == .landscapeRight)
        #expect(run.suggestions.last == .some(nil))
        // Leaving full screen returns to the inline scene's orientation.
        #expect(run.command(.fullscreen)?.interface == .portrait)
    }

    @Test func lockedWithoutMotionUsesThePreferredLandscape() throws {
        var run = try PolicyRun()
        run.command(.lock)
        #expect(run.command(.fullscreen)?.interface == .landscapeRight)
    }

    @Test func lockedForceWhenLockedOffStillHonoursTheMask() throws {
        var c = standard
        c.scenes[Scene.fullscreen]!.forceWhenLocked = false
        var run = try PolicyRun(c)
        run.command(.lock)
        run.send(.motion(.landscapeRight))  // physically landscape-right → interface landscape-left
        #expect(run.command(.fullscreen)?.interface == .landscapeRight)  // preferred, not the physical one
    }

    @Test func unlockFollowsTheDeviceAgain() throws {
        var run = try PolicyRun()
        run.command(.fullscreen)
        run.command(.lock)
        #expect(run.device(.landscapeRight) == nil)
        #expect(run.command(.unlock)?.reason == .unknown)
        #expect(run.device(.landscapeRight)?.interface == .landscapeLeft)
        #expect(run.command(.toggleLock)?.reason == .locked)
        #expect(run.policy.locked)
    }

    @Test(arguments: [
        (InterfaceOrientation.landscapeLeft, RotationDecision.Kind.rotate, DecisionReason.forced),
        (.landscapeRight, .keep, .already),
        (.portrait, .keep, .unsupported),
    ])
    func rotateToStaysInsideTheMask(target: InterfaceOrientation, kind: RotationDecision.Kind, reason: DecisionReason)
        throws
    {
        var run = try PolicyRun()
        run.command(.fullscreen)
        let dValue = run.command(.rotateTo(target))
        let d = try #require(dValue)
        #expect(d.kind == kind && d.reason == reason)
        #expect(run.policy.effectiveMask.allows(run.policy.interface))
    }

    @Test func aModalSceneRotatesAndTheSceneBelowReEvaluatesWhenItComesBack() throws {
        var c = standard
        c.scenes["menu"] = Scene("menu")  // portrait only
        var run = try PolicyRun(c)
        run.command(.fullscreen)
        _ = run.device(.landscapeLeft)
        #expect(run.policy.interface == .landscapeRight)
        let presentValue = run.command(.present("menu"))
        let present = try #require(presentValue)
        #expect(present.interface == .portrait && present.reason == .scene && present.scene == "menu")
        // The device turns while the menu is up: the menu does not autorotate.
        #expect(run.device(.landscapeRight)?.reason == .autorotateOff)
        let dismissValue = run.command(.dismiss)
        let dismiss = try #require(dismissValue)
        #expect(dismiss.scene == Scene.fullscreen && dismiss.interface == .landscapeLeft)
    }

    @Test func pushAndPresentAreTreatedAlike() throws {
        var c = standard
        c.scenes["menu"] = Scene("menu")
        var a = try PolicyRun(c), b = try PolicyRun(c)
        for r in [0, 1] {
            var run = r == 0 ? a : b
            run.command(.fullscreen)
            let d = run.command(r == 0 ? .push("menu") : .present("menu"))
            #expect(d?.interface == .portrait && d?.reason == .scene)
            if r == 0 { a = run } else { b = run }
        }
        #expect(a.command(.pop)?.interface == .landscapeRight)
        #expect(b.command(.dismiss)?.interface == .landscapeRight)
    }

    @Test(arguments: [PolicyCommand.pop, .dismiss, .push("nope"), .present("nope"), .acceptSuggestion])
    func impossibleCommandsAreRejectedNotFatal(command: PolicyCommand) throws {
        var run = try PolicyRun()
        let dValue = run.command(command)
        let d = try #require(dValue)
        #expect(d.kind == .keep && d.reason == .rejected)
        #expect(run.policy.stack.count == 1)
    }

    @Test func theFullScreenHotkeyIsRejectedUnderAModal() throws {
        var c = standard
        c.scenes["menu"] = Scene("menu")
        var run = try PolicyRun(c)
        run.command(.present("menu"))
        #expect(run.command(.fullscreen)?.reason == .rejected)
    }

    @Test func aWindowedPlayerNeverTurnsASharedOutput() throws {
        var c = standard
        c.scenes[Scene.fullscreen]!.strategy = .interface
        var run = try PolicyRun(c, display: DisplayAbilities(canRotateOutput: true, ownsOutput: false))
        let dValue = run.command(.fullscreen)
        let d = try #require(dValue)
        #expect(d.strategy == .surface)
        #expect(run.policy.outputAngle == 0 && run.policy.surfaceAngle == 90)
    }

    @Test func autoTurnsTheOutputOfAKioskAndFallsBackToTheSurface() throws {
        var run = try PolicyRun(display: .kiosk)
        let dValue = run.command(.fullscreen)
        let d = try #require(dValue)
        #expect(d.strategy == .interface)
        #expect(run.policy.outputAngle == 90 && run.policy.surfaceAngle == 0)
        // The compositor goes away: the same orientation moves to the surface.
        let movedValue = run.send(.display(.none)).last
        let moved = try #require(movedValue)
        #expect(moved.kind == .rotate && moved.reason == .strategy && moved.interface == .landscapeRight)
        #expect(moved.strategy == .surface)
        #expect(run.policy.outputAngle == 0 && run.policy.surfaceAngle == 90)
    }
}

@Suite("Policy transitions")
struct PolicyTransitionTests {
    @Test func willAndDidRotateWithDurationsDoubledForAHalfTurn() throws {
        var run = try PolicyRun()
        run.command(.fullscreen)
        run.device(.landscapeRight)  // landscape-right → landscape-left: a half turn
        let wills = run.outputs.compactMap { if case .willRotate(let tr) = $0 { tr } else { nil } }
        let dids = run.outputs.compactMap { if case .didRotate(let tr, let at) = $0 { (tr, at) } else { nil } }
        #expect(wills.map(\.duration) == [0.3, 0.6])
        #expect(wills.map(\.from) == [.portrait, .landscapeRight])
        #expect(wills.map(\.to) == [.landscapeRight, .landscapeLeft])
        #expect(dids.count == 1 && dids[0].0 == wills[0] && dids[0].1 == 1.3)
        #expect(run.policy.inputSuspended == 1)
        _ = run.policy.advance(to: 10)
        #expect(run.policy.inputSuspended == 0)
    }

    @Test func commandsDuringATransitionAreQueuedNotLost() throws {
        var run = try PolicyRun()
        run.command(.fullscreen)
        #expect(run.policy.transition != nil)
        #expect(run.send(.command(.rotateTo(.landscapeLeft)), after: 0.1).isEmpty)
        #expect(run.send(.command(.lock), after: 0.05).isEmpty)
        #expect(run.policy.queued == [.rotateTo(.landscapeLeft), .lock])
        // The first transition ends at 1.3; the rotate-to starts a half turn (0.6 s), then the lock.
        let after = run.send(.device(.unknown), after: 1.0)  // t = 2.15
        #expect(after.map(\.cause) == ["rotate-to", "lock"])
        #expect(after.map(\.t) == [1.3, 1.9])
        #expect(run.policy.queued.isEmpty)
    }

    @Test func aDeviceTurnDuringATransitionIsDecidedAfterIt() throws {
        var run = try PolicyRun()
        run.command(.fullscreen)
        #expect(run.send(.device(.landscapeRight), after: 0.1).isEmpty)
        let later = run.send(.motion(.unknown), after: 1)
        #expect(later.map(\.cause) == ["settled"])
        #expect(later.first?.interface == .landscapeLeft)
    }

    @Test func zeroDurationTransitionsEndAtOnce() throws {
        var c = standard
        c.transitionDuration = 0
        var run = try PolicyRun(c)
        run.command(.fullscreen)
        #expect(run.policy.transition == nil && run.policy.inputSuspended == 0)
    }
}

/// Random sequences of events keep the policy's invariants.
@Suite("Policy properties")
struct PolicyPropertyTests {
    static let steps = Gen.int(in: 0...27).array(of: 1...60)
    static let gaps = Gen.int(in: 0...8).array(of: 60...60)
    static let configs = Gen.int(in: 0...3)

    static func event(_ k: Int) -> PolicyEvent {
        let devices = DeviceOrientation.allCases
        switch k {
        case 0..<7: return .device(devices[k])
        case 7..<14: return .motion(devices[k - 7])
        case 14: return .command(.fullscreen)
        case 15: return .command(.lock)
        case 16: return .command(.unlock)
        case 17: return .command(.toggleLock)
        case 18...21: return .command(.rotateTo(InterfaceOrientation.allCases[k - 18]))
        case 22: return .command(.acceptSuggestion)
        case 23: return .command(.present("menu"))
        case 24: return .command(.dismiss)
        case 25: return .command(.pop)
        case 26: return .display(.kiosk)
        default: return .display(.none)
        }
    }

    static func configuration(_ k: Int) -> PolicyConfiguration {
        var c = PolicyConfiguration()
        c.scenes["menu"] = Scene("menu", supported: [.portrait, .portraitUpsideDown], autorotate: k.isMultiple(of: 2))
        switch k {
        case 1: c.appSupported = .all
        case 2: c.scenes[Scene.fullscreen]!.strategy = .interface; c.transitionDuration = 0
        case 3:
            c.scenes[Scene.inline] = Scene(Scene.inline, supported: .all, autorotate: true, strategy: .surface)
            c.appSupported = .all
        default: break
        }
        return c
    }

    @Test func invariantsHoldForEverySequence() async {
        await propertyCheck(count: 400, input: Self.steps, Self.gaps, Self.configs) { steps, gaps, config in
            var policy = try! OrientationPolicy(configuration: Self.configuration(config), display: .kiosk)
            var outputs = policy.start(at: 0)
            var t = 0.0
            var commands = 0
            for (i, k) in steps.enumerated() {
                t += Double(gaps[i]) * 0.1
                let event = Self.event(k)
                if case .command = event { commands += 1 }
                let before = (policy.interface, policy.strategy)
                let out = policy.handle(event, at: t)
                outputs += out
                #expect(policy.effectiveMask.allows(policy.interface), "outside the mask after \(event)")
                #expect(policy.surfaceAngle == 0 || policy.outputAngle == 0, "double rotation after \(event)")
                // No rotation without a cause: a rotate decision changes the orientation or how it is applied.
                var state = before
                for case .decision(let d) in out {
                    if d.kind == .rotate { #expect(d.interface != state.0 || d.strategy != state.1) }
                    if d.kind == .rotate { state = (d.interface, d.strategy) }
                }
            }
            outputs += policy.advance(to: t + 100)
            #expect(policy.queued.isEmpty && policy.transition == nil && policy.inputSuspended == 0)
            let wills = outputs.compactMap { if case .willRotate(let tr) = $0 { tr.id } else { nil } }
            let dids = outputs.compactMap { if case .didRotate(let tr, _) = $0 { tr.id } else { nil } }
            #expect(wills == dids, "every will-rotate has exactly one did-rotate")
            let decided = outputs.filter {
                if case .decision(let d) = $0 { return !["launch", "device", "display", "settled"].contains(d.cause) }
                return false
            }
            #expect(decided.count == commands, "every command is decided exactly once, none lost")
        }
    }
}
