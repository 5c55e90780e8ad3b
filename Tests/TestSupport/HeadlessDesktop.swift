import Blocking
import Foundation

/// A headless desktop compositor on a private session bus, started for a test by
/// `scripts/headless-desktop.sh`: GNOME's mutter (its settings through a real dconf) or KDE's
/// KWin. Stopped by ``stop()``.
public final class HeadlessDesktop: Sendable {
    public enum Kind: String, Sendable { case gnome, kde }
    public let directory: String
    /// What a client of this GNOME session needs: the bus, the runtime directory, the Wayland
    /// display, and the home its settings live in.
    public let environment: [String: String]
    private let pids: [Int32]
    /// Signals go through these: a pid reaped by init may be another test's process.
    private let processes: [ProcessIdentity]

    /// Starts one off the cooperative pool (the compositor may take seconds to answer, and a test
    /// that blocks a pool thread meanwhile starves every other test of the process).
    /// `mode` is one size, or several separated by commas for side-by-side monitors (GNOME).
    public static func start(_ kind: Kind = .gnome, mode: String = "800x1280") async throws -> HeadlessDesktop {
        try await Blocking.run { () throws -> HeadlessDesktop in try HeadlessDesktop(kind, mode: mode) }
    }

    /// Starts one on the calling thread (see ``start(_:mode:)``).
    public init(_ kind: Kind = .gnome, mode: String = "800x1280") throws {
        directory = NSTemporaryDirectory() + "upright-\(kind.rawValue)-\(UUID().uuidString.prefix(8))"
        let out = try HeadlessSway.run(
            ["\(HeadlessSway.packageRoot)/scripts/headless-desktop.sh", kind.rawValue, directory, mode])
        var values: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard let bus = values["BUS_PID"].flatMap(Int32.init),
            let compositor = values["COMPOSITOR_PID"].flatMap(Int32.init)
        else { throw HarnessError("headless-desktop.sh printed no processes: \(out)") }
        pids = [compositor, bus]
        processes = pids.map(ProcessIdentity.init)
        environment = values.filter { !$0.key.hasSuffix("_PID") }.merging(
            ["XDG_CONFIG_HOME": directory + "/.config", "GSETTINGS_BACKEND": "dconf"]) { $1 }
    }

    /// The test process's environment for a client of this desktop alone: no other display
    /// (`SWAYSOCK`, `DISPLAY`) and no desktop named, unless `desktop` names one.
    public func clientEnvironment(desktop: String? = nil) -> [String: String] {
        var e = ProcessInfo.processInfo.environment
        for name in ["SWAYSOCK", "DISPLAY", "XDG_CURRENT_DESKTOP"] { e[name] = nil }
        e.merge(environment) { $1 }
        e["XDG_CURRENT_DESKTOP"] = desktop
        return e
    }

    /// Stops mutter and the bus, and removes the directory.
    public func stop() {
        for p in processes { p.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The logical monitor of `connector` as mutter reports it (`GetCurrentState`, read with
    /// gdbus): its position and transform (0 normal, 1–3 counter-clockwise quarter turns).
    public func logicalMonitor(of connector: String = "Meta-0") throws -> (x: Int, y: Int, transform: Int) {
        let state = try HeadlessSway.run(
            [
                "gdbus", "call", "--session", "--dest", "org.gnome.Mutter.DisplayConfig", "--object-path",
                "/org/gnome/Mutter/DisplayConfig", "--method", "org.gnome.Mutter.DisplayConfig.GetCurrentState",
            ], environment: environment)
        // [(x, y, scale, uint32 TRANSFORM, primary, [('Meta-0', …)], …), (x, y, scale, TRANSFORM, …)]
        let pattern = #"\((-?\d+), (-?\d+), [\d.]+, (?:uint32 )?(\d), (?:true|false), \[\('"# + connector + "'"
        let regex = try NSRegularExpression(pattern: pattern)
        guard let m = regex.firstMatch(in: state, range: NSRange(state.startIndex..., in: state)) else {
            throw HarnessError("mutter lists no logical monitor for \(connector): \(state)")
        }
        func group(_ i: Int) -> Int { Int(state[Range(m.range(at: i), in: state)!]) ?? -1 }
        return (group(1), group(2), group(3))
    }

    /// The transform of `connector`'s logical monitor.
    public func transform(of connector: String = "Meta-0") throws -> Int { try logicalMonitor(of: connector).transform }

    /// mutter's `PowerSaveMode` (0 on, 3 off), read with gdbus.
    public func powerSaveMode() throws -> Int {
        let reply = try HeadlessSway.run(
            [
                "gdbus", "call", "--session", "--dest", "org.gnome.Mutter.DisplayConfig", "--object-path",
                "/org/gnome/Mutter/DisplayConfig", "--method", "org.freedesktop.DBus.Properties.Get",
                "org.gnome.Mutter.DisplayConfig", "PowerSaveMode",
            ], environment: environment)
        // (<3>,)
        guard let n = Int(reply.filter(\.isNumber)) else { throw HarnessError("PowerSaveMode: \(reply)") }
        return n
    }

    /// `gsettings ARGS` in this session; its standard output, trimmed.
    public func gsettings(_ arguments: [String]) throws -> String {
        try HeadlessSway.run(["gsettings"] + arguments, environment: environment)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
