import Blocking
public import Config
import Display
import Foundation
import Input
public import Logging
public import MPV
public import OrientationCore
import Player
import Sensors
public import Session
import Systemd

/// The main job's shell: every source (the sensor and the lock, the player, control requests,
/// the clock, time) feeds one input stream; one loop hands each input to ``SessionCore`` and
/// carries its effects out strictly in order. Decisions are reported through `log` (the play log
/// writes each as its JSON line on standard output), status and faults through `logger`. Nothing
/// here stops playback: a fault is reported, shown in the status and retried.
public actor PlaySession {
    /// One item of the input stream: an input for the core, or the end of the session.
    enum Event: Sendable {
        case input(SessionInput)
        case stop
        /// The session cannot do its job: it ends, and `run` throws this reason.
        case fail(String)
        /// The compositor the session waited for answers now.
        case displayAppeared
        /// The outputs may have changed: plugged, enabled, turned by someone else.
        case outputsChanged
        /// mpv ended on its own: its window was closed, or the compositor went away under it.
        case playerLost
    }

    private let shell: SessionShell
    private var configuration: UprightConfiguration
    private let playlistOverride: [String]
    /// The environment the display is found in, and mpv's video output (`nil`: mpv's choice).
    private let environment: [String: String]
    private let videoOutput: String?
    private let events: AsyncStream<Event>
    private let feed: AsyncStream<Event>.Continuation
    private var replies: [RequestID: CheckedContinuation<ControlReply, Never>] = [:]
    private var lastRequest = 0
    /// The loop has ended: requests are refused at once instead of waiting for it.
    private var ended = false
    /// When mpv ended on its own lately: three times in a minute and the session gives up.
    private var losses: [ContinuousClock.Instant] = []
    /// mpv ended and waits for the display to come back before it starts again.
    private var playerLost = false
    /// The one watch of the outputs; a display found again gets a new one.
    private var outputWatch: Task<Void, Never>?
    /// Screenshots taken, for their temporary files' names.
    private var shots = 0

    /// Prepares everything; `extraMPV` options win over the configuration's (vo=null in tests);
    /// `environment` is where the display backend is looked for (the process's own by default).
    public init(
        configuration: UprightConfiguration, playlist: [String] = [], extraMPV: [(String, String)] = [],
        environment: [String: String]? = nil,
        log: @escaping @Sendable (RotationDecision) -> Void, logger: Logger = Logger(label: "upright")
    ) throws {
        self.configuration = configuration
        playlistOverride = playlist
        self.environment = environment ?? ProcessInfo.processInfo.environment
        videoOutput = extraMPV.last { $0.0 == "vo" }?.1 ?? configuration.player.mpv["vo"]
        (events, feed) = AsyncStream.makeStream(of: Event.self)
        var settings = configuration.player
        if !playlist.isEmpty { settings.playlist = playlist }
        shell = SessionShell(
            player: try Player(settings: settings, extra: extraMPV),
            display: DisplayController(
                settings: configuration.display, stateDirectory: uprightRuntimeDirectory(), environment: environment),
            monitor: OrientationMonitor(
                sensor: configuration.sensor, parameters: configuration.classifier, lock: configuration.lock),
            input: InputHub(plan: configuration.inputPlan), inputActions: configuration.inputActions,
            metrics: SessionMetrics(items: configuration.metrics.items), cec: configuration.screenCEC,
            sensor: configuration.sensor, classifier: configuration.classifier, log: log, logger: logger, feed: feed)
    }

    /// The session's Prometheus metrics.
    public nonisolated var metrics: SessionMetrics { shell.metrics }

    /// The player's mpv, for a renderer or a screenshot.
    public nonisolated var mpvHandle: MPVHandle { shell.player.mpvHandle }

    /// Shows a message line over the video (`nil` clears it).
    public func showMessage(_ text: String?) async {
        await shell.player.updateOverlays { $0.message = text }
    }

    /// Plays until `stop` yields (a signal, a duration) or mpv shuts down.
    public func run(until stop: AsyncStream<Void>) async throws {
        try await run(until: stop, clock: ContinuousClock())
    }

    /// The same on `clock`, the time of every input. Every way out (the stop, mpv quitting, a
    /// start that fails) ends with mpv shut down and destroyed, so the process may exit.
    func run<C: Clock>(until stop: AsyncStream<Void>, clock: C) async throws where C.Duration == Duration {
        var sources: [Task<Void, Never>] = []
        do {
            try await loop(until: stop, clock: clock, sources: &sources)
        } catch {
            await end(sources)
            throw error
        }
        await end(sources)
    }

    private func loop<C: Clock>(
        until stop: AsyncStream<Void>, clock: C, sources: inout [Task<Void, Never>]
    ) async throws where C.Duration == Duration {
        let origin = clock.now
        let now: @Sendable () -> Double = { origin.duration(to: clock.now).seconds }
        let presence = await presenceNow()
        var abilities = DisplayAbilities(canRotateOutput: false, ownsOutput: configuration.display.kiosk)
        var report = DisplayReport.none
        switch presence {
        case .waiting(let why):
            report.reason = why
            report.problem = why
            shell.logger.warning("display: \(why); the video starts when it answers")
            ServiceManager.status(why)
        case .present, .none:
            abilities = await shell.display.start()
            let d = await shell.display.status
            report = d.report
            shell.logger.notice("display: \(d.summary)")
        }
        if case .none(let why) = presence {
            report.problem = why
            shell.logger.error("\(why); exiting in \(waitText) unless one appears")
        }
        var core = try SessionCore(
            policy: configuration.policy, locked: configuration.lock.locked, display: abilities, report: report)
        core.powerPlan = configuration.screenPlan
        if case .waiting = presence {} else { await shell.player.start() }
        sources = shell.startSources(stop: stop, clock: clock)
        if presence != .present { sources.append(watchForDisplay(presence)) }
        if case .waiting = presence {} else { sources.append(watchOutputs()) }
        var timer = TickTimer(clock: clock, origin: origin, feed: feed)
        answer(await shell.perform(core.start(at: now()), core: &core, now: now))
        for await event in events {
            if case .fail(let reason) = event {
                timer.schedule(nil)
                throw SessionFailure(description: reason)
            }
            switch event {
            case .displayAppeared:
                // Found late, or back after it went away (then mpv starts again, as it was).
                let abilities = playerLost ? await shell.display.redetect() : await shell.display.start()
                let d = await shell.display.status
                shell.logger.notice("display: \(d.summary)")
                sources.append(watchOutputs())
                answer(
                    await shell.perform(
                        core.handle(.displayProbed(abilities, d.report), at: now()), core: &core, now: now))
                if playerLost {
                    shell.metrics.restarted()
                    try await shell.player.restart()
                } else {
                    await shell.player.start()
                }
                playerLost = false
                continue
            case .playerLost:
                try await lost(&sources, core: &core, now: now)
                continue
            case .outputsChanged:
                // In the loop, so that it never runs between a turn and its result.
                let (abilities, note) = await shell.display.reassert()
                if let note { shell.logger.notice("\(note)") }
                let report = await shell.display.status.report
                answer(
                    await shell.perform(
                        core.handle(.displayProbed(abilities, report), at: now()), core: &core, now: now))
                continue
            default: break
            }
            guard case .input(let input) = event else { break }
            if input == .tick { timer.fired() }
            answer(await shell.perform(core.handle(input, at: now()), core: &core, now: now))
            timer.schedule(core.nextDeadline)
        }
        timer.schedule(nil)
    }

    /// mpv ended on its own. With the display still there it starts again at once; with the
    /// display gone (the compositor died) the session waits for it as at a late start. Three
    /// times in a minute and the session fails: the process exits non-zero.
    private func lost(_ sources: inout [Task<Void, Never>], core: inout SessionCore, now: @Sendable () -> Double)
        async throws
    {
        let at = ContinuousClock.now
        losses = losses.filter { $0.duration(to: at) < .seconds(60) } + [at]
        guard losses.count < 3 else {
            throw SessionFailure(
                description: "mpv ended on its own 3 times within a minute; the last time its display went away")
        }
        let presence = await presenceNow()
        guard case .waiting(let why) = presence else {
            shell.logger.warning("mpv ended on its own (its window was closed?); starting it again")
            shell.metrics.restarted()
            try await shell.player.restart()
            return
        }
        playerLost = true
        outputWatch?.cancel()  // its backend's compositor is gone; a new watch comes with the new one
        shell.logger.warning("mpv ended: the display went away; \(why); the video starts again when it answers")
        ServiceManager.status(why)
        var report = await shell.display.status.report
        report.problem = why
        answer(
            await shell.perform(
                core.handle(
                    .displayProbed(
                        DisplayAbilities(canRotateOutput: false, ownsOutput: configuration.display.kiosk), report),
                    at: now()),
                core: &core, now: now))
        sources.append(watchForDisplay(presence))
    }

    /// Whether the display is there; its socket's connect may wait, so off the cooperative pool.
    private func presenceNow() async -> DisplayPresence {
        let (environment, videoOutput) = (environment, videoOutput)
        return await Blocking.run { DisplayPresence.check(environment: environment, videoOutput: videoOutput) }
    }

    private var waitText: String {
        configuration.display.wait.map { "\(Int($0.seconds)) s" } ?? "never (display.wait = 0)"
    }

    /// Until the display `presence` lacks appears, checked twice a second: the compositor named
    /// answers (the session then finds it and starts the video), or a DRM device shows up. After
    /// `[display] wait` the session fails, and the process exits non-zero for systemd to restart it.
    private func watchForDisplay(_ presence: DisplayPresence) -> Task<Void, Never> {
        let (environment, videoOutput, wait, feed) = (environment, videoOutput, configuration.display.wait, feed)
        let waiting: Bool = if case .waiting = presence { true } else { false }
        return Task {
            let start = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let now = await Blocking.run {
                    DisplayPresence.check(environment: environment, videoOutput: videoOutput)
                }
                if now == .present {
                    if waiting { feed.yield(.displayAppeared) }
                    return
                }
                if let wait, start.duration(to: .now) >= wait {
                    let why: String =
                        switch now {
                        case .waiting(let w), .none(let w): w
                        case .present: ""
                        }
                    feed.yield(.fail("\(why) (waited \(Int(wait.seconds)) s; display.wait sets how long)"))
                    return
                }
            }
        }
    }

    /// The backend's output changes, as events of the loop; in kiosk mode only (Upright owns the
    /// output): on a shared desktop nothing is turned back, and the helper-program backends would
    /// start a process a second for nothing.
    private func watchOutputs() -> Task<Void, Never> {
        let (display, feed, kiosk) = (shell.display, feed, configuration.display.kiosk)
        outputWatch?.cancel()  // the old backend's (a compositor that went away)
        let watch = Task {
            guard kiosk else { return }
            for await _ in await display.changes() { feed.yield(.outputsChanged) }
        }
        outputWatch = watch
        return watch
    }

    /// Stops the sources, answers what waits, puts the output back and shuts mpv down.
    private func end(_ sources: [Task<Void, Never>]) async {
        ended = true
        for task in sources { task.cancel() }
        for (_, reply) in replies { reply.resume(returning: .refused("the session has ended")) }
        replies = [:]
        await shell.monitor.stop()
        shell.input.stop()
        await shell.display.restore()
        await close()
    }

    /// Shuts mpv down and waits for it (5 s at the most); for a session that never ran, too.
    public func close() async {
        if !(await shell.player.shutdown()) {
            shell.logger.error("mpv did not shut down within 5 s; exiting anyway")
        }
    }

    /// A PNG of what the screen shows: mpv's window with the overlays where its video output can
    /// take one; else the compositor's screen where one can be taken (grim, on sway and wlroots
    /// compositors); else the current video frame, which mpv takes with no window at all.
    public func screenshot() async -> ControlReply {
        shots += 1
        let path = NSTemporaryDirectory() + "upright-screenshot-\(getpid())-\(shots).png"
        defer { unlink(path) }
        var source: String?
        if (try? await shell.player.screenshot(to: path, window: true)) != nil {
            source = "mpv's window"
        } else if let grim = await compositorScreenshot(to: path) {
            source = grim
        } else if (try? await shell.player.screenshot(to: path, window: false)) != nil {
            source = "the video frame"
        }
        guard let source, let png = FileManager.default.contents(atPath: path), !png.isEmpty else {
            return .refused("no screenshot could be taken: mpv has no frame yet and the compositor offers none")
        }
        var reply = ControlReply(ok: true)
        reply.screenshot = Screenshot(png: png.base64EncodedString(), source: source)
        return reply
    }

    /// The output's picture by grim, where the compositor offers screencopy (sway, wlroots).
    private func compositorScreenshot(to path: String) async -> String? {
        let status = await shell.display.status
        guard status.backend == .sway || status.backend == .wlroots, let output = status.output else { return nil }
        var extra: [String: String] = [:]
        for key in ["WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"] { extra[key] = environment[key] }
        let grim = HelperProgram(name: "grim", environment: extra)
        guard (try? await grim.run(["-o", output, path])) != nil else { return nil }
        return "the compositor's screen (grim, output \(output))"
    }

    /// The MQTT connection's state, for `ctl status`.
    public nonisolated func noteMQTT(_ state: String) { feed.yield(.input(.mqttState(state))) }

    /// Asks for an action and waits for what came of it.
    public func request(_ action: Action, from origin: Origin = .control) async -> ControlReply {
        await ask { .command(action, from: origin, request: $0) }
    }

    /// The session's state now.
    public func currentStatus() async -> SessionStatus? { await ask { .status(request: $0) }.status }

    /// Answers one control-socket request line with one reply line (JSON); a bad request gets an
    /// error reply and changes nothing.
    public func control(_ line: String) async -> String {
        switch ControlRequest.parse(line) {
        case .failure(let e): return ControlReply.refused(e.description).line
        case .success(.status): return await ask { .status(request: $0) }.line
        case .success(.screenshot): return await screenshot().line
        case .success(.action(let action)): return await request(action).line
        }
    }

    /// Takes a new configuration (SIGHUP): the policy, the playlist and the transition apply at
    /// once, keeping the orientation, the lock and the scenes; sensor and display settings at the
    /// next start. Returns what could not be applied, in words; the old configuration stays when
    /// the new one is refused.
    @discardableResult
    public func reload(_ new: UprightConfiguration) async -> [String] {
        let answer = await ask { .reload(new.policy, request: $0) }
        if let refusal = answer.error { return [refusal] }
        let notes = configuration.restartNotes(for: new)
        if playlistOverride.isEmpty, new.player.playlist != configuration.player.playlist {
            await shell.player.setPlaylist(new.player.playlist)
        }
        configuration = new
        return notes
    }

    private func ask(_ input: (RequestID) -> SessionInput) async -> ControlReply {
        guard !ended else { return .refused("the session has ended") }
        lastRequest += 1
        let id = lastRequest
        let event = Event.input(input(id))
        return await withCheckedContinuation { reply in
            replies[id] = reply
            feed.yield(event)
        }
    }

    private func answer(_ made: [(RequestID, ControlReply)]) {
        for (id, reply) in made { replies.removeValue(forKey: id)?.resume(returning: reply) }
    }
}

/// Why a session ended because it could not do its job (the process exits non-zero).
public struct SessionFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The one timer of the loop: a tick at the core's next deadline.
struct TickTimer<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let origin: C.Instant
    let feed: AsyncStream<PlaySession.Event>.Continuation
    private var deadline: Double?
    private var task: Task<Void, Never>?

    init(clock: C, origin: C.Instant, feed: AsyncStream<PlaySession.Event>.Continuation) {
        (self.clock, self.origin, self.feed) = (clock, origin, feed)
    }

    /// The tick came: the next deadline is scheduled anew, even when it is the same.
    mutating func fired() { deadline = nil }

    /// Ticks at `next` (seconds from the origin), in place of any tick scheduled before.
    mutating func schedule(_ next: Double?) {
        guard next != deadline else { return }
        task?.cancel()
        deadline = next
        guard let next else { return }
        let (clock, instant, feed) = (clock, origin.advanced(by: .seconds(next)), feed)
        task = Task {
            guard (try? await clock.sleep(until: instant, tolerance: nil)) != nil else { return }
            feed.yield(.input(.tick))
        }
    }
}
