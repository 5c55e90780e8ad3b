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

/// Where the session's inputs come from: the wall, the sensor, the clock, the metrics, what started
/// Upright, the player and the input devices (each a child task of ``sources(stop:clock:)``).
extension SessionShell {
    /// A wall's tasks: the group's link, the player following it, this screen's role, the group's
    /// clips and turns.
    func wallSources<C: Clock>(_ sync: SyncLink, clock: C) -> [@Sendable () async -> Void]
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
    func readSensor() async {
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
    func tellTheTime<C: Clock>(clock: C) async where C.Duration == Duration {
        while !Task.isCancelled {
            let wall = time(nil)
            feed.yield(.clock(PlaySession.clockText(wall)))
            let (weekday, minute, _) = LocalTime.now()
            feed.yield(.localTime(weekday: weekday, minute: minute))
            try? await clock.sleep(for: .seconds(Int(60 - wall % 60)), tolerance: nil)
        }
    }

    /// mpv's decoder and its dropped frames, the remote items and the wall, for the metrics.
    func keepMetrics<C: Clock>(clock: C) async where C.Duration == Duration {
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
    func watchWhatStartedUs<C: Clock>(clock: C) async where C.Duration == Duration {
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
    func readPlayer() async {
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
            case .zone(let z):
                if let item = z.item { await remote.played(item) }
                proofOfPlay?.zone(z.region, shows: z.item, id: z.id)
                logger.info("SMIL: \(z.region): \(z.item ?? "nothing")\(z.id.map { " (\($0))" } ?? "")")
                if !ready { ServiceManager.ready(status: "playing a SMIL index") }
                ready = true
            case .presentation(let p):
                if let problem = p.problem {
                    if p.zones.isEmpty { feed.yield(.fileFailed(path: p.index, reason: problem)) }
                } else {
                    feed.yield(.playing(item: p.index, title: p.title ?? p.index))
                }
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
    func readInput() async {
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

extension SessionShell {
    /// A clip for every screen of the wall, this one too (its copy comes back from the group).
    func shareClip(_ name: String) -> ControlReply {
        sync?.share(clip: name)
        logger.notice("sync: every screen of the group plays \(name) in half a second")
        return ControlReply(ok: true, message: "every screen of the wall plays \(name) in half a second")
    }

    /// A named notification to the SMIL index playing (`notify NAME`), and the reply to its asker.
    func notify(_ name: String) async -> ControlReply {
        guard await player.notify(name) else {
            let why = "nothing waits for notify(\(name)): no SMIL index playing has it in a begin or an end"
            logger.notice("notify: \(why)")
            return .refused(why)
        }
        logger.info("notify(\(name)) told to the SMIL index")
        return ControlReply(ok: true, message: "notify(\(name)) told to the SMIL index")
    }
}
