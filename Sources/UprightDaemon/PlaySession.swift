public import Config
import Display
import Foundation
public import MPV
public import OrientationCore
import Player
import Sensors

/// The main job: the sensor and the lock → the policy → the player. Decisions are reported as
/// JSON lines (the dry run's format) through `log`; sensor status and faults through `status`.
/// Nothing here stops playback: a sensor fault leaves the interface where it is, in the launch
/// orientation when there never was a reading.
public actor PlaySession {
    private var policy: OrientationPolicy
    private let player: Player
    private let monitor: OrientationMonitor
    private let display: DisplayController
    private var displayAbilities = DisplayAbilities.none
    private var lastDisplayProbe = 0.0
    private var configuration: UprightConfiguration
    private let playlistOverride: [String]
    private let log: @Sendable (String) -> Void
    private let status: @Sendable (String) -> Void
    private let start = monotonicSeconds()
    private var clockMinute = -1
    private var pending: [PolicyOutput] = []
    private var draining = false
    private var sensorHealth = "starting"
    private var playing: String?
    private var tasks: [Task<Void, Never>] = []

    /// Prepares everything; `extraMPV` options win over the configuration's (vo=null in tests);
    /// `environment` is where the display backend is looked for (the process's own by default).
    public init(
        configuration: UprightConfiguration, playlist: [String] = [], extraMPV: [(String, String)] = [],
        environment: [String: String]? = nil,
        log: @escaping @Sendable (String) -> Void, status: @escaping @Sendable (String) -> Void
    ) throws {
        self.configuration = configuration
        playlistOverride = playlist
        self.log = log
        self.status = status
        display = DisplayController(settings: configuration.displaySettings, environment: environment)
        // Until the display backend has answered, every rotation is the surface's.
        policy = try OrientationPolicy(
            configuration: configuration.policy, display: .none, locked: configuration.lock.locked)
        var settings = PlayerSettings()
        settings.playlist = playlist.isEmpty ? configuration.player.playlist : playlist
        settings.loop = configuration.player.loop
        settings.mpv = configuration.player.mpv
        settings.hotkeys = configuration.hotkeys
        player = try Player(settings: settings, extra: extraMPV)
        monitor = OrientationMonitor(
            sensor: configuration.sensorSettings,
            parameters: configuration.classifier, locked: configuration.lock.locked,
            lockSwitch: configuration.lock.evdev)
    }

    private var now: Double { monotonicSeconds() - start }

    /// The local time `now` as the status line shows it (`14:05`).
    static func clockText(_ now: time_t) -> String {
        var now = now
        var parts = tm()
        localtime_r(&now, &parts)
        return String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)
    }

    /// The player's mpv, for a renderer or a screenshot.
    public nonisolated var mpvHandle: MPVHandle { player.mpvHandle }

    /// Shows a message line over the video (`nil` clears it).
    public func showMessage(_ text: String?) async {
        try? await player.updateOverlays { $0.message = text }
    }

    /// Plays until `stop` yields (a signal, a duration) or mpv shuts down.
    public func run(until stop: AsyncStream<Void>) async throws {
        displayAbilities = await display.start()
        let d = await display.status
        status(
            "display: \(d.backend.rawValue) (\(d.reason))"
                + (d.output.map { ", output \($0)" } ?? "") + (d.problem.map { $0 == d.reason ? "" : "; \($0)" } ?? ""))
        policy = try OrientationPolicy(
            configuration: configuration.policy, display: displayAbilities, locked: configuration.lock.locked)
        try await player.start()
        await perform(policy.start(at: now))
        let monitorEvents = monitor.events, playerEvents = player.events
        // One stream says "done": a stop request, or mpv shutting down.
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        tasks.append(Task { for await e in monitorEvents { await self.sensor(e) } })
        tasks.append(
            Task {
                for await e in playerEvents {
                    if e == .shutdown { finish.yield() }
                    await self.playerEvent(e)
                }
                finish.yield()
            })
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(20))
                    await self.tick()
                }
            })
        tasks.append(
            Task {
                for await _ in stop { break }
                finish.yield()
            })
        for await _ in done { break }
        for t in tasks { t.cancel() }
        await monitor.stop()
        await display.restore()
        await player.quit()
    }

    private func tick() async {
        await perform(policy.advance(to: now))
        // The status line's clock, formatted and redrawn only when the minute changes (every time
        // zone's offset is whole minutes).
        let wall = time(nil)
        if Int(wall / 60) != clockMinute {
            clockMinute = Int(wall / 60)
            let text = Self.clockText(wall)
            try? await player.updateOverlays { $0.clock = text }
        }
        // After a display fault, ask the backend again every few seconds.
        if !displayAbilities.canRotateOutput, display.backend.kind != .none, now - lastDisplayProbe > 5 {
            lastDisplayProbe = now
            let abilities = await display.probe()
            if abilities != displayAbilities {
                displayAbilities = abilities
                status(
                    "display: \(display.backend.kind.rawValue) answers again; the interface may turn with the output")
                await perform(policy.handle(.display(abilities), at: now))
            }
        }
    }

    /// Turns the output for an interface-strategy decision (or back to the panel's portrait for a
    /// surface one); a failure falls back to the surface strategy and is retried later.
    private func turnOutput(for d: RotationDecision) async -> Bool {
        guard displayAbilities.canRotateOutput else { return true }
        let target = d.strategy == .interface ? d.interface : .portrait
        guard let failure = await display.apply(target) else { return true }
        status("display: \(failure); only the video surface turns until it answers again")
        displayAbilities.canRotateOutput = false
        lastDisplayProbe = now
        await perform(policy.handle(.display(displayAbilities), at: now))
        return false
    }

    private func sensor(_ e: MonitorEvent) async {
        switch e {
        case .orientation(let o, _):
            await perform(policy.handle(.device(o), at: now))
        case .lock(let on, let source):
            // Our own commands are already decided, and the configuration's state is the policy's
            // starting one (a late echo of it must not undo a command that came first).
            guard source != "command", source != "configuration", on != policy.locked else { return }
            await command(on ? .lock : .unlock)
        case .status(let s):
            sensorHealth = "\(s)"
            status("\(s)")
        case .switchFault(let message):
            status(message)
        }
    }

    private func playerEvent(_ e: PlayerEvent) async {
        switch e {
        case .hotkey(let action):
            switch action {
            case "fullscreen": await command(.fullscreen)
            case "lock": await command(.toggleLock)
            case "next": try? await player.next()
            case "previous": try? await player.previous()
            case "accept-suggestion": await command(.acceptSuggestion)
            case "rotate_to", "rotate-to":
                // A "rotate" button: the next orientation clockwise that the scene on top allows.
                let mask = policy.effectiveMask
                let next = (1...3).compactMap { InterfaceOrientation(angle: policy.interface.angle + 90 * $0) }
                    .first { mask.allows($0) }
                if let next {
                    await command(.rotateTo(next))
                } else {
                    status("rotate: the scene allows no other orientation")
                }
            default: status("no action named '\(action)' (a hotkey in the configuration)")
            }
        case .playing(let item):
            playing = item
            let title = player.mpvHandle.string("media-title") ?? item
            let shown = item == testPattern || item.hasPrefix("av://lavfi") ? "Test pattern" : title
            try? await player.updateOverlays { $0.title = shown }
        case .fileFailed(let path, let reason):
            status("cannot play \(path): \(reason); going on with the playlist")
        default:
            break
        }
    }

    /// Takes a new configuration (SIGHUP): the policy, the playlist and the transition apply at
    /// once, keeping the orientation, the lock and the scenes; sensor and display settings at the
    /// next start. Returns what could not be applied, in words; the old configuration stays when
    /// the new one is refused.
    @discardableResult
    public func reload(_ new: UprightConfiguration) async -> [String] {
        let outputs: [PolicyOutput]
        do {
            outputs = try policy.reconfigure(new.policy, at: now)
        } catch {
            return ["the new configuration is refused, the old one goes on: \(error)"]
        }
        var notes: [String] = []
        if new.sensor != configuration.sensor || new.lock.evdev != configuration.lock.evdev {
            notes.append("sensor and lock-switch settings take effect at the next start")
        }
        if new.display != configuration.display { notes.append("display settings take effect at the next start") }
        if new.hotkeys != configuration.hotkeys { notes.append("hotkeys take effect at the next start") }
        if playlistOverride.isEmpty, new.player.playlist != configuration.player.playlist {
            do { try await player.setPlaylist(new.player.playlist) } catch {
                notes.append("the new playlist: \(error)")
            }
        }
        configuration = new
        await perform(outputs)
        return notes
    }

    /// Answers one control-socket request line with one reply line (JSON); a bad request gets an
    /// error reply and changes nothing.
    public func control(_ line: String) async -> String {
        let request: ControlRequest
        switch ControlRequest.parse(line) {
        case .success(let r): request = r
        case .failure(let e): return errorReply(e.description)
        }
        switch request {
        case .status:
            return replyJSON(["ok": true, "status": await statusObject()])
        case .next:
            do { try await player.next() } catch { return errorReply("\(error)") }
        case .previous:
            do { try await player.previous() } catch { return errorReply("\(error)") }
        case .policy(let c):
            if case .push(let name) = c, configuration.policy.settings(of: name) == nil {
                return errorReply(
                    "no scene named '\(name)'; the configuration has: "
                        + configuration.policy.scenes.keys.sorted().joined(separator: ", "))
            }
            if c == .pop, policy.stack.count < 2 { return errorReply("there is no pushed scene to pop") }
            await command(c)
        }
        var reply: [String: Any] = ["ok": true]
        reply["decision"] = policy.lastDecision.map { $0.json as Any } ?? NSNull()
        return replyJSON(reply)
    }

    /// The session's state, as `upright ctl status` prints it.
    private func statusObject() async -> [String: Any] {
        var s: [String: Any] = [
            "device": policy.device.name, "locked": policy.locked, "interface": policy.interface.name,
            "strategy": policy.strategy.rawValue, "scenes": policy.stack.map(\.scene), "sensor": sensorHealth,
            "display": await display.status.json,
        ]
        s["last_decision"] = policy.lastDecision.map { $0.json as Any } ?? NSNull()
        s["suggestion"] = policy.suggestion.map { $0.name as Any } ?? NSNull()
        s["playing"] = playing ?? NSNull()
        return s
    }

    /// Carries out a command, asking the motion fallback first when the lock is on (the full-screen
    /// hotkey then turns to the landscape the device is physically in).
    public func command(_ c: PolicyCommand) async {
        if policy.locked || c == .lock || c == .toggleLock, c != .unlock {
            let sensor = configuration.sensorSettings, parameters = configuration.classifier
            // A burst of blocking reads: on a dispatch thread, never on the cooperative pool.
            let reading = await withCheckedContinuation { c in
                DispatchQueue.global().async {
                    c.resume(returning: MotionFallback.measure(sensor, parameters: parameters))
                }
            }
            if reading.orientation != .unknown { await perform(policy.handle(.motion(reading.orientation), at: now)) }
        }
        switch c {
        case .lock, .unlock, .toggleLock:
            let on = c == .lock || (c == .toggleLock && !policy.locked)
            await monitor.setLocked(on)
        default: break
        }
        await perform(policy.handle(.command(c), at: now))
    }

    /// Carries out the policy's outputs strictly in order. The actor is re-entered at every await
    /// (the ticker, the sensor, a command), so outputs that arrive while others are carried out
    /// wait in `pending`: a transition's end can never be shown before its start.
    private func perform(_ outputs: [PolicyOutput]) async {
        pending += outputs
        guard !draining else { return }
        draining = true
        while !pending.isEmpty {
            let o = pending.removeFirst()
            switch o {
            case .decision(let d):
                log(d.jsonLine(time: String(format: "%.3f", d.t)))
                let layout: PlayerLayout = d.scene == Scene.fullscreen ? .fullscreen : .inline
                if d.kind == .rotate {
                    // The player first, then the output: with some video outputs (wlshm, x11) mpv
                    // 0.35 takes new margins only at its next resize, which the output's turn brings.
                    try? await player.apply(d.interface, strategy: d.strategy, layout: layout)
                    guard await turnOutput(for: d) else { continue }  // the fallback decided again
                } else {
                    try? await player.setLayout(layout)
                }
                let locked = policy.locked
                try? await player.updateOverlays { $0.locked = locked }
            case .willRotate:
                try? await player.setOverlaysHidden(true)
            case .didRotate:
                try? await player.setOverlaysHidden(false)
            case .suggestion(let s, _):
                try? await player.updateOverlays { $0.suggestion = s }
            }
        }
        draining = false
    }
}
