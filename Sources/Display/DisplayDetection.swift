import Blocking
import Foundation
import Glibc
import OrientationCore
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
