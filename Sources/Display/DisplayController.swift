import Blocking
import Foundation
import Glibc
public import OrientationCore
public import Settings
import Systemd
import UnixSocket

extension DisplaySettings {
    /// The output Upright turns among those `backend` lists: the configured one (by its connector,
    /// or by the monitor's identity, wherever it is plugged in), else the one showing Upright, else
    /// the first active one, else the first.
    public func chooseOutput(among outputs: [OutputState], backend: DisplayBackendKind) throws(DisplayError)
        -> OutputState
    {
        if output != "auto" {
            // A connector first: it names one output whatever is plugged in.
            guard let o = outputs.first(where: { $0.name == output }) ?? outputs.first(where: { $0.isNamed(output) })
            else {
                let listed = outputs.map { o in o.name + (o.identity.map { " (\($0))" } ?? "") }
                throw DisplayError(
                    "no output named \(output), by its connector or its monitor; the \(backend.rawValue) backend lists: "
                        + (listed.isEmpty ? "none" : listed.joined(separator: ", ")))
            }
            return o
        }
        guard let o = outputs.first(where: \.showsUpright) ?? outputs.first(where: \.active) ?? outputs.first else {
            throw DisplayError("the \(backend.rawValue) backend lists no outputs")
        }
        return o
    }
}

/// The display as the status and `upright doctor` report it.
public struct DisplayStatus: Sendable, Hashable {
    public var backend: DisplayBackendKind = .none
    public var endpoint = "none"
    public var output: String?
    /// The monitor on that output ("Make Model Serial"), when the backend says.
    public var identity: String?
    public var canRotate = false
    public var transform: OutputTransform?
    /// Why the display cannot turn outputs, or the last fault; `nil` when all is well.
    public var problem: String?
    /// How the backend was chosen.
    public var reason = ""
    /// Other programs running that turn outputs too (kanshi), in words.
    public var others: [String] = []
    /// The desktop the session runs in (`XDG_CURRENT_DESKTOP`), when it names one.
    public var desktop: String?

    public init(backend: DisplayBackendKind = .none, endpoint: String = "none", reason: String = "") {
        self.backend = backend
        self.endpoint = endpoint
        self.reason = reason
    }
}

/// Chooses a backend from the configuration and the environment.
public enum DisplayDetection {
    /// The backend `settings` asks for, found through `environment` (`SWAYSOCK`,
    /// `WAYLAND_DISPLAY` and the globals the compositor offers, `DISPLAY`), with the reason.
    public static func backend(
        _ settings: DisplaySettings, environment: [String: String]? = nil
    ) async -> (backend: any DisplayBackend, reason: String) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        func swaySocket() -> String? {
            if let s = environment["SWAYSOCK"], answers(s) { return s }
            // sway restarted (a new socket name), or SWAYSOCK was not passed on; a socket that a
            // killed sway left behind refuses connections: the newest that answers.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            return names.filter { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
                .map { "\(runtime)/\($0)" }
                .sorted { modified($0) > modified($1) }
                .first(where: answers)
        }
        let wayland = environment["WAYLAND_DISPLAY"]
        switch settings.backend {
        case .none:
            return (NoDisplayBackend(), "the configuration says backend = \"none\"")
        case .sway:
            guard let s = swaySocket() else {
                return (NoDisplayBackend(), "backend \"sway\" is configured but no sway socket was found (SWAYSOCK)")
            }
            return (SwayBackend(socketPath: s), "the configuration says sway; socket \(s)")
        case .wlroots:
            let d = wayland ?? "wayland-0"
            return (WlrootsBackend(display: d, modeHint: settings.mode), "the configuration says wlroots; display \(d)")
        case .x11:
            let d = environment["DISPLAY"] ?? ":0"
            return (X11Backend(display: d, touchDevices: settings.touch), "the configuration says x11; display \(d)")
        case .gnome:
            guard let address = DBusConnection.sessionAddress(environment) else {
                return (NoDisplayBackend(), "backend \"gnome\" is configured but there is no session bus")
            }
            do {
                let gnome = try await Blocking.run { () throws(DisplayError) in
                    try GnomeBackend(busAddress: address, environment: environment)
                }
                return (gnome, "the configuration says gnome; session bus \(address)")
            } catch {
                return (NoDisplayBackend(), "backend \"gnome\" is configured but \(error)")
            }
        case .kde:
            return (KdeBackend(environment: environment), "the configuration says kde (kscreen-doctor)")
        case .auto:
            return await automatic(settings, environment: environment, swaySocket: swaySocket())
        }
    }

    /// `backend = "auto"`: sway by its socket, a desktop by its bus, a wlroots compositor by what it
    /// offers, X11 by `DISPLAY`.
    private static func automatic(
        _ settings: DisplaySettings, environment: [String: String], swaySocket: String?
    ) async -> (backend: any DisplayBackend, reason: String) {
        let wayland = environment["WAYLAND_DISPLAY"]
        if let s = environment["SWAYSOCK"], s == swaySocket {
            return (SwayBackend(socketPath: s), "SWAYSOCK is set: sway at \(s)")
        }
        // sway restarted: SWAYSOCK names the old process's socket (or none was passed on).
        if wayland != nil || environment["SWAYSOCK"] != nil, let s = swaySocket {
            return (SwayBackend(socketPath: s), "sway's socket \(s) is in XDG_RUNTIME_DIR")
        }
        if let desktop = await desktopBackend(settings, environment: environment) { return desktop }
        if let d = wayland {
            let w = WlrootsBackend(display: d, modeHint: settings.mode)
            if await w.isSupported() { return (w, "WAYLAND_DISPLAY=\(d) offers wlr-output-management") }
            return (
                NoDisplayBackend(),
                "the compositor at WAYLAND_DISPLAY=\(d) cannot turn outputs at run time "
                    + "(no wlr-output-management, as cage 0.1.4): only the video surface turns"
            )
        }
        if let d = environment["DISPLAY"] {
            return (X11Backend(display: d, touchDevices: settings.touch), "DISPLAY=\(d): X11 RandR")
        }
        return (NoDisplayBackend(), "no SWAYSOCK, WAYLAND_DISPLAY or DISPLAY: no display to turn")
    }
}

extension DisplayDetection {
    /// Whether a compositor's socket accepts a connection (a file left by a killed one does not).
    static func answers(_ path: String) -> Bool { (try? UnixSocket.probe(path)) != nil }

    /// When `path` was last changed (a socket's creation), 0 when it cannot be read.
    static func modified(_ path: String) -> Double {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    static let mutterName = "org.gnome.Mutter.DisplayConfig"
    static let kwinName = "org.kde.KWin"

    /// GNOME or KDE, by `XDG_CURRENT_DESKTOP` or by their display service on the session bus.
    static func desktopBackend(_ settings: DisplaySettings, environment: [String: String]) async
        -> (backend: any DisplayBackend, reason: String)?
    {
        let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.uppercased() }
        guard let address = DBusConnection.sessionAddress(environment) else {
            if desktops.contains("KDE") { return (KdeBackend(environment: environment), "XDG_CURRENT_DESKTOP is KDE") }
            return nil
        }
        return await Blocking.run { () -> (backend: any DisplayBackend, reason: String)? in
            guard let bus = try? DBusConnection(address: address) else { return nil }
            if desktops.contains("GNOME") || bus.hasOwner(mutterName) {
                let why =
                    desktops.contains("GNOME") ? "XDG_CURRENT_DESKTOP is GNOME" : "\(mutterName) is on the session bus"
                return (GnomeBackend(bus: bus, environment: environment), why + ": mutter's DisplayConfig")
            }
            if desktops.contains("KDE") || bus.hasOwner(kwinName) {
                let why = desktops.contains("KDE") ? "XDG_CURRENT_DESKTOP is KDE" : "\(kwinName) is on the session bus"
                return (KdeBackend(environment: environment), why + ": kscreen-doctor")
            }
            return nil
        }
    }
}

/// Turns the output showing Upright, remembers its original transform in a small state file, and
/// puts it back on exit (or at the next start, when an earlier run died). The backend's calls
/// block (a socket, a helper program), so they run through ``Blocking``, never on the cooperative
/// pool. Faults are returned and kept in ``status``; nothing here throws past its caller or stops
/// playback.
public actor DisplayController {
    /// The backend; with the environment's, found at ``start()``.
    public private(set) var backend: any DisplayBackend = NoDisplayBackend()
    /// The environment to find the backend in at ``start()``, when none was given.
    private var environment: [String: String]??
    /// The same, kept for ``redetect()``.
    private let detection: [String: String]??
    private let settings: DisplaySettings
    /// Where the restore record lives (the program's runtime directory).
    private let stateDirectory: String
    /// The display's state, for the status and `upright doctor`.
    public private(set) var status = DisplayStatus()
    private var output: OutputState?
    private var original: OutputTransform?
    private var applied: OutputTransform?
    /// The touch devices the backend listed at its last mapping (``DisplayBackend/touchDevices()``).
    private var touchMapped: [String] = []
    /// The desktop's own auto-rotation lock as Upright found it, when Upright locked it.
    private var desktopLockFound: Bool?
    /// The backend stopped answering: each probe looks for one anew.
    private var searching = false

    public init(settings: DisplaySettings, stateDirectory: String, backend: any DisplayBackend, reason: String) {
        detection = nil
        self.settings = settings
        self.stateDirectory = stateDirectory
        self.backend = backend
        status.backend = backend.kind
        status.endpoint = backend.endpoint
        status.reason = reason
    }

    /// The controller for the configuration and the environment (the process's own by default);
    /// the backend is found at ``start()``.
    public init(settings: DisplaySettings, stateDirectory: String, environment: [String: String]? = nil) {
        self.settings = settings
        self.stateDirectory = stateDirectory
        self.environment = .some(environment)
        detection = .some(environment)
    }

    /// The compositor came back (a new process, maybe a new socket): finds the backend again,
    /// records the output's transform as the one to put back, and turns it to Upright's again.
    /// When none answers yet (sway's socket comes a moment after its Wayland one), the old one
    /// stays named, and each ``probe()`` looks again.
    public func redetect() async -> DisplayAbilities {
        guard let detection else { return await adopt(nil) }
        let found = await DisplayDetection.backend(settings, environment: detection)
        guard found.backend.kind != .none || backend.kind == .none else {
            searching = true
            status.problem = "\(backend.kind.rawValue) does not answer; looking for it again (\(found.reason))"
            return abilities
        }
        searching = false
        return await adopt(found, desktop: detection)
    }

    /// Takes `found` as the backend (`nil`: the same one, asked again) and turns its output to
    /// Upright's transform again.
    private func adopt(
        _ found: (backend: any DisplayBackend, reason: String)?, desktop environment: [String: String]? = nil
    ) async -> DisplayAbilities {
        let keep = applied
        if let found {
            backend = found.backend
            status = DisplayStatus(backend: found.backend.kind, endpoint: found.backend.endpoint, reason: found.reason)
            status.desktop = (environment ?? ProcessInfo.processInfo.environment)["XDG_CURRENT_DESKTOP"]
            output = nil
            original = nil
        }
        var abilities = await start()
        applied = keep
        if keep != nil { abilities = await reassert().0 }
        return abilities
    }

    /// Finds the output, restores one an earlier run left turned, and records the original
    /// transform. Returns what the policy may do; a problem is in ``status``.
    public func start() async -> DisplayAbilities {
        if let environment {
            self.environment = nil
            let (found, reason) = await DisplayDetection.backend(settings, environment: environment)
            backend = found
            status = DisplayStatus(backend: found.kind, endpoint: found.endpoint, reason: reason)
            status.desktop = (environment ?? ProcessInfo.processInfo.environment)["XDG_CURRENT_DESKTOP"]
        }
        guard backend.kind != .none else {
            status.problem = status.reason
            return abilities
        }
        status.others = RotationOwners.running()
        if backend.kind == .kde { status.others.append(RotationOwners.kde) }
        do {
            var current = try await findOutput()
            let stale = readState().flatMap { $0.pid != getpid() && !processAlive($0.pid) ? $0 : nil }
            if let stale, stale.output == current.name {
                // An earlier run died with the output turned: put it back first, then read it again.
                try await setTransform(stale.transform, of: current)
                status.reason += "; restored \(current.name) to \(stale.transform) left by process \(stale.pid)"
                current = try await findOutput()
            }
            if let stale, let locked = stale.desktopLocked {
                try? await backend.setDesktopRotationLocked(locked)
            }
            output = current
            original = current.transform ?? .normal
            status.output = current.name
            status.identity = current.identity
            status.transform = current.transform
            status.canRotate = current.canRotate
            status.problem =
                current.canRotate
                ? nil : "\(backend.kind.rawValue) cannot turn \(current.name) at run time: only the video surface turns"
            if current.canRotate {
                await holdDesktopRotation()
                writeState(output: current.name, transform: original!)
            }
        } catch {
            status.problem = error.description
        }
        return abilities
    }

    /// Shows `interface` upright by turning the output (composed with the panel's natural
    /// orientation) and making touch follow. The transform is read back: the status says what the
    /// compositor shows, not what was asked. A failure is kept in ``status`` and returned.
    public func apply(_ interface: InterfaceOrientation) async -> DisplayError? {
        guard let output, status.canRotate else {
            return DisplayError(status.problem ?? "no output to turn")
        }
        let transform = OutputTransform(interface: interface, natural: settings.natural)
        do {
            // What the output shows as far as Upright knows: its own last turn, else the transform
            // found at start. An output already showing `transform` is not set again (sway lays
            // every window out again for it, and answers no client meanwhile).
            if (applied ?? output.transform) != transform || status.problem != nil {
                try await setTransform(transform, of: output)
                _ = try? await backend.mapTouch(to: output, transform: transform)
                touchMapped = await backend.touchDevices()
            }
            applied = transform
            status.problem = await readBack(transform, of: output)
            return status.problem.map(DisplayError.init)
        } catch {
            status.problem = "cannot turn \(output.name): \(error)"
            return error
        }
    }

    /// Maps the touch devices that appeared since the last mapping (a touchscreen plugged in after
    /// the last turn, or found late) to `output`; what was done, in words (`nil`: nothing new).
    private func mapNewTouch(_ output: OutputState) async -> String? {
        let devices = await backend.touchDevices()
        let new = devices.filter { !touchMapped.contains($0) }
        touchMapped = devices
        guard !new.isEmpty else { return nil }
        let mapped = (try? await backend.mapTouch(to: output, transform: applied ?? output.transform ?? .normal)) ?? []
        return "display: touch device \(new.joined(separator: ", ")) found; mapped to "
            + (mapped.isEmpty ? "its own output" : output.name)
    }

    /// Reads `output` again after turning it to `wanted`: the status shows the transform the
    /// compositor reports; the problem, when it shows another. A backend that reports no
    /// transform (wlr-randr on sway's headless output) cannot be checked.
    private func readBack(_ wanted: OutputTransform, of output: OutputState) async -> String? {
        status.transform = wanted
        guard let shown = try? await findOutput(), shown.name == output.name, let seen = shown.transform,
            seen != wanted
        else { return nil }
        status.transform = seen
        return "asked \(output.name) for \(wanted), it shows \(seen)"
            + (shown.active ? "" : " (the output is disabled)")
    }

    /// The outputs changed (an event, or the once-a-second look): reads the output again, and in
    /// kiosk mode turns it back to Upright's transform when someone else (kanshi, a person, a
    /// replug) changed it. Never on a shared desktop (`kiosk = false`): there the status only
    /// follows. Returns what the policy may do now, and what happened in words (`nil`: nothing).
    public func reassert() async -> (DisplayAbilities, String?) {
        guard backend.kind != .none, output != nil else { return (abilities, nil) }
        let current: OutputState
        do {
            current = try await findOutput()
        } catch {
            let note = status.problem == error.description ? nil : "display: \(error)"
            status.problem = error.description
            return (abilities, note)
        }
        self.output = current
        status.output = current.name
        status.identity = current.identity
        let touch = await mapNewTouch(current)
        // A backend that reports no transform cannot tell a foreign turn: nothing to compare.
        guard let seen = current.transform else { return (abilities, touch) }
        status.transform = seen
        guard settings.kiosk, current.canRotate, let wanted = applied ?? original else { return (abilities, touch) }
        guard seen != wanted || status.problem != nil else { return (abilities, touch) }
        let was = "\(seen)"
        do {
            try await setTransform(wanted, of: current)
            _ = try? await backend.mapTouch(to: current, transform: wanted)
            status.problem = await readBack(wanted, of: current)
            if seen == wanted { return (abilities, "display: \(current.name) answers again at \(wanted)") }
            return (
                abilities, "display: \(current.name) was turned to \(was) by someone else; turned back to \(wanted)"
            )
        } catch {
            status.problem = "cannot turn \(current.name) back to \(wanted): \(error)"
            return (abilities, "display: " + status.problem!)
        }
    }

    /// Asks the backend again after a fault; returns what the policy may do now. A backend that
    /// stopped answering (its compositor went away: a socket that refuses, or none) is looked
    /// for anew, a new socket name included, from the next probe on.
    public func probe() async -> DisplayAbilities {
        if searching { return await redetect() }
        guard backend.kind != .none else { return abilities }
        if output == nil { return await start() }
        do {
            let current = try await findOutput()
            output = current
            status.canRotate = current.canRotate
            if current.canRotate { status.problem = nil }
        } catch {
            status.problem = error.description
            if detection != nil { searching = true }
        }
        return abilities
    }

    /// Puts the original transform back (whoever changed it since: Upright, or someone else in
    /// kiosk mode) and removes the state file.
    public func restore() async {
        if let found = desktopLockFound {
            try? await backend.setDesktopRotationLocked(found)
            desktopLockFound = nil
        }
        guard let output, let original, backend.kind != .none else { return }
        let shown = (try? await findOutput())?.transform ?? applied
        if shown != original, applied != nil || settings.kiosk {
            do { try await setTransform(original, of: output) } catch { status.problem = error.description }
        }
        applied = original
        status.transform = original
        removeState()
    }

    /// Switches the screen off or on (the power plan); a failure is kept in ``status`` and returned.
    public func setPower(_ on: Bool) async -> DisplayError? {
        guard let output else { return DisplayError(status.problem ?? "no output to switch \(on ? "on" : "off")") }
        do {
            try await backend.setPower(on, of: output)
            return nil
        } catch {
            status.problem = "cannot switch \(output.name) \(on ? "on" : "off"): \(error)"
            return error
        }
    }

    /// What the policy may do now.
    public var abilities: DisplayAbilities {
        DisplayAbilities(canRotateOutput: status.canRotate && status.problem == nil, ownsOutput: settings.kiosk)
    }

    /// The backend's output changes, for the session's loop.
    public func changes() -> AsyncStream<Void> { backend.changes() }

    // MARK: - Internals

    /// The desktop's own auto-rotation (GNOME's `orientation-lock`): locked while Upright owns the
    /// output (kiosk mode), and named among the rotation owners where it may turn the screen.
    private func holdDesktopRotation() async {
        guard let locked = await backend.desktopRotationLocked() else { return }
        if settings.kiosk, !locked {
            do {
                try await backend.setDesktopRotationLocked(true)
                desktopLockFound = false
            } catch {
                status.others.append(
                    RotationOwners.gnome(locked: false, kiosk: false) + "; it cannot be locked: \(error)")
                return
            }
        }
        status.others.append(RotationOwners.gnome(locked: locked, kiosk: settings.kiosk))
    }

    private func findOutput() async throws(DisplayError) -> OutputState {
        try settings.chooseOutput(among: await backend.outputs(), backend: backend.kind)
    }

    private func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        try await backend.setTransform(transform, of: output)
    }

    private struct State: Codable {
        var backend: String
        var output: String
        var clockwise: Int
        var pid: Int32
        /// The desktop's auto-rotation lock to put back (Upright locked it).
        var desktopLocked: Bool?
        var transform: OutputTransform { OutputTransform(clockwise: clockwise) }
    }

    /// The restore record's path.
    public var statePath: String { "\(stateDirectory)/display-\(backend.kind.rawValue).json" }

    private func readState() -> State? {
        guard let data = FileManager.default.contents(atPath: statePath) else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    private func writeState(output: String, transform: OutputTransform) {
        let state = State(
            backend: backend.kind.rawValue, output: output, clockwise: transform.clockwise, pid: getpid(),
            desktopLocked: desktopLockFound)
        let url = URL(fileURLWithPath: statePath)
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        if let data = try? JSONEncoder().encode(state) { try? data.write(to: url, options: .atomic) }
    }

    private func removeState() { try? FileManager.default.removeItem(atPath: statePath) }

    private func processAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }
}
