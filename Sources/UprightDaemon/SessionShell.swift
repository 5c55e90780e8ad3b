import Blocking
import Display
import Foundation
import OrientationCore
import Player
import Sensors
import Session

extension PlaySession {
    /// Carries the core's effects out strictly in order. A result the core must see at once (a turn
    /// of the output, a probe of the display) goes back to it, and its effects follow in turn.
    func perform(_ effects: [SessionEffect], core: inout SessionCore, now: () -> Double) async {
        var queue = effects[...]
        while let effect = queue.popFirst() {
            switch effect {
            case .policy(.decision(let d)):
                log(d)
            case .policy:
                break
            case .player(let p):
                await perform(p)
            case .turnOutput(let interface):
                let failure = await display.apply(interface)
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
                if let request { answer(request, reply) }
            case .reply(let request, let reply):
                answer(request, reply)
            case .status(let line):
                status(line)
            }
        }
    }

    private func perform(_ effect: PlayerEffect) async {
        switch effect {
        case .apply(let interface, let strategy, let layout):
            try? await player.apply(interface, strategy: strategy, layout: layout)
        case .layout(let layout):
            try? await player.setLayout(layout)
        case .overlay(.hidden(let hidden)):
            try? await player.setOverlaysHidden(hidden)
        case .overlay(let change):
            try? await player.updateOverlays { content in
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
        let (sensor, parameters, feed) = (configuration.sensor, configuration.classifier, feed)
        Task {
            let reading = await Blocking.run { MotionFallback.measure(sensor, parameters: parameters) }
            feed.yield(.input(.motion(reading.orientation)))
        }
    }

    private func stepPlaylist(_ step: PlaylistStep) async -> ControlReply {
        do {
            if step == .next { try await player.next() } else { try await player.previous() }
            return ControlReply(ok: true, playing: await player.currentItem)
        } catch {
            return .refused("\(step.rawValue): \(error)")
        }
    }

    /// Starts the tasks that turn the sensor, the player, the clock and `stop` into inputs.
    func startSources<C: Clock>(stop: AsyncStream<Void>, clock: C) -> [Task<Void, Never>]
    where C.Duration == Duration {
        let (feed, monitorEvents, playerEvents, status) = (feed, monitor.events, player.events, status)
        let player = player
        return [
            Task {
                for await e in monitorEvents {
                    switch e {
                    case .orientation(let o, _): feed.yield(.input(.device(o)))
                    case .lock(let on, .lockSwitch): feed.yield(.input(.lockSwitch(on)))
                    case .lock: break  // the session's own commands and the configuration: already decided
                    case .status(let s): feed.yield(.input(.sensorStatus("\(s)")))
                    case .switchFault(let message): status(message)
                    }
                }
            },
            Task {
                for await e in playerEvents {
                    switch e {
                    case .hotkey(let action): feed.yield(.input(.command(action, from: .hotkey)))
                    case .playing(let item):
                        feed.yield(.input(.playing(item: item, title: await player.title(of: item))))
                    case .fileFailed(let path, let reason): feed.yield(.input(.fileFailed(path: path, reason: reason)))
                    case .shutdown: feed.yield(.stop)
                    case .idle: break
                    }
                }
                feed.yield(.stop)
            },
            Task {
                // The status line's clock, when the minute changes (every time zone's offset is whole minutes).
                while !Task.isCancelled {
                    let wall = time(nil)
                    feed.yield(.input(.clock(Self.clockText(wall))))
                    try? await clock.sleep(for: .seconds(Int(60 - wall % 60)), tolerance: nil)
                }
            },
            Task {
                for await _ in stop { break }
                feed.yield(.stop)
            },
        ]
    }

    /// The local time `now` as the status line shows it (`14:05`).
    static func clockText(_ now: time_t) -> String {
        var now = now
        var parts = tm()
        localtime_r(&now, &parts)
        return String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)
    }
}
