import ArgumentParser
import CEC
import Config
import Control
import Display
import Foundation
import IIO
import Input
import Logging
import MPV
import OrientationCore
import Playback
import Player
import Sensors
import Session
import Settings
import TimeSync
import UnixSignals
import UprightDaemon
import Wire

/// The sensor commands' log (standard error, through the program's log handler).
private let log = Logger(label: "upright")

/// Where to read the sensor: the command line over the configuration over the defaults.
struct SensorOptions: ParsableArguments {
    @Option(help: "Configuration file (default: the one `upright play` reads, with its drop-ins).")
    var config: String?
    @Option(help: "Sensor URI: local:, ip:HOST[:PORT], replay:FILE.csv[?loop=1&speed=N], none.")
    var uri: String?
    @Option(help: "Accelerometer: auto, a device name or id, or an index.")
    var device: String?
    @Option(help: "Polling rate, Hz.")
    var rate: Double?
    @Option(help: "Mount matrix: auto, or \"a,b,c; d,e,f; g,h,i\" as in the hwdb.")
    var mountMatrix: String?

    /// The configuration `upright play` would read (`--config`, else the search order with its
    /// drop-ins), read once, and its sensor settings with the command line's overrides.
    func resolve() throws -> (SensorSettings, UprightConfiguration) {
        let configuration = try locateConfiguration(config)
        var s = configuration.sensor
        if let uri { s.uri = try parseSensorURI(uri) }
        if let device { s.device = device }
        if let rate {
            guard rate > 0, rate <= 1000 else { throw ValidationError("--rate must be above 0 and at most 1000 Hz") }
            s.rateHz = rate
        }
        if let mountMatrix { s.mountMatrix = mountMatrix }
        return (s, configuration)
    }
}

/// The error for a sensor that is absent from the start: these commands exist to read it.
func noSensor(_ status: SensorStatus) -> CLIFailure {
    CLIFailure("no sensor: \(status.message)")
}

/// Runs `body` over a sensor stream until it ends, `duration` passes, or SIGINT/SIGTERM; a
/// sensor absent from the start is an error (one lost later is waited for, as `play` does).
func consume(
    _ settings: SensorSettings, duration: Double?, orientations parameters: OrientationClassifier.Parameters? = nil,
    _ body: (SensorEvent, Double) -> Void
) async throws {
    let control = SensorControl()
    let stream =
        parameters.map { SensorSource.orientations(settings, parameters: $0, control: control) }
        ?? SensorSource.open(settings, control: control)
    let start = monotonicSeconds()
    let stopper = Task {
        await waitForStop(duration: duration)
        control.stop()
    }
    var first = true
    for await event in stream {
        if control.isStopped { break }
        if first, case .status(let s) = event, s.state == .absent {
            log.notice("\(s)")
            control.stop()
            stopper.cancel()
            throw noSensor(s)
        }
        first = false
        body(event, start)
    }
    control.stop()
    stopper.cancel()
}

/// `upright sensor`: orientation changes as they happen, like monitor-sensor.
struct SensorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensor", abstract: "Print the device orientation each time it changes, until interrupted.")

    @OptionGroup var sensor: SensorOptions
    @Flag(help: "Print JSON lines, as `upright replay` does (t in seconds since the start).")
    var json = false
    @Flag(help: "Also print every reading (m/s², device frame).")
    var raw = false
    @Option(help: "Stop after this many seconds.")
    var duration: Double?
    @Flag(help: "Measure once with the motion fallback (a 0.2 s burst, as while locked), print it and exit.")
    var motion = false
    @Option(
        help: "Rotation-lock switch: auto (every input device with SW_ROTATE_LOCK), none, or a device or pipe path.")
    var lockSwitch: String?
    @Flag(help: "Start with the rotation lock on.")
    var locked = false

    func run() async throws {
        let (settings, configuration) = try sensor.resolve()
        let parameters = configuration.classifier, lockConfig = configuration.lock
        if motion {
            let m = MotionFallback.measure(settings, parameters: parameters)
            writeLine(
                JSONLine.encode(
                    SensorRecord.Motion(
                        orientation: m.orientation, confidence: m.confidence, samples: m.samples, source: m.source,
                        elapsed: m.elapsed)))
            if m.samples == 0 {
                throw CLIFailure("no sensor: the motion fallback read no samples from \(settings.uri)")
            }
            return
        }
        if raw {
            try await runRaw(settings, parameters: parameters)
        } else {
            try await runMonitor(settings, parameters: parameters, lock: lockConfig)
        }
    }

    func show(_ change: OrientationClassifier.Change) {
        writeLine(
            json
                ? ReplayRun.jsonLine(change, explain: false)
                : "\(change.t.fixed(2)) s  orientation: \(change.orientation)  (\(change.why))")
    }

    /// Every reading, classified here.
    func runRaw(_ settings: SensorSettings, parameters: OrientationClassifier.Parameters) async throws {
        var classifier = OrientationClassifier(parameters: parameters)
        try await consume(settings, duration: duration) { event, start in
            switch event {
            case .status(let s): log.notice("\(s)")
            case .change: break
            case .sample(var s):
                s.t -= start
                writeLine(
                    json
                        ? JSONLine.encode(SensorRecord.Sample(t: s.t, x: s.x, y: s.y, z: s.z))
                        : "\(s.t.fixed(3)) s  x \(s.x.fixed(3))  y \(s.y.fixed(3))  z \(s.z.fixed(3)) m/s²")
                if let change = classifier.feed(s) { show(change) }
            }
        }
    }

    /// The lock switch's events pause and resume the monitor, and each change is shown. The lock's
    /// one owner here is this command (in `upright play` it is the session's core).
    private func forwardLock(_ input: InputHub, to monitor: OrientationMonitor, locked: Bool, since start: Double)
        -> Task<Void, Never>
    {
        let (json, writeLine) = (json, writeLine)
        @Sendable func show(_ on: Bool, _ source: LockSource) {
            let t = monotonicSeconds() - start
            writeLine(
                json
                    ? JSONLine.encode(SensorRecord.Lock(t: t, locked: on, source: source.rawValue))
                    : "\(t.fixed(2)) s  rotation lock \(on ? "on" : "off") (\(source.rawValue))")
        }
        show(locked, .configuration)
        return Task {
            var lock = RotationLockState(configured: locked)
            for await e in input.events {
                switch e {
                case .lock(let change, _):
                    guard lock.apply(change) else { continue }
                    await monitor.setPaused(lock.locked)
                    show(lock.locked, lock.source)
                case .problem(let path, let reason): log.warning("rotation-lock switch \(path): \(reason)")
                case .closed(let path, let reason): log.notice("rotation-lock switch \(path) closed: \(reason)")
                case .opened, .press, .tabletMode: break
                }
            }
        }
    }

    /// The changes only: the classifier runs on the sensor thread, and the lock applies.
    func runMonitor(
        _ settings: SensorSettings, parameters: OrientationClassifier.Parameters, lock lockConfig: LockSettings
    ) async throws {
        let lockSettings = LockSettings(
            locked: locked || lockConfig.locked, evdev: lockSwitch.map(LockSwitchSetting.init) ?? lockConfig.evdev)
        let monitor = OrientationMonitor(sensor: settings, parameters: parameters, paused: lockSettings.locked)
        let input = InputHub(plan: InputPlan(devices: [], lockSwitch: lockSettings.evdev))
        let start = monotonicSeconds()
        let forward = forwardLock(input, to: monitor, locked: lockSettings.locked, since: start)
        let stopper = Task {
            await waitForStop(duration: duration)
            await monitor.stop()
        }
        defer {
            input.stop()
            forward.cancel()
        }
        var read = false  // a reading came (or the lock hid them): absence after it is waited for
        for await event in monitor.events {
            let t = monotonicSeconds() - start
            switch event {
            case .status(let s):
                log.notice("\(s)")
                if !read, s.state == .absent {
                    stopper.cancel()
                    await monitor.stop()
                    throw noSensor(s)
                }
                if s.state == .reading || s.state == .paused { read = true }
            case .orientation(let o, let change):
                if var change {
                    change.t -= start
                    show(change)
                } else {
                    let why = await monitor.isPaused ? "the rotation lock is on" : "no readings from the sensor"
                    writeLine(
                        json
                            ? JSONLine.encode(SensorRecord.Orientation(t: t, orientation: o))
                            : "\(t.fixed(2)) s  orientation: \(o)  (\(why))")
                }
            }
        }
        stopper.cancel()
    }
}

/// Returns after `duration` seconds, or at SIGINT or SIGTERM (through `UnixSignals`).
func waitForStop(duration: Double?) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { break }
        }
        if let duration {
            group.addTask { try? await Task.sleep(for: .seconds(duration)) }
        }
        await group.next()
        group.cancelAll()
    }
}

/// `upright record`: a trace from the live sensor.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record the accelerometer to a trace file (CSV t,x,y,z), for replay and bug reports.")

    @OptionGroup var sensor: SensorOptions
    @Option(help: "The trace file to write.")
    var out: String
    @Option(help: "Stop after this many seconds (default: until interrupted).")
    var duration: Double?

    func run() async throws {
        let (settings, _) = try sensor.resolve()
        var samples: [GravitySample] = []
        try await consume(settings, duration: duration) { event, start in
            switch event {
            case .status(let s): log.notice("\(s)")
            case .sample(var s):
                s.t -= start
                samples.append(s)
            case .change: break
            }
        }
        if samples.isEmpty { throw CLIFailure("no samples were read from \(settings.uri); \(out) is not written") }
        do {
            try Trace(samples: samples).write(to: out)
        } catch {
            throw CLIFailure("cannot write the trace to \(out): \(error.localizedDescription)")
        }
        log.notice("wrote \(samples.count) samples to \(out)")
    }
}

/// `upright doctor`: what Upright finds, and every problem in plain words.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor", abstract: "List sensor contexts, devices, the mount matrix, lock switches and problems.")

    @OptionGroup var sensor: SensorOptions

    func run() async throws {
        let (settings, configuration) = try sensor.resolve()
        var problems: [String] = []
        print("libiio \(iioLibraryVersion), libmpv client API \(mpvVersionForDoctor())")
        print("configuration: \(configuration.source)")
        print("sensor URI: \(settings.uri)")
        switch settings.uri {
        case .replay(let spec):
            let exists = FileManager.default.fileExists(atPath: spec.path)
            print(exists ? "replay file: \(spec.path)" : "replay file: missing")
            if !exists { problems.append("the replay file \(spec.path) does not exist") }
        case .iio(let uri):
            if doctorContext(uri, local: settings.uri.isLocal, problems: &problems) {
                doctorAccelerometer(settings, configuration, problems: &problems)
            }
            let gravity = try? Accelerometer(settings: SensorSettings(uri: settings.uri), kind: "gravity")
            print(
                "gravity channel: "
                    + (gravity.map { "\($0.label)" } ?? "none (the motion fallback low-passes the accelerometer)"))
        case .none:
            print("no sensor configured: Upright stays in the launch orientation")
        }
        doctorInput(configuration, problems: &problems)
        doctorScreen(configuration, problems: &problems)
        doctorDecoder(configuration)
        await doctorDisplay(configuration.display, problems: &problems)
        if problems.isEmpty {
            print("no problems found")
        } else {
            print("problems:")
            for p in problems { print("  - \(p)") }
            throw ExitCode(1)
        }
    }
}

/// The IIO context at `uri` and its devices; false when it cannot be opened (a problem then).
func doctorContext(_ uri: String, local: Bool, problems: inout [String]) -> Bool {
    do {
        let context = try IIOContext(uri: uri)
        let devices = context.devices
        print("context: \(context.name), \(devices.count) device(s)")
        for d in devices {
            print("  \(d.label): " + (d.channels.isEmpty ? "no input channels" : d.channels.joined(separator: ", ")))
        }
        return true
    } catch {
        var problem = "cannot open \(uri): \(error.message)"
        if local, error.code == ENOENT { problem += " (no IIO devices on this machine: /sys/bus/iio is missing)" }
        problems.append(problem)
        return false
    }
}

/// The accelerometer: how it is read, its mount matrix and a reading now, checked against g and,
/// for a kiosk set up for one orientation (its app allows only that), against that orientation.
func doctorAccelerometer(_ settings: SensorSettings, _ configuration: UprightConfiguration, problems: inout [String]) {
    let launch = configuration.policy.appSupported.orientations.count == 1 ? configuration.policy.launch : nil
    do {
        let a = try Accelerometer(settings: settings)
        print(
            "accelerometer: \(a.label), \(a.valueAttribute) values"
                + (a.valueAttribute == "raw" ? ", scale \(a.scales.map { String($0) }.joined(separator: "/"))" : "")
                + (a.readsFilesDirectly ? ", read from its sysfs files kept open" : ", read through libiio"))
        print("mount matrix: \(a.matrix) (from the \(a.matrixSource.rawValue))")
        if settings.uri.isLocal {
            print("udev ACCEL_MOUNT_MATRIX: " + (a.udevMatrix ?? "none (udev's database has none for this device)"))
        }
        for note in a.notes { problems.append("mount matrix: \(note)") }
        let v = try a.read()
        let g = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        let (o, c) = OrientationClassifier.snapshot(x: v.x, y: v.y, z: v.z, parameters: configuration.classifier)
        print(
            "reading now: x \(v.x.fixed(2)), y \(v.y.fixed(2)), z \(v.z.fixed(2)) m/s², |g| \(g.fixed(2)) → \(o) (confidence \(c.fixed(2)))"
        )
        if let launch, o.isUpright, o != launch.deviceOrientation, c > 0.8 {
            problems.append(
                "the device reads \(o) now while the configuration launches in \(launch): if the screen "
                    + "stands the way it is used, the axes look swapped or inverted; set [sensor] "
                    + "mount_matrix (as systemd's hwdb ACCEL_MOUNT_MATRIX, see upright(1))")
        }
        if abs(g - 9.81) > 2 {
            problems.append(
                "|g| reads \(g.fixed(2)) m/s², far from 9.81: the scale (in_accel_scale) looks wrong, or the device is moving"
            )
        }
    } catch {
        problems.append(error.description)
    }
}

/// The input devices Upright reads (the bound keys', the rotation-lock and tablet-mode switches'), each with its
/// name and what is read from it, and those that cannot be opened, with the reason.
func doctorInput(_ configuration: UprightConfiguration, problems: inout [String]) {
    let plan = configuration.inputPlan
    if plan.isIdle {
        print(
            "input devices: none to read (no KEY_/BTN_ name in [hotkeys], [lock] evdev = \"none\" and "
                + "[sensor] tablet_mode = \"ignore\")")
        return
    }
    let survey = InputHub.survey(plan)
    let bound = plan.keys.sorted().map(LinuxKeys.name(of:))
    print(
        "input devices: " + (plan.devices.joined(separator: ", "))
            + (bound.isEmpty ? "" : "; bound keys \(bound.joined(separator: ", "))") + "; rotation-lock switch "
            + plan.lockSwitch.description + (plan.tabletMode ? "; tablet-mode switch auto" : "")
            + (plan.grab ? "; grabbed" : ""))
    if survey.devices.isEmpty {
        print("input: no device has a bound key or a switch read now (each is opened when it appears)")
    }
    for d in survey.devices { print("input: \(d)") }
    for p in survey.problems {
        print("input: cannot open \(p.path): \(p.reason)")
        if plan.paths.contains(p.path) { problems.append("input device \(p.path): \(p.reason)") }
    }
}

/// The screen's power plan and the HDMI-CEC adapter it would switch the TV with (opened and
/// asked what it is; nothing is sent).
/// The hardware decoding `play` asks of mpv for this board, and what a running `upright play`'s
/// mpv decodes with now (its control socket, when one answers).
func doctorDecoder(_ configuration: UprightConfiguration) {
    let player = configuration.player
    let model = Board.model()?.split(separator: "\0").first.map(String.init)
    if let fixed = player.mpv["hwdec"] {
        print("decoder: hwdec = \"\(fixed)\" ([player.mpv])")
    } else if player.hwdec == "board" {
        let choice = HardwareDecoding.choice(model: model)
        print(
            "decoder: hwdec = \"board\": \(choice.board) (device tree model: \(model ?? "none")) → hwdec \(choice.hwdec)"
                + (choice.codecs.map { " for \($0)" } ?? ""))
    } else {
        print("decoder: hwdec = \"\(player.hwdec)\" ([player])")
    }
    let path = findControlSocket()
    guard FileManager.default.fileExists(atPath: path),
        let line = try? ControlClient.send(#"{"command": "status"}"#, to: path, timeout: 3),
        let status = ControlReply(line: line)?.status
    else { return }
    if let d = status.decoder {
        print(
            "decoder playing now: \(d.hwdec) for \(d.codec ?? "?"), \(d.decoderDrops) frame(s) dropped by the decoder, "
                + "\(d.outputDrops) by the output (\(status.playing ?? "?"))")
    } else {
        print("decoder playing now: no video plays")
    }
}

func doctorScreen(_ configuration: UprightConfiguration, problems: inout [String]) {
    // Not a problem by itself: a machine without a time service plays; its times may be off.
    let clock = ClockSync.now()
    let services = ClockSync.services()
    print(
        "system clock: " + (clock?.summary ?? "its state cannot be read (adjtimex)")
            + (services.isEmpty ? "" : "; running: " + services.joined(separator: ", ")))
    // A wall's screens keep in step by the group's clock whatever their own, but a screen that
    // restarts, or a broker that is away, leaves each on its own clock: keep them right.
    if !configuration.sync.group.isEmpty, clock?.synchronised != true {
        print(
            "warning: this screen is in the wall group \(configuration.sync.group) and its clock is not synchronised: "
                + "run chrony (with the LAN's time server, or PTP) or systemd-timesyncd on every screen of the wall")
    }
    // A sealed message older than 30 s changes nothing: a wall's clocks must agree within that.
    if !configuration.sync.group.isEmpty {
        if configuration.sync.keyFile.isEmpty {
            print(
                "warning: [sync] has no key_file: anyone on the broker can move the wall (see "
                    + "\"Video walls\", docs/WALLS.md, for the key and the broker's ACL)")
        } else {
            print("wall group \(configuration.sync.group): messages sealed with \(configuration.sync.keyFile)")
        }
    }
    guard let plan = configuration.screenPlan, let on = plan.from, let off = plan.until else {
        print("screen power plan: none (the screen is never switched)")
        return
    }
    let days =
        plan.days.isEmpty ? "" : " on " + plan.days.sorted().map { Schedule.dayNames[$0 - 1] }.joined(separator: ", ")
    print("screen power plan: on \(Schedule.text(on)), off \(Schedule.text(off))\(days)")
    let choice = configuration.screenCEC
    guard let path = CECAdapter.chosen(choice) else {
        print("HDMI-CEC: " + (choice == "off" ? "off" : "no adapter (/dev/cec*): the TV is not switched over HDMI"))
        return
    }
    do throws(CECError) {
        let adapter = try CECAdapter(path: path)
        let address =
            (try? adapter.physicalAddress()).flatMap { $0 }.map(cecAddressText) ?? "none (no HDMI sink connected?)"
        print("HDMI-CEC: \(path): \(adapter.driver) \(adapter.name), physical address \(address)")
    } catch {
        print("\(error)")
        problems.append(error.description)
    }
}

/// The display part of `upright doctor`: the backend chosen and why, its outputs, what it can do.
func doctorDisplay(_ settings: DisplaySettings, problems: inout [String]) async {
    let (backend, reason) = await DisplayDetection.backend(settings)
    let desktop = ProcessInfo.processInfo.environment["XDG_CURRENT_DESKTOP"]
    print("desktop: " + (desktop.map { $0.isEmpty ? "none named" : $0 } ?? "none named (XDG_CURRENT_DESKTOP is unset)"))
    print("display backend: \(backend.kind.rawValue) (\(reason))")
    for (connector, monitor) in MonitorIdentity.connected() {
        print("monitor on \(connector): \(monitor) (its EDID: [display] output may name it so, wherever it is plugged)")
    }
    var owners = RotationOwners.running()
    if let own = await RotationOwners.desktop(backend, kiosk: settings.kiosk) { owners.append(own) }
    for other in owners { print("  also turning outputs: \(other)") }
    guard backend.kind != .none else {
        print("  only the video surface turns; the interface strategy falls back to it")
        doctorTouch(backend.kind, outputs: [])
        return
    }
    do {
        let outputs = try await backend.outputs()
        // The one Upright would turn, chosen as `upright play` chooses it.
        var upright: OutputState?
        do { upright = try settings.chooseOutput(among: outputs, backend: backend.kind) } catch {
            problems.append("display: \(error)")
        }
        for o in outputs {
            let chosen = o.name == upright?.name
            print(
                "  output \(o.name)" + (o.identity.map { " (\($0))" } ?? "") + ": "
                    + (o.active ? "active" : "reported inactive")
                    + (o.mode.map { ", \($0)" } ?? "") + (o.transform.map { ", turned \($0)" } ?? "")
                    + (o.canRotate ? ", turns at run time" : ", cannot turn at run time")
                    + (chosen ? "  ← Upright's" : ""))
            if chosen, !o.canRotate {
                print("  note: \(o.name) cannot turn at run time: the policy uses the surface strategy")
            }
        }
        doctorTouch(backend.kind, outputs: outputs)
    } catch {
        problems.append("display: \(error)")
    }
}

/// Each touchscreen udev knows, the output it belongs to and why, and whether the backend can map
/// it to a turned output.
func doctorTouch(_ kind: DisplayBackendKind, outputs: [OutputState]) {
    let decisions = TouchAssignment.decide(Touchscreen.found(), outputs: outputs)
    if decisions.isEmpty { print("touchscreens: none found (udev: ID_INPUT_TOUCHSCREEN)") }
    let mapping: String? =
        switch kind {
        case .sway: "mapped with map_to_output at each turn"
        case .x11: "turned with its coordinate transformation matrix at each turn"
        case .gnome, .kde: "mapped by the compositor itself"
        case .wlroots, .none: nil
        }
    for d in decisions {
        let t = d.touchscreen
        print(
            "touchscreen \(t.name) (\(t.node ?? "no node")" + (t.bus.map { ", \($0)" } ?? "") + "): "
                + (d.output.map { "belongs to \($0)" } ?? "its output unknown") + " (\(d.why))"
                + (mapping.map { "; \($0)" } ?? ""))
        if mapping == nil {
            print(
                "  warning: the \(kind.rawValue) backend cannot map touch to a turned output at run time (cage "
                    + "has no mapping of its own): after a turn of the output a touch lands where the panel's "
                    + "own corner is; a double tap still works anywhere. For touch, run the sway session.")
        }
    }
}

func mpvVersionForDoctor() -> String { mpvClientAPIVersion }
