import Blocking
public import Config
import Display
import Fleet
import Foundation
import Input
public import Logging
public import MPV
public import OrientationCore
import Player
import Sensors
public import Session
import Settings
import Systemd
public import UprightMetrics
public import Wire

/// The main job's shell: every source (the sensor and the lock, the player, control requests,
/// the display, the clock, time) feeds one input stream; one loop hands each input to
/// ``SessionCore`` and carries its effects out strictly in order (``SessionShell``). Decisions are
/// reported through `log` (the play log writes each as its JSON line on standard output), status
/// and faults through `logger`. Nothing here stops playback: a fault is reported, shown in the
/// status and retried.
public actor PlaySession {
    let shell: SessionShell
    private var configuration: UprightConfiguration
    private let playlistOverride: [String]
    private let inputs: AsyncStream<SessionInput>
    private let feed: AsyncStream<SessionInput>.Continuation
    private var replies: [RequestID: CheckedContinuation<ControlReply, Never>] = [:]
    private var lastRequest = 0
    /// The loop has ended: requests are refused at once instead of waiting for it.
    private var ended = false
    let statusFeed = StatusFeed()

    /// Prepares everything; `extraMPV` options win over the configuration's (vo=null in tests);
    /// `environment` is where the display backend is looked for (the process's own by default).
    public init(
        configuration: UprightConfiguration, playlist: [String] = [], extraMPV: [(String, String)] = [],
        environment: [String: String]? = nil,
        log: @escaping @Sendable (RotationDecision) -> Void, logger: Logger = Logger(label: "upright")
    ) throws {
        self.configuration = configuration
        playlistOverride = playlist
        let environment = environment ?? ProcessInfo.processInfo.environment
        (inputs, feed) = AsyncStream.makeStream(of: SessionInput.self)
        shell = try SessionShell(
            configuration: configuration, playlist: playlist, extraMPV: extraMPV, environment: environment, log: log,
            logger: logger, feed: feed)
    }

    /// The session's Prometheus metrics.
    public nonisolated var metrics: SessionMetrics { shell.metrics }

    /// The player's mpv, for a renderer or a screenshot.
    public nonisolated var mpvHandle: MPVHandle { shell.player.mpvHandle }

    /// Shows a message line over the video (`nil` clears it).
    public nonisolated func showMessage(_ text: String?) { feed.yield(.message(text)) }

    /// Plays until `stop` yields (a signal, a duration) or mpv shuts down.
    public func run(until stop: AsyncStream<Void>) async throws {
        try await run(until: stop, clock: ContinuousClock())
    }

    /// The same on `clock`, the time of every input. Every way out (the stop, mpv quitting, a
    /// start that fails) ends with mpv shut down and destroyed, so the process may exit.
    /// The sources (``SessionShell/sources(stop:clock:)``) run as children of one task group; at
    /// the end, what feeds them is stopped, then they are cancelled and waited for.
    func run<C: Clock>(until stop: AsyncStream<Void>, clock: C) async throws where C.Duration == Duration {
        shell.recordStart()
        let outcome: Result<Void, any Error> = await withDiscardingTaskGroup { sources in
            let outcome: Result<Void, any Error>
            do {
                try await loop(until: stop, clock: clock, sources: &sources)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await stopSources()
            sources.cancelAll()
            return outcome
        }
        await end()
        try outcome.get()
    }

    private func loop<C: Clock>(
        until stop: AsyncStream<Void>, clock: C, sources: inout DiscardingTaskGroup
    ) async throws where C.Duration == Duration {
        let origin = clock.now
        let now: @Sendable () -> Double = { origin.duration(to: clock.now).seconds }
        let presence = await shell.presence()
        var report = DisplayReport.none
        var abilities = DisplayAbilities(canRotateOutput: false, ownsOutput: configuration.display.kiosk)
        if case .waiting = presence {} else { (abilities, report) = await shell.startDisplay(redetect: false) }
        if case .missing(let why) = presence { report.problem = why }
        var core = try SessionCore(
            policy: configuration.policy, locked: configuration.lock.locked, display: abilities, report: report)
        core.powerPlan = configuration.screenPlan
        core.idleOff = configuration.screenIdleOff
        core.toastSeconds = configuration.screenToastSeconds
        core.relockAfter = configuration.lock.relockAfter?.seconds
        core.followsTabletMode = configuration.sensor.tabletMode == .auto
        core.natural = configuration.display.natural
        core.displayWait = configuration.display.wait?.seconds
        // A compositor that goes away is found by asking it, not by mpv (which may live on).
        core.presenceInterval = 2
        for job in shell.sources(stop: stop, clock: clock) { sources.addTask(operation: job) }
        sources.addTask { [statusFeed] in await statusFeed.run { await self.currentStatus() } }
        if let watch = shell.healthWatching(judge: { _ = await self.currentStatus() }) {
            sources.addTask(operation: watch)
        }
        var timer = DeadlineTimer(clock, origin: origin)
        defer { timer.cancel() }
        // mpv's process loaded libmpv while the display was found and the sources started; the
        // launch needs mpv started.
        try await shell.player.started()
        shell.sayConfinement()
        var effects = core.launch(presence: presence, at: now())
        var iterator = inputs.makeAsyncIterator()
        while true {
            let done = await shell.perform(effects, core: &core, now: now)
            for (id, reply) in done.replies { replies.removeValue(forKey: id)?.resume(returning: reply) }
            if let end = done.end {
                guard let failure = end else { return }
                throw SessionFailure(description: failure)
            }
            timer.schedule(core.nextDeadline) { [feed] in feed.yield(.tick) }
            guard let input = await iterator.next() else { return }
            if input == .tick { timer.fired() }
            statusFeed.changed()
            effects = core.handle(input, at: now())
        }
    }

    /// Stops what feeds the sources (the watches, the sensor, the input devices) and answers what
    /// waits.
    private func stopSources() async {
        ended = true
        shell.watches.stop()
        for (_, reply) in replies { reply.resume(returning: .refused("the session has ended")) }
        replies = [:]
        await shell.monitor.stop()
        shell.input.stop()
    }

    /// Puts the output back and shuts mpv down.
    private func end() async {
        await shell.display.restore()
        await close()
    }

    /// Shuts mpv down and waits for it (5 s at the most); for a session that never ran, too.
    public func close() async {
        if !(await shell.player.shutdown()) {
            shell.logger.error("mpv did not shut down within 5 s; exiting anyway")
        }
    }

    /// The MQTT connection's state, for `ctl status`.
    public nonisolated func noteMQTT(_ state: String) { feed.yield(.mqttState(state)) }

    /// Asks for an action and waits for what came of it.
    public func request(_ action: Action, from origin: Origin = .control) async -> ControlReply {
        await ask { .command(action, from: origin, request: $0) }
    }

    /// Takes a new configuration (SIGHUP): the policy, the playlist, the transition and the
    /// lock's return (`relock_after`) apply at once, keeping the orientation, the lock and the
    /// scenes; sensor and display settings at the next start. Returns what could not be applied,
    /// in words; the old configuration stays when the new one is refused.
    @discardableResult
    public func reload(_ new: UprightConfiguration) async -> [String] {
        let playlist = playlistOverride.isEmpty ? new.player.playlist : nil
        let answer = await ask {
            .reload(new.policy, playlist: playlist, relockAfter: new.lock.relockAfter?.seconds, request: $0)
        }
        if let refusal = answer.error { return [refusal] }
        let notes = configuration.restartNotes(for: new)
        configuration = new
        return notes
    }

    /// `input` with a new request id, waited for until the loop answers it.
    func ask(_ input: (RequestID) -> SessionInput) async -> ControlReply {
        guard !ended else { return .refused("the session has ended") }
        lastRequest += 1
        let id = lastRequest
        let event = input(id)
        return await withCheckedContinuation { reply in
            replies[id] = reply
            feed.yield(event)
        }
    }
}
