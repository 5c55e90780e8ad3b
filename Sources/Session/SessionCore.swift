public import OrientationCore
public import Wire

/// The play session's rules, as a value: no I/O and no clock. It takes every input the session
/// reacts to, with its time, and returns the effects to carry out, in order. `upright play` loops
/// over its inputs and performs the effects; the dry run feeds it a trace and an events file;
/// the tests feed it inputs at explicit times.
///
/// The rules it adds to the policy's:
/// - while the lock is on (and when it is being switched on), a command first asks the motion
///   fallback how the device is held, and waits for the answer; commands that arrive meanwhile
///   wait behind it, in order;
/// - the lock switches the sensor off and on with the policy;
/// - a rotation turns the player first, then the output (mpv takes new margins at the resize the
///   output's turn brings);
/// - an output that cannot be turned makes the policy fall back to the surface, and the display
///   is asked again every ``probeInterval`` seconds;
/// - a control request gets a reply that says what happened: decided, refused, or queued behind
///   the rotation under way;
/// - `play <clip>` enters the clip's scene and plays its file once; when it ends the scene goes
///   (and every scene entered above it meanwhile), so the loop shows again in the orientation it
///   had; a `play` press while a clip plays is ignored or queued (``PolicyConfiguration/clipPresses``);
/// - with ``followsTabletMode``, auto-rotation is off while the tablet-mode switch says laptop (the
///   device's readings are set aside, the sensor paused, and a command asks the motion fallback,
///   as while locked) and on again when it says tablet; the lock itself is not touched;
/// - after an unlock by hand, with ``relockAfter`` set, the lock comes back once that long passes
///   without a turn of the interface (each turn starts the wait again); a lock meanwhile ends it;
/// - a tap (``Origin/touch``) during a rotation is dropped: input is suspended during transitions;
/// - one key press that reaches the session both ways, from mpv's window and from the input
///   device (a keyboard bound as `F11` and as `KEY_F11`), counts once: a press pairs with the
///   oldest unpaired press of the same action from the other way within ``pressEcho`` seconds,
///   and is dropped (the compositor's way lags by a second or more when the first copy turns the
///   screen on a slow device).
public struct SessionCore: Sendable {
    public internal(set) var policy: OrientationPolicy
    /// What the display can do now.
    public internal(set) var display: DisplayAbilities
    public internal(set) var displayReport: DisplayReport
    public private(set) var sensorHealth = "starting"
    public internal(set) var playing: String?
    /// Items that failed, each with why (the latest ``failuresKept``), until one plays.
    var failures: [ItemFailure] = []
    static let failuresKept = 32
    /// Seconds between two probes of a display that failed.
    public var probeInterval = 5.0
    var lastProbe = -Double.infinity
    /// A motion measurement was asked for and its answer has not come.
    public private(set) var measuring = false
    /// Commands waiting for the motion fallback's answer.
    private var held: [(Action, Origin, RequestID?)] = []
    /// This screen's place in a wall's group (`nil`: not in one).
    public private(set) var wallRole: WallRole?
    /// The clip scene playing, and the clip scenes queued behind it.
    public private(set) var clip: String?
    public private(set) var clipQueue: [String] = []
    /// The input devices, for the status.
    public private(set) var input = InputReport()
    /// Seconds within which the same action from mpv's window and from an input device is one press.
    /// The window's way lags when the first copy turns the screen: mpv reads its window's keys
    /// between frames, and the frames at the new size come slowly on software rendering (1.3 s on
    /// an emulated kiosk). Only presses from the other way pair, so two quick presses that each
    /// arrive both ways still count twice.
    public var pressEcho = 3.0
    /// The screen's power plan: the window it is on (`nil`: always on), and whether it is on now.
    public var powerPlan: Schedule?
    public internal(set) var screenOn = true
    /// What the plan says now (on without a plan, or while it is set aside).
    var planOn = true
    /// `[screen] idle_off`: seconds without a person before the screen sleeps (`nil`: never).
    public var idleOff: Double?
    /// The last sign of a person (the launch counts as one), and whether the screen sleeps for
    /// want of one.
    public internal(set) var lastPresence: Double?
    /// How long a toast stays on screen, in seconds (`[screen] toast_seconds`).
    public var toastSeconds = 10.0
    /// When the toast on screen goes (``toast(_:at:)``); `nil` without one.
    public internal(set) var toastUntil: Double?
    var toastWords: String?
    public internal(set) var idle = false
    /// The power plan is followed (`power-plan on`, the default), or set aside with the screen on.
    public private(set) var powerPlanFollowed = true
    /// The local time last heard, for the plan taken up again.
    private var localTime: (weekday: Int, minute: Int)?
    /// The MQTT connection, in words (`nil` without MQTT).
    public private(set) var mqtt: String?
    var screenNextChange: String?
    /// Seconds after an unlock by hand, without a turn, until the lock comes back (`nil`: never;
    /// `[lock] relock_after`).
    public var relockAfter: Double?
    /// When the lock comes back (`nil`: it does not).
    public private(set) var relockAt: Double?
    /// Whether the tablet-mode switch turns auto-rotation off while the device is a laptop
    /// (`[sensor] tablet_mode = "auto"`), unless the scene on top says otherwise.
    public var followsTabletMode = false
    /// What the tablet-mode switch said last: tablet (true), laptop (false), or nothing yet.
    public private(set) var tabletMode: Bool?
    /// Whether the switch is followed now: the top scene's own word (`[scenes.NAME] tablet_mode`),
    /// else the sensor's.
    var followingTabletMode: Bool { sceneFollowsTabletMode ?? followsTabletMode }
    /// The top scene's own word on the switch (`nil`: it has none).
    var sceneFollowsTabletMode: Bool? { policy.configuration.scenes[policy.topScene]?.followsTabletMode }
    /// The panel's natural orientation (`[display] natural`): what an output at transform 0 shows
    /// upright.
    public var natural: InterfaceOrientation = .portrait
    /// Auto-rotation is off: a laptop, with the switch followed.
    var laptop: Bool { followingTabletMode && tabletMode == false }
    /// Presses of each action not yet paired with the same press from the other way.
    private var unpaired: [Action: [(origin: Origin, at: Double)]] = [:]

    // The display and the player (SessionCore+Display.swift).
    /// How long the session waits for a display that does not answer before it fails (`nil`: for ever).
    public var displayWait: Double? = 60
    /// Whether the player plays, waits for the display, or has not started.
    enum Phase: Sendable, Equatable { case starting, playing, waiting(lost: Bool) }
    var phase = Phase.starting
    /// Since when the display has not answered, and why (in words).
    var waitingSince: Double?
    var waitingWhy = ""
    /// When mpv ended on its own lately: three times in a minute and the session fails.
    var losses: [Double] = []
    /// Why the display was asked whether it answers, until it answers (one question at a time).
    enum DisplayQuestion: Sendable, Equatable {
        /// mpv ended on its own: its display's loss, or its own end?
        case mpvEnded
        /// A look while playing (an item failed, or its time came): mpv may live on when its
        /// compositor goes.
        case presence
    }
    var asking: DisplayQuestion?
    /// mpv ended with the display there: when to ask once more.
    var lossConfirmAt: Double?
    /// Seconds between two looks at the display while playing (`nil`: none; the shell sets it).
    public var presenceInterval: Double?
    var lastPresenceCheck = 0.0
    /// What follows the answer to the display's start: the player's start.
    var afterProbe: [SessionEffect] = []

    /// A session for a valid policy configuration, with the display as its backend answered.
    ///
    /// - Throws: the configuration's problems, all of them.
    public init(
        policy configuration: PolicyConfiguration, locked: Bool, display: DisplayAbilities,
        report: DisplayReport = .none
    ) throws(PolicyConfigurationError) {
        policy = try OrientationPolicy(configuration: configuration, display: display, locked: locked)
        self.display = display
        displayReport = report
    }

    /// The launch decision, before the first frame, then the starting state's.
    public mutating func start(at now: Double) -> [SessionEffect] {
        lastPresence = now  // the start counts as a person there: the screen sleeps `idle_off` later
        return translate(policy.start(at: now))
    }

    /// The launch (``start(at:)``) and what the display's first check (`presence`) starts, in the
    /// order a first frame comes soonest: the player starts (mpv opens its file) before the
    /// output's launch turn, instead of after the compositor has turned and drawn the output (a
    /// third of a second on a slow board). The turn still comes first where it counts: the
    /// compositor reads it, and turns the output, long before mpv's window exists; the player's
    /// own turn (`apply`) stays ahead of its start.
    ///
    /// A launch orientation that the first scene does not allow is turned from at once (the
    /// policy's second decision, at the same instant): only the last turn is carried out, in the
    /// first one's place, so the first frame is laid out, and the output turned, once, as they stay.
    public mutating func launch(presence: DisplayState, at now: Double) -> [SessionEffect] {
        var effects = Self.lastTurnsOnly(start(at: now) + handle(.displayChecked(presence), at: now))
        guard let turn = effects.firstIndex(where: { if case .turnOutput = $0 { true } else { false } }),
            let start = effects.firstIndex(of: .player(.start)), start > turn
        else { return effects }
        effects.insert(effects.remove(at: start), at: turn)
        return effects
    }

    /// `effects` with each kind of turn (the player's, the output's) carried out once: the last
    /// one, in the first one's place.
    static func lastTurnsOnly(_ effects: [SessionEffect]) -> [SessionEffect] {
        let applies = effects.indices.filter { if case .player(.apply) = effects[$0] { true } else { false } }
        let turns = effects.indices.filter { if case .turnOutput = effects[$0] { true } else { false } }
        var out = effects
        for group in [applies, turns] where group.count > 1 {
            out[group[0]] = effects[group[group.count - 1]]
        }
        let dropped = Set(applies.dropFirst() + turns.dropFirst())
        return out.indices.filter { !dropped.contains($0) }.map { out[$0] }
    }

    /// When the next thing is due with no input: a transition's end, a display probe, the end of
    /// the wait for a display, a toast's end.
    public var nextDeadline: Double? {
        // Never probed yet (the display could not turn from the start): at once.
        let probe = probeDue ? (lastProbe.isFinite ? lastProbe + probeInterval : 0) : nil
        let giveUp = waitingSince.flatMap { since in displayWait.map { since + $0 } }
        let due = [policy.transition?.end, probe, giveUp, presenceDue, lossConfirmAt, idleDue, toastUntil]
        return due.compactMap { $0 }.min()
    }

    private var probeDue: Bool {
        guard case .waiting = phase else { return !display.canRotateOutput && displayReport.backend != "none" }
        return false
    }

    /// The session's state, for `upright ctl status` (the lock's return, which needs the time, is
    /// added by the status request).
    public var status: SessionStatus {
        var s = SessionStatus(
            device: policy.device, locked: policy.locked, interface: policy.interface,
            strategy: policy.strategy, scenes: policy.stack.map(\.scene), sensor: sensorHealth,
            display: displayReport, lastDecision: policy.lastDecision.map { $0.record(time: $0.millisecondsText) },
            suggestion: policy.suggestion, playing: playing, queued: policy.queued.map(\.name), clip: clip,
            clipsQueued: clipQueue, input: input,
            screen: powerPlan == nil && idleOff == nil ? nil : (screenOn ? .on : .off),
            screenNextChange: screenNextChange, powerPlanFollowed: powerPlan == nil ? nil : powerPlanFollowed,
            mqtt: mqtt, failed: failures)
        s.tabletMode = tabletModeText
        s.present = idleOff == nil ? nil : !idle
        s.toast = toastWords
        return s
    }

    /// Handles one input at `now` (seconds, never earlier than the previous input's).
    public mutating func handle(_ input: SessionInput, at now: Double) -> [SessionEffect] {
        let (interface, locked, wasLaptop, switchSaid) = (policy.interface, policy.locked, laptop, tabletMode)
        var out = handleInput(input, at: now)
        out += laptopRule(wasLaptop: wasLaptop, switched: tabletMode != switchSaid, at: now)
        relockRule(turned: policy.interface != interface, wasLocked: locked, at: now)
        return out
    }

    private mutating func handleInput(_ input: SessionInput, at now: Double) -> [SessionEffect] {
        switch input {
        case .device(let o):
            return laptop ? [] : translate(policy.handle(.device(o), at: now))
        case .tabletMode(let tablet):
            tabletMode = tablet  // what follows is the laptop rule's, after every input
            return []
        case .sensorStatus(let s):
            sensorHealth = s
            return [.status(s)]
        case .lockSwitch(let change): return lockSwitched(change, at: now)
        case .motion(let o):
            return motion(o, at: now)
        case .command(let action, let origin, let request):
            return commanded(action, from: origin, request: request, at: now)
        case .wall(let role):
            wallRole = role
            return []
        case .clipEnded:
            return clipEnded(at: now)
        case .content(let shape):
            return translate(policy.handle(.content(shape), at: now))
        case .localTime(let weekday, let minute):
            localTime = (weekday, minute)
            return powerTime(weekday: weekday, minute: minute)
        case .mqttState(let text):
            mqtt = text
            return []
        case .inputDevices(let devices, let problems):
            self.input = InputReport(devices: devices, problems: problems)
            return []
        case .status(let request):
            return translate(policy.advance(to: now)) + [
                .reply(request, ControlReply(ok: true, status: status(at: now)))
            ]
        case .displayTurned(let report, let failure): return displayTurned(report, failure: failure, at: now)
        case .displayProbed(let abilities, let report): return displayProbed(abilities, report, at: now)
        case .playing(let item, let title): return started(item, title: title)
        case .fileFailed(let path, let reason): return failed(path, reason: reason)
        case .clock(let text):
            return [.player(.overlay(.clock(text)))]
        case .reload(let configuration, let playlist, let relock, let request):
            relockAfter = relock
            return reload(configuration, playlist: playlist, request: request, at: now)
        case .displayChecked(let state): return displayChecked(state, at: now)
        case .outputsChanged: return phase == .playing ? [.reassertDisplay] : []
        case .playerLost: return playerLost(at: now)
        case .playerGaveUp(let reason): return [.end(failure: reason)]
        case .screenshot(let request): return [.screenshot(request)]
        case .message(let text): return [.player(.overlay(.message(text)))]
        case .sessionEnded(let why): return [.status("\(why): Upright ends with it"), .end(failure: nil)]
        case .stop: return [.end(failure: nil)]
        case .tick:
            return tick(at: now)
        }
    }

    /// A command from `origin`: a key, a button or a tap is also a person there; then it is
    /// dropped (an echo, a tap mid-turn), sent to the wall's leader, or carried out.
    private mutating func commanded(_ action: Action, from origin: Origin, request: RequestID?, at now: Double)
        -> [SessionEffect]
    {
        let person = [.hotkey, .button, .touch].contains(origin) && action != .presence ? sawPresence(at: now) : []
        if let drop = dropped(action, from: origin, at: now) { return person + [.status(drop)] }
        if let wall = wallDecision(action, from: origin, request: request) { return person + wall }
        return person + command(action, from: origin, request: request, at: now)
    }

    /// The status at `now`, with what needs the time: the lock's return and the last person.
    private func status(at now: Double) -> SessionStatus {
        var current = status
        current.relockIn = relockAt.map { max(0, ($0 - now) * 10).rounded() / 10 }
        if idleOff != nil { current.presenceAgo = lastPresence.map { (max(0, now - $0) * 10).rounded() / 10 } }
        return current
    }

    /// The rotation-lock switch or key: the lock's own command, unless it is already so.
    mutating func lockSwitched(_ change: LockSwitch, at now: Double) -> [SessionEffect] {
        let on = change == .toggle ? !policy.locked : change == .on
        guard on != policy.locked else { return [] }
        return command(on ? .lock : .unlock, from: .lockSwitch, request: nil, at: now)
    }

    /// An item started: its title on the status line, and its failure forgotten.
    mutating func started(_ item: String, title: String) -> [SessionEffect] {
        playing = item
        failures.removeAll { $0.item == item }
        return [.player(.overlay(.title(title)))]
    }

    /// An item failed: kept (the latest ``failuresKept``) for the status, said, and the display
    /// looked at (a failure may be its going away).
    mutating func failed(_ path: String, reason: String) -> [SessionEffect] {
        failures.removeAll { $0.item == path }
        failures.append(ItemFailure(item: path, reason: reason))
        if failures.count > Self.failuresKept { failures.removeFirst() }
        return [.status("cannot play \(path): \(reason); going on with the playlist")] + lookAtTheDisplay()
    }

    // MARK: - Time

    private mutating func tick(at now: Double) -> [SessionEffect] {
        if let failure = waitedTooLong(at: now) { return [.end(failure: failure)] }
        var out =
            translate(policy.advance(to: now)) + checkPresence(at: now) + confirmLoss(at: now) + idleRule(at: now)
            + toastRule(at: now)
        if let at = relockAt, at <= now, !policy.locked {
            relockAt = nil
            let after = relockAfter.map { $0 == $0.rounded() ? "\(Int($0)) s" : "\($0) s" } ?? "its time"
            out.append(.status("the lock comes back: \(after) without a turn since it was unlocked"))
            out += command(.lock, from: .relock, request: nil, at: now)
        }
        if probeDue, now - lastProbe >= probeInterval {
            lastProbe = now
            out.append(.probeDisplay)
        }
        return out
    }

    // MARK: - Tablet mode

    /// After each input: the device became a laptop with the switch followed (the switch said so,
    /// or a scene that follows it came on top), so its readings are set aside and the sensor
    /// pauses; or it stopped being one, and they are taken up again (the sensor as the lock has it).
    private mutating func laptopRule(wasLaptop: Bool, switched: Bool, at now: Double) -> [SessionEffect] {
        guard laptop != wasLaptop else { return [] }
        let scene = policy.topScene
        if laptop {
            let why =
                switched
                ? "the device is a laptop: auto-rotation off until it is a tablet again"
                : "the scene '\(scene)' follows the tablet-mode switch, and the device is a laptop: auto-rotation off"
            return [.status(why), .sensorLock(true)] + translate(policy.handle(.device(.unknown), at: now))
        }
        let why =
            switched
            ? "the device is a tablet: auto-rotation on"
            : "the scene '\(scene)' does not follow the tablet-mode switch: auto-rotation on"
        return [.status(why), .sensorLock(policy.locked)]
    }

    /// The tablet-mode switch in words, for the status; `nil` when it said nothing.
    var tabletModeText: String? {
        guard let tabletMode else { return nil }
        if tabletMode { return "tablet" }
        if followingTabletMode { return "laptop: auto-rotation off" }
        if sceneFollowsTabletMode == false {
            return "laptop (not followed in the scene '\(policy.topScene)')"
        }
        return "laptop (not followed: [sensor] tablet_mode = \"ignore\")"
    }

    // MARK: - The lock that comes back

    /// After each input: an unlock by hand (not the lock's own return) starts the wait, a turn
    /// while unlocked starts it again, and a lock ends it.
    private mutating func relockRule(turned: Bool, wasLocked: Bool, at now: Double) {
        if policy.locked {
            relockAt = nil
        } else if let after = relockAfter, wasLocked || (turned && relockAt != nil) {
            relockAt = now + after
        } else if relockAfter == nil {
            relockAt = nil
        }
    }

    // MARK: - The screen's power plan

    /// The plan at this minute: the screen switched off (playback paused) when its window closes,
    /// on (playback resumed) when it opens; the status says when it changes next.
    private mutating func powerTime(weekday: Int, minute: Int) -> [SessionEffect] {
        guard let plan = powerPlan else { return [] }
        planOn = !powerPlanFollowed || plan.isActive(weekday: weekday, minute: minute)
        screenNextChange = plan.minutesToNextChange(weekday: weekday, minute: minute).map {
            Schedule.text((minute + $0) % 1440)
        }
        return applyScreen(because: "power plan")
    }

    /// `power-plan on|off`: the plan followed again (the screen as the plan has it now), or set
    /// aside with the screen on until it is followed again.
    private mutating func followPowerPlan(_ on: Bool, request: RequestID?) -> [SessionEffect] {
        guard powerPlan != nil else {
            return reply(request, .refused("there is no power plan to follow ([screen] on and off)"))
        }
        guard on != powerPlanFollowed else {
            return reply(
                request, ControlReply(ok: true, message: "the power plan is \(on ? "followed" : "set aside") already"))
        }
        powerPlanFollowed = on
        var out: [SessionEffect] = [
            .status(on ? "power plan followed again" : "power plan set aside: the screen stays on")
        ]
        if let t = localTime {
            out += powerTime(weekday: t.weekday, minute: t.minute)
        } else if !on {
            planOn = true
            out += applyScreen(because: "power plan")
        }
        return out
            + reply(request, ControlReply(ok: true, message: on ? "power plan followed" : "power plan set aside"))
    }

    // MARK: - Presses

    /// Why a press is dropped, or `nil` to carry it out.
    private mutating func dropped(_ action: Action, from origin: Origin, at now: Double) -> String? {
        if origin == .touch, policy.transition != nil {
            return "\(action.name) (a tap) is dropped: input is suspended while the interface turns"
        }
        guard origin == .hotkey || origin == .button else { return nil }
        // Each press pairs with one press from the other way, the oldest within the window: two
        // quick presses that each arrive both ways count twice, however the ways interleave.
        var waiting = (unpaired[action] ?? []).filter { now - $0.at < pressEcho }
        defer { unpaired[action] = waiting }
        guard let i = waiting.firstIndex(where: { $0.origin != origin }) else {
            waiting.append((origin, now))
            return nil
        }
        let first = waiting.remove(at: i)
        return "\(action.name) from \(origin.rawValue) \(((now - first.at) * 1000).rounded()) ms after the same "
            + "from \(first.origin.rawValue) is taken for the same press, and dropped"
    }

    // MARK: - Clips

    /// A wall's screen: a step or a clip asked of a follower is refused with its leader's name; a
    /// clip asked of another goes to the whole group first (its copy comes back from ``Origin/group``
    /// and plays as any clip). `nil`: not the wall's to decide.
    private func wallDecision(_ action: Action, from origin: Origin, request: RequestID?) -> [SessionEffect]? {
        guard let role = wallRole, origin != .group else { return nil }
        switch (action, role) {
        case (.next, .follows(let leader)), (.previous, .follows(let leader)):
            let why = "this screen follows \(leader), the leader of its wall: step on \(leader)"
            return [.status("\(action.name): \(why)")] + reply(request, .refused(why))
        case (.play(let name), _) where policy.configuration.scenes[name]?.clip == nil:
            return nil  // refused as any unknown clip
        case (.play(let name), .follows(let leader)):
            let why = "this screen follows \(leader), the leader of its wall: play it on \(leader)"
            return [.status("play \(name): \(why)")] + reply(request, .refused(why))
        case (.play(let name), .member):
            return [.shareClip(name, request: request)]
        default: return nil
        }
    }

    private mutating func play(_ name: String, request: RequestID?, at now: Double) -> [SessionEffect] {
        guard let file = policy.configuration.scenes[name]?.clip else {
            let clips = policy.configuration.scenes.values.filter { $0.clip != nil }.map(\.name).sorted()
            let reason =
                "no clip scene named '\(name)'; "
                + (clips.isEmpty
                    ? "the configuration has none ([scenes.NAME] clip = \"FILE\")"
                    : "the configuration has: \(clips.joined(separator: ", "))")
            return [.status("play: \(reason)")] + reply(request, .refused(reason))
        }
        if let playing = clip {
            guard policy.configuration.clipPresses == .queue else {
                return [.status("play \(name): ignored, the clip '\(playing)' plays (clip_presses = \"ignore\")")]
                    + reply(request, .refused("the clip '\(playing)' plays; presses meanwhile are ignored"))
            }
            clipQueue.append(name)
            return [.status("play \(name): queued behind the clip '\(playing)'")]
                + reply(request, ControlReply(ok: true, queued: true, message: "plays after the clip '\(playing)'"))
        }
        clip = name
        let before = policy
        let outputs = policy.handle(.command(.play(name)), at: now)
        return translate(outputs) + [.player(.playClip(file))]
            + reply(request, outcome(of: .play(name), outputs: outputs, before: before))
    }

    private mutating func clipEnded(at now: Double) -> [SessionEffect] {
        guard let name = clip else { return [] }
        clip = nil
        var out = translate(policy.handle(.command(.clipEnded(name)), at: now))
        if !clipQueue.isEmpty { out += play(clipQueue.removeFirst(), request: nil, at: now) }
        return out
    }

    // MARK: - Commands

    /// A command waits for the motion fallback when the lock is on or being switched on, except one
    /// that switches it off (the sensor then reads the device itself).
    private func needsMotion(_ action: Action) -> Bool {
        guard action.policyCommand != nil else { return false }
        switch action {
        case .unlock: return false
        case .lock: return true
        case .toggleLock: return !policy.locked
        default: return policy.locked || laptop
        }
    }

    private mutating func command(_ action: Action, from origin: Origin, request: RequestID?, at now: Double)
        -> [SessionEffect]
    {
        if measuring {
            held.append((action, origin, request))
            return []
        }
        if needsMotion(action) {
            measuring = true
            held.append((action, origin, request))
            return [.measureMotion]
        }
        return carryOut(action, request: request, at: now)
    }

    private mutating func motion(_ o: DeviceOrientation, at now: Double) -> [SessionEffect] {
        var out = o == .unknown ? translate(policy.advance(to: now)) : translate(policy.handle(.motion(o), at: now))
        guard measuring else { return out }
        measuring = false
        let waiting = held
        held = []
        for (action, _, request) in waiting { out += carryOut(action, request: request, at: now) }
        return out
    }

    private mutating func carryOut(_ action: Action, request: RequestID?, at now: Double) -> [SessionEffect] {
        switch action {
        case .next, .previous:
            return [.playlist(action == .next ? .next : .previous, request: request)]
        case .play(let name):
            return play(name, request: request, at: now)
        case .notify(let name):
            return [.notify(name, request: request)]
        case .brightness(let v):
            return [.brightness(v, request: request)]
        case .volume(let v):
            return [.player(.volume(v))] + reply(request, ControlReply(ok: true, message: "volume \(v)"))
        case .mute(let on):
            return [.player(.mute(on))] + reply(request, ControlReply(ok: true, message: on ? "muted" : "sound on"))
        case .toast(let words):
            return toast(words, at: now)
                + reply(request, ControlReply(ok: true, message: "shown for \(Self.seconds(toastSeconds))"))
        case .powerPlan(let on):
            return followPowerPlan(on, request: request)
        case .presence:
            let woke = idle
            return sawPresence(at: now)
                + reply(
                    request, ControlReply(ok: true, message: woke ? "presence: the screen wakes" : "presence noted"))
        case .rotate:
            guard let target = nextClockwise() else {
                let reason = "the scene '\(policy.topScene)' allows no other orientation to turn to"
                return [.status("rotate: \(reason)")] + reply(request, .refused(reason))
            }
            return carryOut(.rotateTo(target), request: request, at: now)
        default:
            break
        }
        guard let command = action.policyCommand else { return [] }
        var out: [SessionEffect] = []
        switch command {
        case .lock, .unlock, .toggleLock:
            out.append(.sensorLock(command == .lock || (command == .toggleLock && !policy.locked) || laptop))
        default: break
        }
        let before = policy
        let outputs = policy.handle(.command(command), at: now)
        out += translate(outputs)
        return out + reply(request, outcome(of: command, outputs: outputs, before: before))
    }

    /// The next orientation clockwise that the scene on top allows.
    private func nextClockwise() -> InterfaceOrientation? {
        let mask = policy.effectiveMask
        return (1...3).compactMap { InterfaceOrientation(angle: policy.interface.angle + 90 * $0) }
            .first { mask.allows($0) }
    }

    /// What a command led to, for its reply.
    private func outcome(of command: PolicyCommand, outputs: [PolicyOutput], before: OrientationPolicy)
        -> ControlReply
    {
        if policy.queued.count > before.queued.count {
            return ControlReply(
                ok: true, queued: true,
                message: "\(command.name) waits for the rotation under way to end; it is carried out then")
        }
        let decision = outputs.lazy.compactMap { output -> RotationDecision? in
            if case .decision(let d) = output, d.cause == command.name { return d }
            return nil
        }.first
        guard let decision else { return ControlReply(ok: true) }
        let record = decision.record(time: decision.millisecondsText)
        guard decision.kind == .keep, decision.reason == .rejected || decision.reason == .unsupported else {
            return ControlReply(ok: true, decision: record)
        }
        var reply = ControlReply.refused(Self.refusal(of: command, by: before))
        reply.decision = record
        return reply
    }

    /// Why the policy as it was (`before`) refused `command`, in words.
    static func refusal(of command: PolicyCommand, by before: OrientationPolicy) -> String {
        switch command {
        case .rotateTo(let o):
            return "the scene '\(before.topScene)' does not allow \(o.name); it allows \(before.effectiveMask)"
        case .push(let name), .present(let name), .play(let name):
            return "no scene named '\(name)'; the configuration has: "
                + before.configuration.scenes.keys.sorted().joined(separator: ", ")
        case .pop: return "there is no pushed scene to pop"
        case .clipEnded(let name): return "the clip scene '\(name)' is not open"
        case .dismiss: return "there is no modal scene to dismiss"
        case .acceptSuggestion: return "there is no rotate suggestion to accept"
        case .fullscreen: return "the scene on top ('\(before.topScene)') is modal: dismiss it first"
        case .lock, .unlock, .toggleLock: return "\(command.name) was refused"
        }
    }

    private func reply(_ request: RequestID?, _ reply: ControlReply) -> [SessionEffect] {
        request.map { [.reply($0, reply)] } ?? []
    }

    // MARK: - Reload

    private mutating func reload(
        _ configuration: PolicyConfiguration, playlist: [String]?, request: RequestID?, at now: Double
    ) -> [SessionEffect] {
        do {
            let outputs = try policy.reconfigure(configuration, at: now)
            let player: [SessionEffect] = playlist.map { [.player(.playlist($0))] } ?? []
            return translate(outputs) + player + reply(request, ControlReply(ok: true))
        } catch {
            return reply(request, .refused("the new configuration is refused, the old one goes on: \(error)"))
        }
    }

    // MARK: - The policy's outputs as effects

    /// Each policy output is logged, then carried out: a rotation turns the player, then the
    /// output; a keep sets the layout; the overlays follow the lock, transitions and suggestions.
    func translate(_ outputs: [PolicyOutput]) -> [SessionEffect] {
        var out: [SessionEffect] = []
        for o in outputs {
            out.append(.policy(o))
            switch o {
            case .decision(let d):
                // A clip fills the screen, as the full-screen scene does.
                let clipScene = policy.configuration.scenes[d.scene]?.clip != nil
                let layout = clipScene ? .fullscreen : PlayerLayout(scene: d.scene)
                if d.kind == .rotate {
                    out.append(
                        .player(.apply(d.interface, d.strategy, layout, panel: panelShows(d.strategy, d.interface))))
                    if display.canRotateOutput {
                        out.append(.turnOutput(d.strategy == .interface ? d.interface : .portrait))
                    }
                } else {
                    out.append(.player(.layout(layout)))
                }
                out.append(.player(.overlay(.locked(policy.locked))))
            case .willRotate:
                out.append(.player(.overlay(.hidden(true))))
            case .didRotate:
                out.append(.player(.overlay(.hidden(false))))
            case .suggestion(let s, _):
                out.append(.player(.overlay(.suggestion(s))))
            }
        }
        return out
    }
}
