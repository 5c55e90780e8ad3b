import Blocking
import Foundation
import Glibc
public import OrientationCore
public import Settings

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
    let settings: DisplaySettings
    /// Where the restore record lives (the program's runtime directory).
    let stateDirectory: String
    /// The display's state, for the status and `upright doctor`.
    public private(set) var status = DisplayStatus()
    private var output: OutputState?
    private var original: OutputTransform?
    private var applied: OutputTransform?
    /// The touch devices the backend listed at its last mapping (``DisplayBackend/touchDevices()``).
    private var touchMapped: [String] = []
    /// The desktop's own auto-rotation lock as Upright found it, when Upright locked it.
    var desktopLockFound: Bool?
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
                try await backend.setTransform(stale.transform, of: current)
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
                if let owner = await holdDesktopRotation() { status.others.append(owner) }
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
                try await backend.setTransform(transform, of: output)
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
            try await backend.setTransform(wanted, of: current)
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
            do { try await backend.setTransform(original, of: output) } catch { status.problem = error.description }
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

    private func findOutput() async throws(DisplayError) -> OutputState {
        try settings.chooseOutput(among: await backend.outputs(), backend: backend.kind)
    }
}
