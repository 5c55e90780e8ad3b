import Blocking
import Display
import Foundation
import Input
import Logging
import OrientationCore
import Playback
import Player
import Sensors
import Session
import Systemd

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
    /// `screen.cec`: the TV switched over HDMI-CEC with the power plan.
    let cec: String
    let sensor: SensorSettings
    let classifier: OrientationClassifier.Parameters
    let log: @Sendable (RotationDecision) -> Void
    let logger: Logger
    let feed: AsyncStream<PlaySession.Event>.Continuation

    /// Carries the core's effects out strictly in order, and returns the replies they made. A
    /// result the core must see at once (a turn of the output, a probe of the display) goes back
    /// to it, and its effects follow in turn.
    func perform(_ effects: [SessionEffect], core: inout SessionCore, now: @Sendable () -> Double) async
        -> [(RequestID, ControlReply)]
    {
        var replies: [(RequestID, ControlReply)] = []
        var queue = effects[...]
        while let effect = queue.popFirst() {
            switch effect {
            case .policy(.decision(let d)):
                log(d)
                metrics.decision(d)
            case .policy(.willRotate(let t)):
                metrics.transition(t)
            case .policy:
                break
            case .player(let p):
                await perform(p)
            case .turnOutput(let interface):
                let start = ContinuousClock.now
                let failure = await display.apply(interface)
                metrics.applied(in: start.duration(to: .now), failed: failure != nil)
                let report = await display.status.report
                queue += core.handle(.displayTurned(report, failure: failure?.description), at: now())
            case .probeDisplay:
                let abilities = await display.probe()
                let report = await display.status.report
                queue += core.handle(.displayProbed(abilities, report), at: now())
            case .sensorLock(let on):
                await monitor.setLocked(on)
            case .measureMotion:
                measureMotion()
            case .playlist(let step, let request):
                let reply = await stepPlaylist(step)
                if let request { replies.append((request, reply)) }
            case .reply(let request, let reply):
                replies.append((request, reply))
            case .status(let line):
                logger.notice("\(line)")
            case .screenPower(let on):
                if let failure = await display.setPower(on) { logger.warning("screen power: \(failure)") }
                switch await ScreenCEC.set(on, choice: cec) {
                case .success(let done): logger.notice("\(done)")
                case .failure(let failure): logger.warning("screen power: \(failure)")
                case nil: break
                }
            }
        }
        return replies
    }

    private func perform(_ effect: PlayerEffect) async {
        switch effect {
        case .apply(let interface, let strategy, let layout):
            await player.apply(interface, strategy: strategy, layout: layout)
        case .layout(let layout):
            await player.setLayout(layout)
        case .overlay(.hidden(let hidden)):
            await player.setOverlaysHidden(hidden)
        case .pause(let paused):
            await player.setPaused(paused)
        case .playClip(let file):
            await player.playClip(file)
        case .overlay(let change):
            await player.updateOverlays { content in
                switch change {
                case .locked(let on): content.locked = on
                case .suggestion(let s): content.suggestion = s
                case .title(let t): content.title = t
                case .clock(let c): content.clock = c
                case .hidden: break
                }
            }
        }
    }

    /// The motion fallback's burst of reads, off the cooperative pool; its answer is an input.
    private func measureMotion() {
        let (sensor, parameters, feed) = (sensor, classifier, feed)
        Task {
            let reading = await Blocking.run { MotionFallback.measure(sensor, parameters: parameters) }
            feed.yield(.input(.motion(reading.orientation)))
        }
    }

    private func stepPlaylist(_ step: PlaylistStep) async -> ControlReply {
        let playing = step == .next ? await player.next() : await player.previous()
        return ControlReply(ok: true, playing: playing)
    }

    /// Starts the tasks that turn the sensor, the player, the clock and `stop` into inputs.
    func startSources<C: Clock>(stop: AsyncStream<Void>, clock: C) -> [Task<Void, Never>]
    where C.Duration == Duration {
        let (monitorEvents, playerEvents) = (monitor.events, player.events)
        return [
            Task {
                for await e in monitorEvents {
                    switch e {
                    case .orientation(let o, _):
                        metrics.device(o)
                        feed.yield(.input(.device(o)))
                    case .lock(let on, .lockSwitch): feed.yield(.input(.lockSwitch(on)))
                    case .lock: break  // the session's own commands and the configuration: already decided
                    case .status(let s):
                        metrics.sensor(s)
                        feed.yield(.input(.sensorStatus("\(s)")))
                    }
                }
            },
            Task { await readInput() },
            Task {
                var ready = false  // READY=1 once the first item plays (or nothing is left to play)
                for await e in playerEvents {
                    switch e {
                    case .hotkey(let action): feed.yield(.input(.command(action, from: .hotkey)))
                    case .tap(let action): feed.yield(.input(.command(action, from: .touch)))
                    case .clipEnded: feed.yield(.input(.clipEnded))
                    case .shape(let shape): feed.yield(.input(.content(shape)))
                    case .playing(let item):
                        let title = await player.title(of: item)
                        logger.info("playing \(item)")
                        metrics.playing(item)
                        feed.yield(.input(.playing(item: item, title: title)))
                        if ready {
                            ServiceManager.status("playing \(title)")
                        } else {
                            ServiceManager.ready(status: "playing \(title)")
                        }
                        ready = true
                    case .fileFailed(let path, let reason):
                        metrics.fileFailed()
                        feed.yield(.input(.fileFailed(path: path, reason: reason)))
                    case .problem(let text):
                        logger.warning("player: \(text)")
                    case .stalled(let item):
                        metrics.stalled()
                        logger.warning("playback stalled on \(item): loading it again")
                        ServiceManager.status("stalled on \(item); loading it again")
                    case .gaveUp(let reason):
                        ServiceManager.status("failed: \(reason)")
                        feed.yield(.fail(reason))
                    case .shutdown:
                        // Not asked for: its window was closed, or the compositor went away under it.
                        if !(await player.isShuttingDown) { feed.yield(.playerLost) }
                    case .idle:
                        metrics.playing(nil)
                        if !ready { ServiceManager.ready(status: "idle: nothing to play") }
                        ready = true
                    }
                }
                feed.yield(.stop)
            },
            Task {
                // The status line's clock, when the minute changes (every time zone's offset is whole minutes).
                while !Task.isCancelled {
                    let wall = time(nil)
                    feed.yield(.input(.clock(PlaySession.clockText(wall))))
                    let (weekday, minute, _) = LocalTime.now()
                    feed.yield(.input(.localTime(weekday: weekday, minute: minute)))
                    try? await clock.sleep(for: .seconds(Int(60 - wall % 60)), tolerance: nil)
                }
            },
            Task {
                for await _ in stop { break }
                feed.yield(.stop)
            },
        ]
    }

    /// The input hub's events: a bound key's press is its action, the lock switch goes to the
    /// monitor, and each device opened, closed or failing is logged and shown in the status.
    private func readInput() async {
        for await e in input.events {
            switch e {
            case .press(let code, let device):
                guard let action = inputActions[code] else { continue }
                logger.info("input: \(LinuxKeys.name(of: code)) on \(device): \(action.words.joined(separator: " "))")
                feed.yield(.input(.command(action, from: .button)))
                continue
            case .lock(let change, _):
                await monitor.lockSwitch(change)
                continue
            case .opened(let info): logger.notice("input: opened \(info)")
            case .closed(let path, let reason): logger.warning("input: closed \(path): \(reason)")
            case .problem(let path, let reason): logger.warning("input: cannot open \(path): \(reason)")
            }
            let devices = input.devices.map(\.description)
            let problems = input.problems.map { "\($0.path): \($0.reason)" }
            feed.yield(.input(.inputDevices(devices, problems: problems)))
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
