import Blocking
import Foundation
import Systemd

/// GNOME (mutter), through `org.gnome.Mutter.DisplayConfig` on the session bus (sd-bus):
/// `GetCurrentState` reads the monitors, `ApplyMonitorsConfig` with method 1 (temporary: no
/// confirmation, no revert after 20 s, forgotten when the session ends) turns one, every other
/// monitor's configuration sent back as it was (mode, scale, transform, primary), moved only as
/// far as the turned one grew or shrank, to stay adjacent to it as mutter requires. mutter maps the built-in touchscreen to
/// its monitor itself. GNOME's own auto-rotation is held off through the `orientation-lock` key
/// of `org.gnome.settings-daemon.peripherals.touchscreen` (``setDesktopRotationLocked(_:)``).
public struct GnomeBackend: DisplayBackend {
    public var kind: DisplayBackendKind { .gnome }
    public var endpoint: String { bus.address }
    private let bus: DBusConnection
    private let gsettings: HelperProgram

    static let destination = "org.gnome.Mutter.DisplayConfig"
    static let path = "/org/gnome/Mutter/DisplayConfig"
    static let lockSchema = "org.gnome.settings-daemon.peripherals.touchscreen"

    /// Connects to the session bus at `busAddress`; `environment` reaches gsettings (its
    /// configuration directories and backend).
    public init(busAddress: String, environment: [String: String] = [:]) throws(DisplayError) {
        do {
            self.init(bus: try DBusConnection(address: busAddress), environment: environment)
        } catch {
            throw DisplayError("\(error)")
        }
    }

    /// The same over a connection already open (the one detection asked the bus with).
    init(bus: DBusConnection, environment: [String: String]) {
        self.bus = bus
        var extra = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        for key in ["XDG_RUNTIME_DIR", "HOME", "XDG_CONFIG_HOME", "GSETTINGS_BACKEND"] { extra[key] = environment[key] }
        gsettings = HelperProgram(name: "gsettings", environment: extra)
    }

    /// mutter's monitors and logical monitors, as `GetCurrentState` gives them.
    struct State {
        struct Monitor {
            var connector: String
            var builtin: Bool
            /// The current mode: its id (`800x1280@60.000`) and size in the panel's pixels.
            var mode: (id: String, width: Int, height: Int)?
        }
        struct Logical {
            var x: Int32, y: Int32
            var scale: Double
            var transform: UInt32
            var primary: Bool
            var connectors: [String]
        }
        var serial: UInt32
        var monitors: [Monitor]
        var logical: [Logical]
        /// mutter's layout mode: 1 logical (sizes divided by the scale), 2 physical.
        var layoutMode: Int

        /// The size logical monitor `l` covers in the layout at `transform`.
        func size(of l: Logical, transform: UInt32) -> (width: Int32, height: Int32) {
            guard let mode = monitors.first(where: { l.connectors.contains($0.connector) })?.mode else { return (0, 0) }
            let divisor = layoutMode == 1 ? l.scale : 1
            let (w, h) = (
                Int32((Double(mode.width) / divisor).rounded()), Int32((Double(mode.height) / divisor).rounded())
            )
            return transform % 2 == 1 ? (h, w) : (w, h)
        }

        /// Parses `(ua((ssss)a(siiddada{sv})a{sv})a(iiduba(ssss)a{sv})a{sv})`.
        init(_ reply: [DBusValue]) throws(DisplayError) {
            guard reply.count >= 3, let serial = reply[0].int else {
                throw DisplayError("mutter's GetCurrentState answered with something unexpected")
            }
            self.serial = UInt32(serial)
            monitors = reply[1].items.compactMap { m in
                let f = m.items
                guard f.count >= 3, let connector = f[0].items.first?.string else { return nil }
                let current = f[1].items.first { $0.items.count >= 7 && $0.items[6]["is-current"]?.bool == true }
                let mode = current.flatMap { c -> (String, Int, Int)? in
                    let i = c.items
                    guard let id = i[0].string, let w = i[1].int, let h = i[2].int else { return nil }
                    return (id, w, h)
                }
                return Monitor(connector: connector, builtin: f[2]["is-builtin"]?.bool ?? false, mode: mode)
            }
            logical = reply[2].items.compactMap { l in
                let f = l.items
                guard f.count >= 6, let x = f[0].int, let y = f[1].int, let scale = f[2].double,
                    let transform = f[3].int, let primary = f[4].bool
                else { return nil }
                return Logical(
                    x: Int32(x), y: Int32(y), scale: scale, transform: UInt32(transform), primary: primary,
                    connectors: f[5].items.compactMap { $0.items.first?.string })
            }
            layoutMode = reply.count > 3 ? reply[3]["layout-mode"]?.int ?? 1 : 1
        }
    }

    /// Calls `method` of `interface` on mutter's DisplayConfig object, off the cooperative pool; a
    /// failure is `failing`, then the bus's words.
    private func call(
        _ method: String, _ arguments: [DBusValue] = [], of interface: String = Self.destination, failing: String
    ) async throws(DisplayError) -> [DBusValue] {
        let bus = bus
        return try await Blocking.run { () throws(DisplayError) -> [DBusValue] in
            do {
                return try bus.call(Self.destination, Self.path, interface, method, arguments)
            } catch {
                throw DisplayError("\(failing): \(error)")
            }
        }
    }

    func state() async throws(DisplayError) -> State {
        try State(await call("GetCurrentState", failing: "cannot read mutter's monitors"))
    }

    public func outputs() async throws(DisplayError) -> [OutputState] {
        let s = try await state()
        return s.monitors.map { m in
            let logical = s.logical.first { $0.connectors.contains(m.connector) }
            return OutputState(
                name: m.connector, active: logical != nil,
                transform: logical.map { OutputTransform(mutterValue: $0.transform) } ?? .normal,
                mode: m.mode.map { OutputState.Mode(width: $0.width, height: $0.height) },
                showsUpright: m.builtin || logical?.primary == true, canRotate: logical != nil && m.mode != nil)
        }
    }

    public func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        let s = try await state()
        guard let turnedMonitor = s.logical.first(where: { $0.connectors.contains(output.name) }) else {
            throw DisplayError("mutter shows no logical monitor for \(output.name) (is it disabled?)")
        }
        // mutter wants logical monitors adjacent: those right of (below) the turned one move by
        // the change of its width (height), so the arrangement stays as it was.
        let before = s.size(of: turnedMonitor, transform: turnedMonitor.transform)
        let after = s.size(of: turnedMonitor, transform: transform.mutterValue)
        // Every logical monitor as it is, with its monitors in their current modes; only this one turns.
        var logical: [DBusValue] = []
        for l in s.logical {
            var monitors: [DBusValue] = []
            for c in l.connectors {
                guard let mode = s.monitors.first(where: { $0.connector == c })?.mode else {
                    throw DisplayError("mutter reports no current mode for \(c)")
                }
                monitors.append(.structure([.string(c), .string(mode.id), .dictionary([])]))
            }
            let isTurned = l.connectors.contains(output.name)
            let x = !isTurned && l.x >= turnedMonitor.x + before.width ? l.x + after.width - before.width : l.x
            let y = !isTurned && l.y >= turnedMonitor.y + before.height ? l.y + after.height - before.height : l.y
            logical.append(
                .structure([
                    .int32(x), .int32(y), .double(l.scale), .uint32(isTurned ? transform.mutterValue : l.transform),
                    .bool(l.primary), .array("(ssa{sv})", monitors),
                ]))
        }
        let arguments: [DBusValue] = [
            .uint32(s.serial), .uint32(1), .array("(iiduba(ssa{sv}))", logical), .dictionary([]),
        ]
        _ = try await call("ApplyMonitorsConfig", arguments, failing: "mutter refused to turn \(output.name)")
    }

    /// mutter maps the built-in touchscreen to its monitor itself.
    public func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
        []
    }

    /// mutter's `PowerSaveMode` (0 on, 3 off): every monitor at once (mutter has no per-monitor
    /// power through this interface).
    public func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError) {
        _ = try await call(
            "Set", [.string(Self.destination), .string("PowerSaveMode"), .variant(.int32(on ? 0 : 3))],
            of: "org.freedesktop.DBus.Properties", failing: "cannot switch mutter's monitors \(on ? "on" : "off")")
    }

    public func desktopRotationLocked() async -> Bool? {
        guard let text = try? await gsettings.run(["get", Self.lockSchema, "orientation-lock"]) else { return nil }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }

    public func setDesktopRotationLocked(_ locked: Bool) async throws(DisplayError) {
        _ = try await gsettings.run(["set", Self.lockSchema, "orientation-lock", locked ? "true" : "false"])
    }
}

/// KDE Plasma (KWin), through `kscreen-doctor`: `-j` lists the outputs as JSON, and
/// `output.NAME.rotation.{none,left,inverted,right}` turns one; KWin maps touch to its output.
public struct KdeBackend: DisplayBackend {
    public var kind: DisplayBackendKind { .kde }
    public var endpoint: String { "kscreen-doctor" }
    private let program: HelperProgram

    public init(environment: [String: String] = [:]) {
        // A Qt program: on a loaded or slow machine it takes seconds to start.
        program = HelperProgram(name: "kscreen-doctor", environment: environment, timeout: 15)
    }

    /// kscreen-doctor's rotation numbers (KScreen::Output::Rotation): 1 none, 2 left, 4 inverted, 8 right.
    static func transform(kscreen rotation: Int) -> OutputTransform? {
        switch rotation {
        case 1: .normal
        case 2: OutputTransform(clockwise: 270)
        case 4: OutputTransform(clockwise: 180)
        case 8: OutputTransform(clockwise: 90)
        default: nil
        }
    }

    /// The outputs in `kscreen-doctor -j`'s JSON.
    static func parse(_ json: String) throws(DisplayError) -> [OutputState] {
        struct Listing: Decodable {
            struct Output: Decodable {
                struct Size: Decodable {
                    var width: Int
                    var height: Int
                }
                struct Mode: Decodable {
                    var id: String
                    var size: Size
                }
                var name: String
                var enabled: Bool?
                var connected: Bool?
                /// Plasma 5.21 and before; later ones say `priority` 1 for the primary output.
                var primary: Bool?
                var priority: Int?
                var rotation: Int?
                var currentModeId: String?
                var modes: [Mode]?
            }
            var outputs: [Output]
        }
        let listing: Listing
        do {
            listing = try JSONDecoder().decode(Listing.self, from: Data(json.utf8))
        } catch {
            throw DisplayError("kscreen-doctor -j printed something unexpected: \(error)")
        }
        return listing.outputs.filter { $0.connected ?? true }.map { o in
            let mode = o.modes?.first { $0.id == o.currentModeId }.map {
                OutputState.Mode(width: $0.size.width, height: $0.size.height)
            }
            return OutputState(
                name: o.name, active: o.enabled ?? false, transform: o.rotation.flatMap(transform(kscreen:)),
                mode: mode, showsUpright: o.primary ?? (o.priority == 1), canRotate: o.enabled ?? false)
        }
    }

    /// kscreen-doctor's words for turning `output` to `transform`.
    static func arguments(_ transform: OutputTransform, of output: String) -> [String] {
        ["output.\(output).rotation.\(transform.kscreenName)"]
    }

    public func outputs() async throws(DisplayError) -> [OutputState] {
        try Self.parse(try await program.run(["-j"]))
    }

    public func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        _ = try await program.run(Self.arguments(transform, of: output.name))
    }

    /// `kscreen-doctor --dpms off|on` (Wayland only): every output at once. A KWin whose outputs
    /// offer no power control (a virtual one) leaves kscreen-doctor waiting: its time limit says so.
    public func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError) {
        do {
            _ = try await program.run(["--dpms", on ? "on" : "off"])
        } catch {
            throw DisplayError("KWin did not switch the outputs \(on ? "on" : "off"): \(error)")
        }
    }

    /// KWin maps touchscreens to their output itself.
    public func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
        []
    }
}
