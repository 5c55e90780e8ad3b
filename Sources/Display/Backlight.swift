import Blocking
import Files
import Foundation
import Systemd

/// The screen's brightness, as a percentage: the kernel's backlight (`/sys/class/backlight/NAME`,
/// `brightness` of `max_brightness`: a panel's, a Raspberry Pi touch display's) or, without one,
/// a monitor's through DDC/CI (`ddcutil`, VCP feature 0x10). A backlight is set through logind
/// (the session's `SetBrightness`: a kiosk session may, with no write access to sysfs), else by
/// writing `brightness` where the process may.
public struct Backlight: Sendable {
    public enum Kind: Sendable, Hashable {
        /// A kernel backlight: its name, and its folder in sysfs.
        case sysfs(name: String, folder: String)
        /// A monitor that answers DDC/CI, through `ddcutil`.
        case ddc
    }

    public let kind: Kind
    /// The system bus, for logind (`nil`: write sysfs only).
    let systemBus: String?

    /// The first kernel backlight under `root` (by name), else DDC/CI where `ddcutil` is installed
    /// and `ddc` allows; `nil` when the screen has neither.
    public static func find(root: String = "/", ddc: Bool = true, systemBus: String? = Backlight.systemBus())
        -> Backlight?
    {
        let base = (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/sys/class/backlight"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).sorted()
        if let name = names.first(where: { FileManager.default.fileExists(atPath: "\(base)/\($0)/max_brightness") }) {
            return Backlight(kind: .sysfs(name: name, folder: "\(base)/\(name)"), systemBus: systemBus)
        }
        return ddc && HelperProgram(name: "ddcutil").path != nil ? Backlight(kind: .ddc, systemBus: nil) : nil
    }

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket where it is.
    public static func systemBus() -> String? {
        if let a = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"], !a.isEmpty { return a }
        return access("/run/dbus/system_bus_socket", F_OK) == 0 ? "unix:path=/run/dbus/system_bus_socket" : nil
    }

    /// Where the brightness is set, in words (`backlight rpi_backlight`, `DDC/CI (ddcutil)`).
    public var name: String {
        switch kind {
        case .sysfs(let name, _): "backlight \(name)"
        case .ddc: "DDC/CI (ddcutil)"
        }
    }

    /// The brightness now, 0–100; `nil` when it cannot be read.
    public func percent() async -> Int? {
        switch kind {
        case .sysfs(_, let folder):
            guard let now = Self.number(folder + "/brightness"), let max = Self.number(folder + "/max_brightness"),
                max > 0
            else { return nil }
            return Int((Double(now) * 100 / Double(max)).rounded())
        case .ddc:
            // `VCP 10 C 50 100`: the current value, then the maximum.
            guard let text = try? await HelperProgram(name: "ddcutil").run(["getvcp", "10", "--brief"]) else {
                return nil
            }
            let words = text.split(separator: " ")
            guard words.count >= 5, let now = Double(words[3]), let max = Double(words[4]), max > 0 else { return nil }
            return Int((now * 100 / max).rounded())
        }
    }

    /// Sets the brightness to `percent` (0–100); why it could not be, or `nil` when it was.
    public func set(percent: Int) async -> String? {
        let p = min(100, max(0, percent))
        switch kind {
        case .sysfs(let name, let folder):
            guard let max = Self.number(folder + "/max_brightness"), max > 0 else {
                return "\(folder)/max_brightness cannot be read"
            }
            let value = UInt32((Double(max) * Double(p) / 100).rounded())
            var why: [String] = []
            if let bus = systemBus {
                let asked = await Blocking.run { () -> String? in
                    do throws(DBusError) {
                        let logind = try DBusConnection(address: bus)
                        _ = try logind.call(
                            "org.freedesktop.login1", "/org/freedesktop/login1/session/auto",
                            "org.freedesktop.login1.Session", "SetBrightness",
                            [.string("backlight"), .string(name), .uint32(value)])
                        return nil
                    } catch {
                        return "logind: \(error)"
                    }
                }
                guard let asked else { return nil }
                why.append(asked)
            }
            if let written = Self.write(String(value), to: folder + "/brightness") {
                why.append(written)
                return "the \(self.name) cannot be set: " + why.joined(separator: "; ")
            }
            return nil
        case .ddc:
            do throws(DisplayError) {
                _ = try await HelperProgram(name: "ddcutil").run(["setvcp", "10", String(p)])
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    static func number(_ path: String) -> Int? {
        readText(path, limit: 64).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Writes `text` to the sysfs file `path`; why it could not, or `nil`.
    static func write(_ text: String, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)  // as `echo N > brightness` opens it
        guard fd >= 0 else { return "\(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        return n == bytes.count ? nil : "\(path): \(String(cString: strerror(errno)))"
    }
}
