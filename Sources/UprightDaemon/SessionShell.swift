import Blocking
import Config
import Confinement
import Control
import Display
import Files
import Foundation
import Input
import Logging
import Memory
import OrientationCore
import PlayLog
import Playback
import Player
import RemoteCache
import Sensors
import Session
import Settings
import Sync
import Systemd
import UprightMetrics
import WallLink
import Wire

/// What the session's effects act on, and where its inputs come from: the player, the display,
/// the sensor's monitor, and the one input stream they all feed.
struct SessionShell: Sendable {
    let player: Player
    let display: DisplayController
    let monitor: OrientationMonitor
    /// The input devices: bound keys and the rotation-lock switch.
    let input: InputHub
    /// The action of each bound input-device key.
    let inputActions: [UInt16: Action]
    let metrics: SessionMetrics
    /// What played, when `[proof_of_play]` names a file.
    let proofOfPlay: ProofOfPlayLog?
    /// `screen.cec`: the TV switched over HDMI-CEC with the power plan.
    let cec: String
    let sensor: SensorSettings
    let classifier: OrientationClassifier.Parameters
    /// The environment the display is found in, and mpv's video output (`nil`: mpv's choice).
    let environment: [String: String]
    let videoOutput: String?
    /// Upright owns the output (kiosk mode): changes made behind its back are undone.
    let kiosk: Bool
    /// The playlist's remote files in the cache.
    let remote: RemoteItems
    /// The wall's sync group (`[sync]`); `nil`: this screen plays on its own.
    var sync: SyncLink? = nil
    let log: @Sendable (RotationDecision) -> Void
    let logger: Logger
    let feed: AsyncStream<SessionInput>.Continuation
    /// The watches the core starts and stops: the display's presence and its outputs.
    let watches = Watches()

    /// What carrying effects out came to: the replies made, and the session's end (with its
    /// failure, if it failed).
    struct Performed {
        var replies: [(RequestID, ControlReply)] = []
        var end: String??
    }

    /// Carries the core's effects out strictly in order. A result the core must see at once (a
    /// turn of the output, a probe or a check of the display) goes back to it, and its effects
    /// follow in turn.
    func perform(_ effects: [SessionEffect], core: inout SessionCore, now: @Sendable () -> Double) async -> Performed {
        var done = Performed()
        var queue = effects[...]
        while let effect = queue.popFirst() {
            if let answer = await perform(effect, into: &done) { queue += core.handle(answer, at: now()) }
        }
        return done
    }

    /// Carries one effect out; returns the answer the core asked for, if any.
    private func perform(_ effect: SessionEffect, into done: inout Performed) async -> SessionInput? {
        switch effect {
        case .policy(.decision(let d)):
            log(d)
            metrics.decision(d)
        case .policy(.willRotate(let t)): metrics.transition(t)
        case .policy: break
        case .player(let p): if let failure = await perform(p) { done.end = failure }
        case .turnOutput(let interface):
            let start = ContinuousClock.now
            let failure = await display.apply(interface)
            metrics.applied(in: start.duration(to: .now), failed: failure != nil)
            return .displayTurned(await display.status.report, failure: failure?.description)
        case .probeDisplay:
            let abilities = await display.probe()
            return .displayProbed(abilities, await display.status.report)
        case .sensorLock(let on): await monitor.setPaused(on)
        case .measureMotion: measureMotion()
        case .playlist(let step, let request):
            proofOfPlay?.leave()
            // A wall's leader says the item stepped to, from its first frame on (the player's core).
            let playing = step == .next ? await player.next() : await player.previous()
            if let request { done.replies.append((request, ControlReply(ok: true, playing: playing))) }
        case .shareClip(let name, let request):
            // Every screen of the wall, this one too (its copy comes back from the group).
            sync?.share(clip: name)
            logger.notice("sync: every screen of the group plays \(name) in half a second")
            let reply = ControlReply(ok: true, message: "every screen of the wall plays \(name) in half a second")
            if let request { done.replies.append((request, reply)) }
        case .reply(let request, var reply):
            if reply.status != nil {
                reply.status?.decoder = await player.decoder()
                reply.status?.stream = await player.liveStream()
                reply.status?.next = await player.upcoming
                reply.status?.gravity = monitor.gravity.map { [$0.x, $0.y, $0.z].map { ($0 * 1000).rounded() / 1000 } }
                reply.status?.cache = await remote.status()
                reply.status?.sync = await syncReport()
            }
            done.replies.append((request, reply))
        case .status(let line): logger.notice("\(line)")
        case .warning(let line):
            logger.warning("\(line)")
            ServiceManager.status(line)
        case .screenPower(let on): await screenPower(on)
        case .checkDisplay: return .displayChecked(await presence())
        case .watchDisplay(let on): watches.display(on ? watchForDisplay() : nil)
        case .startDisplay(let redetect):
            let (abilities, report) = await startDisplay(redetect: redetect)
            return .displayProbed(abilities, report)
        case .reassertDisplay:
            let (abilities, note) = await display.reassert()
            if let note { logger.notice("\(note)") }
            return .displayProbed(abilities, await display.status.report)
        case .watchOutputs(let on): watches.outputs(on && kiosk ? watchOutputs() : nil)
        case .screenshot(let request): done.replies.append((request, await screenshot()))
        case .end(let failure): done.end = .some(failure)
        }
        return nil
    }

    /// The wall's group and how the player follows it; `nil` without a group.
    func syncReport() async -> SyncReport? {
        guard let sync else { return nil }
        var report = sync.report()
        if let f = await player.followStatus {
            report.errorMS = f.error.map(SyncLink.milliseconds)
            report.startMS = f.lastStart.map(SyncLink.milliseconds)
            (report.correction, report.speed) = (f.correction, f.speed)
            report.problem = f.problem ?? report.problem
        }
        return report
    }

    /// Finds the display backend (again, for a compositor that came back) and says what it can do.
    func startDisplay(redetect: Bool) async -> (DisplayAbilities, DisplayReport) {
        let abilities = redetect ? await display.redetect() : await display.start()
        let status = await display.status
        logger.notice("display: \(status.summary)")
        return (abilities, status.report)
    }

    private func screenPower(_ on: Bool) async {
        if let failure = await display.setPower(on) { logger.warning("screen power: \(failure)") }
        switch await ScreenCEC.set(on, choice: cec) {
        case .success(let done): logger.notice("\(done)")
        case .failure(let failure): logger.warning("screen power: \(failure)")
        case nil: break
        }
    }

    /// Carries a player effect out; returns why the session must end, if mpv cannot start again.
    private func perform(_ effect: PlayerEffect) async -> String?? {
        switch effect {
        case .apply(let interface, let strategy, let layout):
            await player.apply(interface, strategy: strategy, layout: layout)
        case .layout(let layout): await player.setLayout(layout)
        case .overlay(.hidden(let hidden)): await player.setOverlaysHidden(hidden)
        case .pause(let paused): await player.setPaused(paused)
        case .playClip(let file):
            proofOfPlay?.leave()
            await player.playClip(file)
        case .start: await player.start()
        case .leaveAlone: await player.leaveAlone()
        case .restart:
            metrics.restarted()
            do {
                try await player.restart()
                sayConfinement()
            } catch { return .some("mpv could not start again: \(error)") }
        case .playlist(let list):
            proofOfPlay?.leave()
            await remote.setPlaylist(list)
            await player.setPlaylist(list)
        case .overlay(let change):
            await player.updateOverlays { content in
                switch change {
                case .locked(let on): content.locked = on
                case .suggestion(let s): content.suggestion = s
                case .title(let t): content.title = t
                case .clock(let c): content.clock = c
                case .message(let m): content.message = m
                case .hidden: break
                }
            }
        }
        return nil
    }

    /// The motion fallback's burst of reads, off the cooperative pool; its answer is an input.
    private func measureMotion() {
        let (sensor, parameters, feed) = (sensor, classifier, feed)
        Task {
            let reading = await Blocking.run { MotionFallback.measure(sensor, parameters: parameters) }
            feed.yield(.motion(reading.orientation))
        }
    }

    /// The jobs that turn the sensor, the input devices, the player, the clock and `stop` into
    /// inputs: children of the session's task group, cancelled at its end.
    func sources<C: Clock>(stop: AsyncStream<Void>, clock: C) -> [@Sendable () async -> Void]
    where C.Duration == Duration {
        let wall = sync.map { wallSources($0, clock: clock) } ?? []
        return wall + [
            { await readSensor() },
            { await readInput() },
            { await readPlayer() },
            { await remote.run() },
            { [remote, player] in for await _ in remote.arrivals { await player.remoteChanged() } },
            { await tellTheTime(clock: clock) },
            {
                for await _ in stop { break }
                feed.yield(.stop)
            },
            { await keepMetrics(clock: clock) },
            { await watchWhatStartedUs(clock: clock) },
            { await Allocator.giveBackFreedEveryMinute(on: clock) },
        ]
    }

    /// A wall's tasks: the group's link, the player following it, this screen's role, the group's
    /// clips and turns.
    private func wallSources<C: Clock>(_ sync: SyncLink, clock: C) -> [@Sendable () async -> Void]
    where C.Duration == Duration {
        [
            { await sync.run() },
            { [player] in
                // A leader says its next item ahead; a follower of the clock has none to say.
                var announce: (@Sendable (ScheduleAnchor) -> Void)?
                if sync.settings.follow == .leader { announce = { anchor in sync.announce(anchor) } }
                await player.follow(
                    GroupLink(groupTime: { sync.groupTime() }, anchor: { sync.anchor() }, announce: announce))
            },
            { [feed] in
                // Whether this screen may step and play clips for the wall, or follows its leader.
                for await role in sync.roles { feed.yield(.wall(role)) }
            },
            { [feed, player] in
                // A clip of the group's: loaded at once, held at its first frame until its instant.
                for await (name, at) in sync.clips {
                    await player.startClip(at: at)
                    feed.yield(.command(.play(name), from: .group))
                }
            },
            { [feed] in
                // The wall's orientation, taken by every node at the instant the group said.
                for await (o, at) in sync.turns {
                    let wait = min(2, max(0, at - (sync.groupTime() ?? at)))
                    if wait > 0 { try? await clock.sleep(for: .seconds(wait), tolerance: nil) }
                    feed.yield(.device(o))
                }
            },
        ]
    }

    /// The sensor's readings and health; a wall's screen hands its readings to the group, which
    /// turns every screen at one instant.
    private func readSensor() async {
        for await e in monitor.events {
            switch e {
            case .orientation(let o, _):
                metrics.device(o)
                if let sync { sync.share(o) } else { feed.yield(.device(o)) }
            case .status(let s):
                metrics.sensor(s)
                feed.yield(.sensorStatus("\(s)"))
            }
        }
    }

    /// The status line's clock and the power plan's local time, when the minute changes (every
    /// time zone's offset is whole minutes).
    private func tellTheTime<C: Clock>(clock: C) async where C.Duration == Duration {
        while !Task.isCancelled {
            let wall = time(nil)
            feed.yield(.clock(PlaySession.clockText(wall)))
            let (weekday, minute, _) = LocalTime.now()
            feed.yield(.localTime(weekday: weekday, minute: minute))
            try? await clock.sleep(for: .seconds(Int(60 - wall % 60)), tolerance: nil)
        }
    }

    /// mpv's decoder and its dropped frames, the remote items and the wall, for the metrics.
    private func keepMetrics<C: Clock>(clock: C) async where C.Duration == Duration {
        while !Task.isCancelled {
            metrics.decoder(await player.decoder())
            metrics.remote(await remote.status())
            if let report = await syncReport() { metrics.sync(report) }
            try? await clock.sleep(for: .seconds(5), tolerance: nil)
        }
    }

    /// What Upright ends with, looked at every second: the compositor that started it (the
    /// packaged sessions: its session starts a new compositor, which starts a new Upright), and a
    /// live login session (greetd's, a unit's with `PAMName=`). A session already closing at the
    /// start (a process left behind on purpose) is not watched.
    private func watchWhatStartedUs<C: Clock>(clock: C) async where C.Duration == Duration {
        let environment = environment
        let compositor = await Blocking.run { StartingCompositor.find(environment: environment) }
        let session = LoginSession.current.flatMap { $0.hasEnded ? nil : $0 }
        guard compositor != nil || session != nil else { return }
        while !Task.isCancelled {
            try? await clock.sleep(for: .seconds(1), tolerance: nil)
            if let compositor, compositor.hasEnded() {
                feed.yield(
                    .sessionEnded("\(compositor.name) (pid \(compositor.pid)), which started Upright, has ended"))
                return
            }
            if let session, session.hasEnded {
                feed.yield(.sessionEnded("login session \(session.id) has ended"))
                return
            }
        }
    }

    /// The player's events as inputs; readiness for the service manager once the first item plays
    /// (or nothing is left to play).
    private func readPlayer() async {
        var ready = false
        for await e in player.events {
            switch e {
            case .hotkey(let action): feed.yield(.command(action, from: .hotkey))
            case .tap(let action): feed.yield(.command(action, from: .touch))
            case .clipEnded: feed.yield(.clipEnded)
            case .shape(let shape): feed.yield(.content(shape))
            case .playing(let item):
                await remote.played(item)
                proofOfPlay?.playing(item)
                let title = await player.title(of: item)
                logger.info("playing \(item)")
                metrics.playing(item)
                feed.yield(.playing(item: item, title: title))
                if ready {
                    ServiceManager.status("playing \(title)")
                } else {
                    ServiceManager.ready(status: "playing \(title)")
                }
                ready = true
            case .fileFailed(let path, let reason):
                proofOfPlay?.failed(path, reason: reason)
                metrics.fileFailed()
                feed.yield(.fileFailed(path: path, reason: reason))
            case .problem(let text): logger.warning("player: \(text)")
            case .stalled(let item):
                proofOfPlay?.stalled()
                metrics.stalled()
                logger.warning("playback stalled on \(item): loading it again")
                ServiceManager.status("stalled on \(item); loading it again")
            case .gaveUp(let reason):
                ServiceManager.status("failed: \(reason)")
                feed.yield(.playerGaveUp(reason))
            case .shutdown:
                proofOfPlay?.stopped()
                // Not asked for: its window was closed, or the compositor went away under it.
                if !(await player.isShuttingDown) { feed.yield(.playerLost) }
            case .idle:
                proofOfPlay?.idle()
                metrics.playing(nil)
                if !ready { ServiceManager.ready(status: "idle: nothing to play") }
                ready = true
            }
        }
        proofOfPlay?.stopped()
        feed.yield(.stop)
    }

    /// The input hub's events: a bound key's press is its action, the lock switch goes to the
    /// monitor, and each device opened, closed or failing is logged and shown in the status.
    private func readInput() async {
        for await e in input.events {
            switch e {
            case .press(let code, let device):
                guard let action = inputActions[code] else { continue }
                logger.info("input: \(LinuxKeys.name(of: code)) on \(device): \(action.words.joined(separator: " "))")
                feed.yield(.command(action, from: .button))
                continue
            case .lock(let change, _):
                switch change {
                case .set(let on): feed.yield(.lockSwitch(on ? .on : .off))
                case .toggle: feed.yield(.lockSwitch(.toggle))
                }
                continue
            case .tabletMode(let tablet, let device):
                logger.info("input: \(device) says the device is \(tablet ? "a tablet" : "a laptop")")
                feed.yield(.tabletMode(tablet))
                continue
            case .opened(let info): logger.notice("input: opened \(info)")
            case .closed(let path, let reason): logger.warning("input: closed \(path): \(reason)")
            case .problem(let path, let reason): logger.warning("input: cannot open \(path): \(reason)")
            }
            let devices = input.devices.map(\.description)
            let problems = input.problems.map { "\($0.path): \($0.reason)" }
            feed.yield(.inputDevices(devices, problems: problems))
        }
    }
}

extension PlaySession {
    /// The local time `now` as the status line shows it (`14:05`).
    static func clockText(_ now: time_t) -> String {
        var now = now
        var parts = tm()
        localtime_r(&now, &parts)
        return String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)
    }
}

extension SessionShell {
    /// Everything `configuration` asks for made (mpv's process starting meanwhile); `playlist`
    /// (the command line's) wins over the configuration's, `extraMPV` options over its own.
    init(
        configuration: UprightConfiguration, playlist: [String], extraMPV: [(String, String)],
        environment: [String: String], log: @escaping @Sendable (RotationDecision) -> Void, logger: Logger,
        feed: AsyncStream<SessionInput>.Continuation
    ) throws {
        var settings = configuration.player
        if !playlist.isEmpty { settings.playlist = playlist }
        settings.holdStarts = !configuration.sync.group.isEmpty
        let remote = RemoteItems(
            settings: configuration.cache, playlist: settings.playlist, options: settings.itemOptions, logger: logger)
        self.init(
            player: try Player(
                settings: settings,
                extra: DisplayPresence.mpvOutputs(
                    environment: environment, configured: Set(extraMPV.map(\.0) + settings.mpv.keys)) + extraMPV,
                outside: PlayerOutside(
                    cached: { remote.file(for: $0) }, servesHTTP: { await StreamAnswer.answers($0) }),
                confinement: settings.confine ? Self.mpvConfinement(configuration, environment: environment) : nil),
            display: DisplayController(
                settings: configuration.display, stateDirectory: uprightRuntimeDirectory(), environment: environment),
            monitor: OrientationMonitor(
                sensor: configuration.sensor, parameters: configuration.classifier, paused: configuration.lock.locked),
            input: InputHub(plan: configuration.inputPlan), inputActions: configuration.inputActions,
            metrics: SessionMetrics(items: configuration.metrics.items),
            proofOfPlay: ProofOfPlayLog(settings: configuration.proofOfPlay, logger: logger),
            cec: configuration.screenCEC, sensor: configuration.sensor, classifier: configuration.classifier,
            environment: environment, videoOutput: extraMPV.last { $0.0 == "vo" }?.1 ?? configuration.player.mpv["vo"],
            kiosk: configuration.display.kiosk, remote: remote, sync: try SyncLink.make(configuration, logger: logger),
            log: log, logger: logger, feed: feed)
    }

    /// What mpv's process may reach: it reads anything but devices, opens the player's devices, and
    /// writes only to Upright's runtime directory (screenshots), the remote items' cache, the
    /// user's cache (fontconfig's, Mesa's shaders) and the folder of an mpv `log-file`.
    static func mpvConfinement(_ configuration: UprightConfiguration, environment: [String: String])
        -> ConfinementPolicy
    {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let userCache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.cache"
        var writable = [
            uprightRuntimeDirectory(environment), configuration.cache.resolvedDirectory(environment: environment),
            userCache,
        ]
        if let log = configuration.player.mpv["log-file"], log.hasPrefix("/") {
            writable.append((log as NSString).deletingLastPathComponent)
        }
        return .player(writable: writable)
    }
}
