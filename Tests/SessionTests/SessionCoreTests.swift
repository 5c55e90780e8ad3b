import OrientationCore
import PropertyBased
import Session
import Testing
import Wire

/// A session core driven at explicit times: every input and the effects it returned.
struct Run {
    var core: SessionCore
    var t = 0.0
    var effects: [SessionEffect] = []

    init(
        _ policy: PolicyConfiguration = PolicyConfiguration(), locked: Bool = false,
        display: DisplayAbilities = .kiosk, report: DisplayReport = .none
    ) throws {
        core = try SessionCore(policy: policy, locked: locked, display: display, report: report)
        effects = core.start(at: 0)
    }

    /// Handles `input` `dt` seconds after the last one; returns its effects.
    @discardableResult
    mutating func at(_ dt: Double, _ input: SessionInput) -> [SessionEffect] {
        t += dt
        let out = core.handle(input, at: t)
        effects += out
        return out
    }

    mutating func command(_ action: Action, _ dt: Double = 1, request: RequestID? = nil) -> [SessionEffect] {
        at(dt, .command(action, from: .control, request: request))
    }

    /// The time passes until nothing is due: transitions end, queued commands are carried out.
    mutating func settle() {
        while let due = core.nextDeadline, due < t + 60, core.policy.transition != nil {
            at(max(0, due - t), .tick)
        }
    }
}

extension [SessionEffect] {
    var decisions: [RotationDecision] {
        compactMap { if case .policy(.decision(let d)) = $0 { d } else { nil } }
    }
    var replies: [ControlReply] {
        compactMap { if case .reply(_, let r) = $0 { r } else { nil } }
    }
    var measures: Int { filter { $0 == .measureMotion }.count }
}

@Suite("Session core")
struct SessionCoreTests {
    @Test func aRotationTurnsThePlayerThenTheOutputThenShowsTheLock() throws {
        var run = try Run()
        run.settle()
        let out = run.command(.fullscreen)
        let d = try #require(out.decisions.first)
        #expect(d.kind == .rotate && d.interface == .landscapeRight && d.strategy == .interface)
        let shown = out.filter { if case .policy = $0 { false } else { true } }
        #expect(
            Array(shown.prefix(4)) == [
                .player(.apply(.landscapeRight, .interface, .fullscreen, panel: .landscapeRight)),
                .turnOutput(.landscapeRight),
                .player(.overlay(.locked(false))), .player(.overlay(.hidden(true))),
            ])
        run.settle()
        #expect(run.effects.last == .player(.overlay(.hidden(false))))
    }

    @Test func theSurfaceStrategyTurnsTheOutputBackToThePanelsPortrait() throws {
        var policy = PolicyConfiguration()
        policy.scenes[Scene.fullscreen]!.strategy = .surface
        var run = try Run(policy)
        let out = run.command(.fullscreen)
        #expect(out.contains(.player(.apply(.landscapeRight, .surface, .fullscreen))))
        #expect(out.contains(.turnOutput(.portrait)))
    }

    /// A landscape panel whose output cannot turn (cage 0.1.4, the console, no backend) shows
    /// landscape-right upright unturned: the picture turns only by the interface's angle beyond
    /// what the panel shows (and by it, an output left turned by someone else).
    @Test(
        arguments: [(nil, InterfaceOrientation.landscapeRight), (180, .landscapeLeft)] as [(Int?, InterfaceOrientation)]
    )
    func onAPanelThatCannotTurnThePictureTurnsByTheRest(transform: Int?, shown: InterfaceOrientation) throws {
        var report = DisplayReport.none
        report.transform = transform
        var run = try Run(display: .none, report: report)
        run.core.natural = .landscapeRight
        let out = run.command(.fullscreen)
        #expect(out.contains(.player(.apply(.landscapeRight, .surface, .fullscreen, panel: shown))), "\(out)")
    }

    @Test func withNoDisplayTheOutputIsNeverTurned() throws {
        var run = try Run(display: .none)
        _ = run.command(.fullscreen)
        #expect(!run.effects.contains { if case .turnOutput = $0 { true } else { false } })
    }

    @Test func atLaunchThePlayerStartsBeforeTheOutputTurnsAndAfterItsOwnTurn() throws {
        var core = try SessionCore(policy: PolicyConfiguration(), locked: false, display: .kiosk)
        let shown = core.launch(presence: .present, at: 0).filter { if case .policy = $0 { false } else { true } }
        let apply = try #require(shown.firstIndex(of: .player(.apply(.portrait, .interface, .inline))))
        let start = try #require(shown.firstIndex(of: .player(.start)))
        let turn = try #require(shown.firstIndex(of: .turnOutput(.portrait)))
        #expect(apply < start && start < turn)
        // Without a display to turn, and while waiting for one, the order is the core's own.
        var none = try SessionCore(policy: PolicyConfiguration(), locked: false, display: .none)
        var expected = none
        #expect(
            none.launch(presence: .present, at: 0)
                == expected.start(at: 0) + expected.handle(.displayChecked(.present), at: 0))
        var waiting = try SessionCore(policy: PolicyConfiguration(), locked: false, display: .kiosk)
        #expect(!waiting.launch(presence: .waiting("sway is not there"), at: 0).contains(.player(.start)))
    }

    @Test(arguments: [InterfaceOrientation.portrait, .landscapeLeft, .landscapeRight])
    func aLaunchTheFirstSceneTurnsFromAtOnceIsLaidOutAndTurnedOnce(launch: InterfaceOrientation) throws {
        var policy = PolicyConfiguration()
        policy.launch = launch
        var core = try SessionCore(policy: policy, locked: false, display: .kiosk)
        let effects = core.launch(presence: .present, at: 0)
        let shown = effects.filter { if case .policy = $0 { false } else { true } }
        let applies = shown.filter { if case .player(.apply) = $0 { true } else { false } }
        let turns = shown.filter { if case .turnOutput = $0 { true } else { false } }
        // The inline scene allows portrait alone: whatever the launch, portrait is what stays.
        #expect(applies == [.player(.apply(.portrait, .interface, .inline))])
        #expect(turns == [.turnOutput(.portrait)])
        let apply = try #require(shown.firstIndex(of: applies[0]))
        let start = try #require(shown.firstIndex(of: .player(.start)))
        let turn = try #require(shown.firstIndex(of: turns[0]))
        #expect(apply < start && start < turn)
        // The decisions are all still said (the log, `ctl status`): the launch and, unless it
        // was portrait, the scene's turn from it.
        let turned = effects.filter { if case .policy(.decision(let d)) = $0 { d.kind == .rotate } else { false } }
        #expect(turned.count == (launch == .portrait ? 1 : 2))
        #expect(core.status.interface == .portrait)
    }

    @Test func lockingAsksTheMotionFallbackFirstAndSwitchesTheSensorOff() throws {
        var run = try Run()
        run.settle()
        let asked = run.command(.lock, request: 1)
        #expect(asked == [.measureMotion], "nothing is decided before the answer")
        let out = run.at(0.2, .motion(.landscapeLeft))
        #expect(out.first == .sensorLock(true))
        #expect(out.decisions.map(\.reason) == [.locked])
        #expect(out.contains(.player(.overlay(.suggestion(.landscapeRight)))) == false, "inline allows portrait only")
        #expect(out.replies.first?.ok == true)
        #expect(run.core.policy.locked && !run.core.measuring)
    }

    @Test func theFullScreenHotkeyWhileLockedTurnsToTheLandscapeTheDeviceIsIn() throws {
        var run = try Run(locked: true)
        run.settle()
        #expect(run.at(1, .command(.fullscreen, from: .hotkey)) == [.measureMotion])
        let out = run.at(0.2, .motion(.landscapeRight))  // left edge up: interface landscape-left
        let d = try #require(out.decisions.first)
        #expect(d.reason == .scene && d.interface == .landscapeLeft)
    }

    @Test func commandsThatArriveDuringAMeasurementWaitBehindItInOrder() throws {
        var run = try Run()
        run.settle()
        #expect(run.command(.lock, request: 1) == [.measureMotion])
        #expect(run.command(.fullscreen, 0.05, request: 2) == [], "held, no second measurement")
        let out = run.at(0.15, .motion(.landscapeLeft))
        #expect(out.measures == 0)
        #expect(out.decisions.map(\.cause) == ["lock", "fullscreen"])
        #expect(out.compactMap { if case .reply(let id, _) = $0 { id } else { nil } } == [1, 2])
    }

    @Test func anUnknownMotionReadingStillReleasesTheCommands() throws {
        var run = try Run(locked: true)
        _ = run.command(.fullscreen)
        let out = run.at(0.3, .motion(.unknown))
        #expect(out.decisions.first?.interface == .landscapeRight, "the preferred landscape")
        #expect(run.core.policy.physical == .unknown)
    }

    @Test func unlockingDoesNotWaitForTheMotionFallback() throws {
        var run = try Run(locked: true)
        let out = run.command(.unlock)
        #expect(out.first == .sensorLock(false))
        #expect(out.measures == 0)
        #expect(!run.core.policy.locked)
        let toggled = run.command(.toggleLock)
        #expect(toggled == [.measureMotion], "a toggle that locks asks first")
    }

    @Test func theLockSwitchLocksLikeACommandAndAnEchoDoesNothing() throws {
        var run = try Run()
        #expect(run.at(1, .lockSwitch(.off)) == [])
        #expect(run.at(1, .lockSwitch(.on)) == [.measureMotion])
        _ = run.at(0.2, .motion(.portrait))
        #expect(run.core.policy.locked)
        #expect(run.at(1, .lockSwitch(.on)) == [])
    }

    @Test func aCommandDuringATransitionIsQueuedAndSaysSo() throws {
        var run = try Run()
        run.settle()
        _ = run.command(.fullscreen, request: 1)
        let started = run.t
        let queued = run.command(.fullscreen, 0.1, request: 2)
        let reply = try #require(queued.replies.first)
        #expect(reply.ok && reply.queued == true && reply.decision == nil)
        #expect(run.core.status.queued == ["fullscreen"])
        let later = run.at(0.2, .tick)  // the 0.3 s quarter turn ends
        #expect(later.decisions.map(\.scene) == [Scene.inline])
        #expect(later.decisions.first?.t == started + 0.3, "carried out when the turn ends")
    }

    @Test(arguments: [
        (Action.rotateTo(.portraitUpsideDown), "does not allow portrait-upside-down"),
        (.scenePush("nope"), "no scene named 'nope'"),
        (.acceptSuggestion, "no rotate suggestion"),
        (.sceneDismiss, "no modal scene"),
    ])
    func aRefusedCommandSaysWhyAndChangesNothing(action: Action, reason: String) throws {
        var run = try Run()
        _ = run.command(.fullscreen)
        run.settle()
        let before = run.core.status
        let reply = try #require(run.command(action, request: 7).replies.first)
        #expect(!reply.ok)
        #expect(reply.error?.contains(reason) == true, "\(reply)")
        #expect(run.core.status.interface == before.interface && run.core.status.scenes == before.scenes)
    }

    @Test func rotateTurnsToTheNextOrientationClockwiseTheSceneAllows() throws {
        var run = try Run()
        _ = run.command(.fullscreen)
        run.settle()
        let d = try #require(run.command(.rotate).decisions.first)
        #expect(d.interface == .landscapeLeft && d.reason == .forced)
        run.settle()
        _ = run.command(.fullscreen)  // back to inline: portrait only
        run.settle()
        let out = run.command(.rotate, request: 3)
        #expect(out.replies.first?.ok == false)
        #expect(out.contains { if case .status(let s) = $0 { s.contains("allows no other") } else { false } })
    }

    @Test func nextAndPreviousAreThePlayersWithTheRequestToAnswer() throws {
        var run = try Run()
        #expect(run.command(.next, request: 4) == [.playlist(.next, request: 4)])
        #expect(run.command(.previous) == [.playlist(.previous, request: nil)])
    }

    @Test func aDisplayThatCannotTurnFromTheStartIsAskedAtOnceThenEveryFiveSeconds() throws {
        let report = DisplayReport(backend: "wlroots", turnsOutputs: false, reason: "test", problem: "no mode")
        var run = try Run(display: DisplayAbilities(canRotateOutput: false, ownsOutput: true), report: report)
        #expect(run.core.nextDeadline == 0)
        #expect(run.at(0.5, .tick).contains(.probeDisplay))
        #expect(run.core.nextDeadline == 5.5)
    }

    @Test func aFailedTurnFallsBackToTheSurfaceAndTheDisplayIsAskedAgain() throws {
        let report = DisplayReport(backend: "sway", turnsOutputs: true, reason: "test")
        var run = try Run(report: report)
        run.settle()
        _ = run.command(.fullscreen)
        var broken = report
        broken.turnsOutputs = false
        let out = run.at(0, .displayTurned(broken, failure: "sway went away"))
        #expect(out.first == .status("display: sway went away; only the video surface turns until it answers again"))
        run.settle()  // the fallback is decided when the turn under way ends
        #expect(run.core.policy.strategy == .surface)
        let due = try #require(run.core.nextDeadline)
        #expect(due == 1 + 5, "five seconds after the failure")
        #expect(run.at(due - run.t, .tick).contains(.probeDisplay))
        let back = run.at(0.01, .displayProbed(.kiosk, report))
        #expect(back.first == .status("display: sway turns outputs again; the interface may turn with the output"))
        run.settle()
        #expect(run.core.policy.strategy == .interface)
        #expect(run.core.nextDeadline == nil, "nothing is due once the display answers")
    }

    @Test func aReloadKeepsTheStateAndARefusedOneChangesNothing() throws {
        var run = try Run()
        _ = run.command(.fullscreen)
        run.settle()
        var bad = PolicyConfiguration()
        bad.appSupported = [.portrait]
        let refused = run.at(1, .reload(bad, request: 9))
        #expect(refused.replies.first?.error?.contains("refused") == true)
        #expect(run.core.policy.topScene == Scene.fullscreen)
        var good = PolicyConfiguration()
        good.scenes[Scene.fullscreen]!.supported = [.landscapeLeft]
        good.scenes[Scene.fullscreen]!.preferred = .landscapeLeft
        let ok = run.at(1, .reload(good, request: 10))
        #expect(ok.replies.first?.ok == true)
        #expect(ok.decisions.first?.interface == .landscapeLeft)
    }

    @Test func statusSaysWhatThePlayerThePolicyAndTheSensorKnow() throws {
        var run = try Run()
        _ = run.at(0.5, .sensorStatus("sensor reading: fine"))
        _ = run.at(0.5, .playing(item: "/srv/a.mp4", title: "A"))
        let out = run.at(0.5, .status(request: 1))
        let status = try #require(out.replies.first?.status)
        #expect(status.sensor == "sensor reading: fine" && status.playing == "/srv/a.mp4")
        #expect(status.scenes == ["inline"] && status.lastDecision != nil)
        #expect(run.effects.contains(.player(.overlay(.title("A")))))
    }

    @Test func theDecisionLineKeepsItsFormat() throws {
        let d = RotationDecision(
            t: 12.3, kind: .rotate, interface: .landscapeLeft, strategy: .surface, scene: "a \"b\"", reason: .forced,
            cause: "rotate-to")
        #expect(
            d.jsonLine(time: d.millisecondsText)
                == #"{"t": 12.300, "decision": "rotate", "interface": "landscape-left", "strategy": "surface", "#
                + #""scene": "a \"b\"", "reason": "forced", "cause": "rotate-to"}"#)
        #expect(d.jsonLine(time: "\(d.t)", cause: false).hasSuffix(#""reason": "forced"}"#))
    }
}

/// Random sequences of inputs keep the session's promises.
@Suite("Session core properties")
struct SessionCorePropertyTests {
    static let steps = Gen.int(in: 0...19).array(of: 1...50)
    static let gaps = Gen.int(in: 0...6).array(of: 50...50)

    static func input(_ k: Int, request: RequestID) -> SessionInput {
        let actions: [Action] = [
            .fullscreen, .lock, .unlock, .toggleLock, .rotateTo(.landscapeLeft), .rotate, .acceptSuggestion, .next,
            .scenePush("nope"), .scenePop,
        ]
        switch k {
        case 0..<10: return .command(actions[k], from: .control, request: request)
        case 10...13: return .device(DeviceOrientation.allCases[k - 9])
        case 14, 15: return .motion(k == 14 ? .landscapeLeft : .portrait)
        case 16: return .lockSwitch(.on)
        case 17: return .displayTurned(.none, failure: "gone")
        case 18: return .displayProbed(.kiosk, .none)
        default: return .tick
        }
    }

    @Test func everyRequestIsAnsweredOnceAndTheMotionFallbackIsNeverAskedTwice() async {
        await propertyCheck(count: 300, input: Self.steps, Self.gaps) { steps, gaps in
            var core = try! SessionCore(policy: PolicyConfiguration(), locked: false, display: .kiosk)
            var effects = core.start(at: 0)
            var t = 0.0, requests = 0
            for (i, k) in steps.enumerated() {
                t += Double(gaps[i]) * 0.1
                if k < 10 { requests += 1 }
                let before = core.measuring
                let out = core.handle(Self.input(k, request: requests), at: t)
                if before { #expect(out.measures == 0, "a second measurement while one is under way") }
                effects += out
                #expect(core.policy.effectiveMask.allows(core.policy.interface))
            }
            // The last measurement answers, and the time runs out.
            if core.measuring { effects += core.handle(.motion(.portrait), at: t) }
            effects += core.handle(.tick, at: t + 100)
            var answered = effects.compactMap { if case .reply(let id, _) = $0 { id } else { nil } }
            answered += effects.compactMap { if case .playlist(_, let id?) = $0 { id } else { nil } }
            #expect(answered.sorted() == Array(1...max(1, requests)).prefix(requests).map { $0 })
        }
    }
}

/// `[lock] relock_after`: the lock comes back after an unlock by hand, once that long passes
/// without a turn; each turn starts the wait again, and a lock by hand ends it.
@Suite("The lock that comes back")
struct RelockTests {
    /// A session locked at its start, with the lock's return after 30 s.
    static func unlocked() throws -> Run {
        var run = try Run(locked: true)
        run.core.relockAfter = 30
        run.settle()
        _ = run.command(.unlock)  // at 1 s
        return run
    }

    /// Ticks at `times` (absolute seconds); the effects of each.
    static func ticks(_ run: inout Run, _ times: [Double]) -> [[SessionEffect]] {
        times.map { run.at($0 - run.t, .tick) }
    }

    @Test func theLockComesBackOnceTheTimePassesWithoutATurn() throws {
        var run = try Self.unlocked()
        #expect(!run.core.policy.locked && run.core.relockAt == 31)
        let early = Self.ticks(&run, [10, 30.9])
        #expect(early.allSatisfy { $0.measures == 0 })
        let status = run.at(0, .status(request: 4)).replies.first?.status
        #expect(status?.relockIn == 0.1)
        let due = run.at(31 - run.t, .tick)
        #expect(due.measures == 1, "the lock asks how the device is held, as a lock by hand does")
        #expect(due.contains(.status("the lock comes back: 30 s without a turn since it was unlocked")))
        _ = run.at(0.2, .motion(.portrait))
        #expect(run.core.policy.locked && run.core.relockAt == nil)
        #expect(run.at(0, .status(request: 5)).replies.first?.status?.relockIn == nil)
        #expect(Self.ticks(&run, [100, 200]).allSatisfy { $0.measures == 0 }, "once")
    }

    @Test func eachTurnStartsTheWaitAgain() throws {
        var run = try Self.unlocked()
        let turn = run.command(.fullscreen, 19)  // at 20 s: the interface turns
        #expect(turn.decisions.first?.kind == .rotate)
        #expect(run.core.relockAt == 50)
        run.settle()
        #expect(Self.ticks(&run, [31, 49.9]).allSatisfy { $0.measures == 0 })
        #expect(Self.ticks(&run, [50]).first?.measures == 1)
    }

    @Test func aLockByHandMeanwhileEndsTheWait() throws {
        var run = try Self.unlocked()
        #expect(run.command(.lock, 4) == [.measureMotion])
        _ = run.at(0.2, .motion(.portrait))
        #expect(run.core.policy.locked && run.core.relockAt == nil)
        #expect(Self.ticks(&run, [31, 60]).allSatisfy { $0.measures == 0 })
    }

    @Test func withoutTheSettingOrWithoutAnUnlockNothingComesBack() throws {
        var plain = try Run(locked: true)
        _ = plain.command(.unlock)
        #expect(plain.core.relockAt == nil)
        #expect(Self.ticks(&plain, [100, 1000]).allSatisfy { $0.measures == 0 })
        var never = try Run()
        never.core.relockAfter = 30
        _ = never.command(.unlock)
        _ = never.command(.fullscreen)
        #expect(never.core.relockAt == nil, "unlocked from the start: nothing was unlocked by hand")
    }

    @Test func aReloadSetsOrClearsTheTime() throws {
        var run = try Self.unlocked()
        _ = run.at(1, .reload(PolicyConfiguration(), relockAfter: nil, request: 1))
        #expect(run.core.relockAfter == nil)
        _ = run.at(1, .tick)
        #expect(run.core.relockAt == nil, "the setting gone, so is the wait")
    }
}

/// `[sensor] tablet_mode = "auto"`: auto-rotation off while the tablet-mode switch says laptop.
@Suite("Tablet mode")
struct TabletModeTests {
    static func tablet(follows: Bool = true) throws -> Run {
        var run = try Run()
        run.core.followsTabletMode = follows
        run.settle()
        return run
    }

    @Test func aLaptopSetsTheReadingsAsideAndATabletTakesThemUp() throws {
        var run = try Self.tablet()
        run.at(1, .command(.fullscreen, from: .hotkey))
        run.settle()
        let laptop = run.at(1, .tabletMode(false))
        #expect(laptop.contains(.sensorLock(true)))
        #expect(laptop.contains(.status("the device is a laptop: auto-rotation off until it is a tablet again")))
        let interface = run.core.policy.interface
        #expect(run.at(1, .device(.portrait)) == [], "set aside")
        #expect(run.core.policy.interface == interface)
        #expect(run.at(0, .status(request: 1)).replies.first?.status?.tabletMode == "laptop: auto-rotation off")
        #expect(run.command(.fullscreen) == [.measureMotion], "a command asks how the device is held, as while locked")
        _ = run.at(0.2, .motion(.landscapeLeft))
        run.settle()
        #expect(!run.core.policy.locked, "the lock itself is not touched")
        let tablet = run.at(1, .tabletMode(true))
        #expect(
            tablet.contains(.sensorLock(false)) && tablet.contains(.status("the device is a tablet: auto-rotation on")))
        _ = run.at(1, .device(.landscapeLeft))
        run.settle()
        #expect(run.core.policy.device == .landscapeLeft)
        #expect(run.at(0, .status(request: 2)).replies.first?.status?.tabletMode == "tablet")
    }

    @Test func aLockedLaptopThatBecomesATabletStaysLocked() throws {
        var run = try Self.tablet()
        _ = run.at(1, .tabletMode(false))
        _ = run.command(.lock)
        _ = run.at(0.2, .motion(.portrait))
        let tablet = run.at(1, .tabletMode(true))
        #expect(tablet.contains(.sensorLock(true)), "the sensor stays paused: the lock is on")
        #expect(run.core.policy.locked)
    }

    /// `[scenes.NAME] tablet_mode`: a scene that follows the switch where the sensor's setting
    /// ignores it. Entering it with the device a laptop turns auto-rotation off, leaving it turns
    /// it on again, as the switch itself would.
    @Test func aSceneMayAskForTheSwitchWhereTheSensorIgnoresIt() throws {
        var scenes = PolicyConfiguration.standardScenes
        let full = try #require(scenes.firstIndex { $0.name == Scene.fullscreen })
        scenes[full].followsTabletMode = true
        var run = try Run(PolicyConfiguration(scenes: scenes))
        run.settle()
        #expect(run.at(1, .tabletMode(false)) == [], "the inline scene leaves it to the sensor's setting")
        let entered = run.command(.fullscreen)
        #expect(entered.contains(.sensorLock(true)))
        #expect(
            entered.contains(
                .status(
                    "the scene 'fullscreen' follows the tablet-mode switch, and the device is a laptop: auto-rotation off"
                )))
        run.settle()
        let interface = run.core.policy.interface
        #expect(run.at(1, .device(.landscapeLeft)) == [] && run.core.policy.interface == interface, "set aside")
        #expect(run.at(0, .status(request: 1)).replies.first?.status?.tabletMode == "laptop: auto-rotation off")
        #expect(run.command(.fullscreen) == [.measureMotion], "a command asks how the device is held")
        let left = run.at(0.2, .motion(.portrait))
        #expect(left.contains(.sensorLock(false)), "\(left)")
        #expect(left.contains(.status("the scene 'inline' does not follow the tablet-mode switch: auto-rotation on")))
        let shown = run.at(0, .status(request: 2)).replies.first?.status?.tabletMode
        #expect(shown == "laptop (not followed: [sensor] tablet_mode = \"ignore\")")
    }

    @Test func ignoredTheSwitchChangesNothingButIsShown() throws {
        var run = try Self.tablet(follows: false)
        #expect(run.at(1, .tabletMode(false)) == [])
        _ = run.at(1, .device(.landscapeLeft))
        #expect(run.core.policy.device == .landscapeLeft)
        let shown = run.at(0, .status(request: 1)).replies.first?.status?.tabletMode
        #expect(shown == "laptop (not followed: [sensor] tablet_mode = \"ignore\")")
    }
}
