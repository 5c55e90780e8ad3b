import Dispatch
import Foundation
import Glibc
public import OrientationCore

/// What the configuration says about the display.
public struct DisplaySettings: Sendable, Hashable {
    /// `auto`, or a backend's name.
    public var backend = "auto"
    /// `auto` (the output showing Upright) or an output's name.
    public var output = "auto"
    /// The interface orientation the panel shows upright at transform 0 (its natural orientation
    /// and mounting together).
    public var natural: InterfaceOrientation = .portrait
    /// The mode to state when the compositor reports none (headless outputs), `WIDTHxHEIGHT`.
    public var mode: OutputState.Mode?
    /// X11 touch devices by name or id; empty: every touchscreen.
    public var touch: [String] = []
    /// Upright owns the output (a kiosk) and may turn it; false on a shared desktop.
    public var kiosk = true
    /// Where the restore record lives (the program's runtime directory).
    public var stateDirectory: String

    public init(stateDirectory: String) { self.stateDirectory = stateDirectory }

    /// The output Upright turns among those `backend` lists: the configured one, else the one
    /// showing Upright, else the first active one, else the first.
    public func chooseOutput(among outputs: [OutputState], backend: DisplayBackendKind) throws(DisplayError)
        -> OutputState
    {
        if output != "auto" {
            guard let o = outputs.first(where: { $0.name == output }) else {
                throw DisplayError(
                    "no output named \(output); the \(backend.rawValue) backend lists: "
                        + (outputs.isEmpty ? "none" : outputs.map(\.name).joined(separator: ", ")))
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
    public var canRotate = false
    public var transform: OutputTransform?
    /// Why the display cannot turn outputs, or the last fault; `nil` when all is well.
    public var problem: String?
    /// How the backend was chosen.
    public var reason = ""
}

/// Chooses a backend from the configuration and the environment.
public enum DisplayDetection {
    /// The backend `settings` asks for, found through `environment` (`SWAYSOCK`,
    /// `WAYLAND_DISPLAY` and the globals the compositor offers, `DISPLAY`), with the reason.
    public static func backend(
        _ settings: DisplaySettings, environment: [String: String]? = nil
    ) -> (backend: any DisplayBackend, reason: String) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        func swaySocket() -> String? {
            if let s = environment["SWAYSOCK"], FileManager.default.fileExists(atPath: s) { return s }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            return names.filter { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }.sorted().first
                .map { "\(runtime)/\($0)" }
        }
        let wayland = environment["WAYLAND_DISPLAY"]
        switch settings.backend {
        case "none":
            return (NoDisplayBackend(), "the configuration says backend = \"none\"")
        case "sway":
            guard let s = swaySocket() else {
                return (NoDisplayBackend(), "backend \"sway\" is configured but no sway socket was found (SWAYSOCK)")
            }
            return (SwayBackend(socketPath: s), "the configuration says sway; socket \(s)")
        case "wlroots":
            let d = wayland ?? "wayland-0"
            return (WlrootsBackend(display: d, modeHint: settings.mode), "the configuration says wlroots; display \(d)")
        case "x11":
            let d = environment["DISPLAY"] ?? ":0"
            return (X11Backend(display: d, touchDevices: settings.touch), "the configuration says x11; display \(d)")
        default:
            if let s = environment["SWAYSOCK"], FileManager.default.fileExists(atPath: s) {
                return (SwayBackend(socketPath: s), "SWAYSOCK is set: sway at \(s)")
            }
            if let d = wayland {
                let w = WlrootsBackend(display: d, modeHint: settings.mode)
                if w.isSupported() { return (w, "WAYLAND_DISPLAY=\(d) offers wlr-output-management") }
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
}

/// Turns the output showing Upright, remembers its original transform in a small state file, and
/// puts it back on exit (or at the next start, when an earlier run died). The backend's calls
/// block (a socket, a helper program), so they run on the controller's own serial queue, never on
/// the cooperative pool. Faults are returned and kept in ``status``; nothing here throws past its
/// caller or stops playback.
// @unchecked Sendable: every mutable property is read and written only on `queue` (through `run`).
public final class DisplayController: @unchecked Sendable {
    private let queue = DispatchQueue(label: "upright.display")

    public let backend: any DisplayBackend
    private let settings: DisplaySettings
    private var status_ = DisplayStatus()
    private var output: OutputState?
    private var original: OutputTransform?
    private var applied: OutputTransform?

    public init(settings: DisplaySettings, backend: any DisplayBackend, reason: String) {
        self.settings = settings
        self.backend = backend
        status_.backend = backend.kind
        status_.endpoint = backend.endpoint
        status_.reason = reason
    }

    /// The controller for the configuration and the environment.
    public convenience init(settings: DisplaySettings, environment: [String: String]? = nil) {
        let (backend, reason) = DisplayDetection.backend(settings, environment: environment)
        self.init(settings: settings, backend: backend, reason: reason)
    }

    /// Runs `body` on the controller's queue.
    private func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in queue.async { c.resume(returning: body()) } }
    }

    /// The display's state, for the status and `upright doctor`.
    public var status: DisplayStatus { get async { await run { self.status_ } } }

    /// Finds the output, restores one an earlier run left turned, and records the original
    /// transform. Returns what the policy may do; a problem is in ``status``.
    public func start() async -> DisplayAbilities { await run { self.startNow() } }

    /// Shows `interface` upright by turning the output (composed with the panel's natural
    /// orientation) and making touch follow. A failure is kept in ``status`` and returned.
    public func apply(_ interface: InterfaceOrientation) async -> DisplayError? {
        await run { self.applyNow(interface) }
    }

    /// Asks the backend again after a fault; returns what the policy may do now.
    public func probe() async -> DisplayAbilities { await run { self.probeNow() } }

    /// Puts the original transform back and removes the state file.
    public func restore() async { await run { self.restoreNow() } }

    private var abilities: DisplayAbilities {
        DisplayAbilities(canRotateOutput: status_.canRotate && status_.problem == nil, ownsOutput: settings.kiosk)
    }

    private func startNow() -> DisplayAbilities {
        guard backend.kind != .none else {
            status_.problem = status_.reason
            return abilities
        }
        do {
            var current = try findOutput()
            if let stale = readState(), stale.output == current.name, stale.pid != getpid(), !processAlive(stale.pid) {
                // An earlier run died with the output turned: put it back first, then read it again.
                try backend.setTransform(stale.transform, of: current)
                status_.reason += "; restored \(current.name) to \(stale.transform) left by process \(stale.pid)"
                current = try findOutput()
            }
            output = current
            original = current.transform ?? .normal
            status_.output = current.name
            status_.transform = current.transform
            status_.canRotate = current.canRotate
            status_.problem =
                current.canRotate
                ? nil : "\(backend.kind.rawValue) cannot turn \(current.name) at run time: only the video surface turns"
            if current.canRotate { writeState(output: current.name, transform: original!) }
        } catch {
            status_.problem = error.description
        }
        return abilities
    }

    private func applyNow(_ interface: InterfaceOrientation) -> DisplayError? {
        guard let output, status_.canRotate else {
            return DisplayError(status_.problem ?? "no output to turn")
        }
        let transform = OutputTransform(interface: interface, natural: settings.natural)
        do {
            if applied != transform || status_.problem != nil {
                try backend.setTransform(transform, of: output)
                _ = try? backend.mapTouch(to: output, transform: transform)
            }
            applied = transform
            status_.transform = transform
            status_.problem = nil
            return nil
        } catch {
            status_.problem = "cannot turn \(output.name): \(error)"
            return error
        }
    }

    private func probeNow() -> DisplayAbilities {
        guard backend.kind != .none else { return abilities }
        if output == nil { return startNow() }
        do {
            let current = try findOutput()
            output = current
            status_.canRotate = current.canRotate
            if current.canRotate { status_.problem = nil }
        } catch {
            status_.problem = error.description
        }
        return abilities
    }

    private func restoreNow() {
        guard let output, let original, backend.kind != .none else { return }
        if applied != nil, applied != original {
            do { try backend.setTransform(original, of: output) } catch { status_.problem = error.description }
        }
        applied = original
        status_.transform = original
        removeState()
    }

    // MARK: - Internals

    private func findOutput() throws(DisplayError) -> OutputState {
        try settings.chooseOutput(among: backend.outputs(), backend: backend.kind)
    }

    private struct State: Codable {
        var backend: String
        var output: String
        var clockwise: Int
        var pid: Int32
        var transform: OutputTransform { OutputTransform(clockwise: clockwise) }
    }

    /// The restore record's path.
    public var statePath: String { "\(settings.stateDirectory)/display-\(backend.kind.rawValue).json" }

    private func readState() -> State? {
        guard let data = FileManager.default.contents(atPath: statePath) else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    private func writeState(output: String, transform: OutputTransform) {
        let state = State(backend: backend.kind.rawValue, output: output, clockwise: transform.clockwise, pid: getpid())
        let url = URL(fileURLWithPath: statePath)
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        if let data = try? JSONEncoder().encode(state) { try? data.write(to: url, options: .atomic) }
    }

    private func removeState() { try? FileManager.default.removeItem(atPath: statePath) }

    private func processAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }
}
