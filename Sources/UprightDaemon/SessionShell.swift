import Blocking
import Config
import Confinement
import Control
import Display
import Files
import Foundation
import Health
import Input
import Logging
import Memory
import OrientationCore
import PlayLog
import Playback
import Player
import RemoteCache
import SMIL
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
    /// Where files are kept, for their free room in the status: "cache", "uploads" → a folder.
    var places: [String: String] = [:]
    /// The newest version the fleet publishes (`[update] source`); `nil` without a source.
    var update: UpdateCheck? = nil
    let log: @Sendable (RotationDecision) -> Void
    let logger: Logger
    let feed: AsyncStream<SessionInput>.Continuation
    /// The watches the core starts and stops: the display's presence and its outputs.
    let watches = Watches()
    /// The picture on screen, sampled for `upright health`; the kernel log's storage errors.
    let healthWatch = HealthWatch(), kernelLog = KernelLog(), kernelJournal = KernelJournal()
    /// When the session was made (`started` in the status).
    let startedAt = Date()

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
            let reply = shareClip(name)
            if let request { done.replies.append((request, reply)) }
        case .notify(let name, let request):
            let reply = await notify(name)
            if let request { done.replies.append((request, reply)) }
        case .brightness(let percent, let request):
            let reply = await setBrightness(percent)
            if let request { done.replies.append((request, reply)) }
        case .reply(let request, var reply):
            if reply.status != nil { await complete(&reply) }
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

    private func screenPower(_ on: Bool) async {
        if let failure = await display.setPower(on) { logger.warning("screen power: \(failure)") }
        switch await ScreenCEC.set(on, choice: cec) {
        case .success(let done): logger.notice("\(done)")
        case .failure(let failure): logger.warning("screen power: \(failure)")
        case nil: break
        }
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
            { [update, feed] in await update?.run { feed.yield(.tick) } },
            { await watchWhatStartedUs(clock: clock) },
            { await Allocator.giveBackFreedEveryMinute(on: clock) },
        ]
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
        let id = PlayerID.load(in: PlayerID.stateDirectory(environment))
        if let problem = id.problem { logger.warning("\(problem)") }
        let identity = PlayerIdentity(uuid: id.uuid, name: configuration.mqtt.device, version: ProgramVersion.text)
        let remote = RemoteItems(
            settings: configuration.cache, playlist: settings.playlist, options: settings.itemOptions,
            userAgent: identity.userAgent, logger: logger)
        self.init(
            player: try Player(
                settings: settings,
                extra: DisplayPresence.mpvOutputs(
                    environment: environment, configured: Set(extraMPV.map(\.0) + settings.mpv.keys)) + extraMPV,
                outside: PlayerOutside(
                    cached: { remote.file(for: $0) }, servesHTTP: { await StreamAnswer.answers($0) },
                    indexRefresh: { url, seconds in Task { await remote.setInterval(url, seconds) } }),
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
            places: ["cache": configuration.cache.resolvedDirectory(environment: environment)]
                .merging(configuration.uploadFolder.map { ["uploads": $0] } ?? [:]) { a, _ in a },
            update: configuration.update.source.isEmpty
                ? nil : UpdateCheck(configuration.update, userAgent: identity.userAgent, logger: logger),
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
        let runtime = uprightRuntimeDirectory(environment)
        var writable = [runtime, configuration.cache.resolvedDirectory(environment: environment), userCache]
        // Landlock grants only a folder there is when mpv's process confines itself: the runtime
        // directory (its screenshots, made at the first one; the control socket may be elsewhere)
        // and the user's cache are made first, else mpv could never write there.
        for folder in [runtime, userCache] {
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if let log = configuration.player.mpv["log-file"], log.hasPrefix("/") {
            writable.append((log as NSString).deletingLastPathComponent)
        }
        return .player(writable: writable)
    }
}
