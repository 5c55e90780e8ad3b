import Foundation
import Udev

/// A touchscreen as udev describes it (`ID_INPUT_TOUCHSCREEN=1`).
public struct Touchscreen: Sendable, Hashable {
    /// The device's own name (`Goodix Capacitive TouchScreen`).
    public var name: String
    /// Its event node (`/dev/input/event5`).
    public var node: String?
    /// Its USB (or other bus) vendor and product numbers, when udev knows them.
    public var vendor: UInt32?
    public var product: UInt32?
    /// The bus it is on (`usb`, `i2c`, …; `ID_BUS`), `nil` when udev does not say.
    public var bus: String?
    /// The output a udev rule names for it (`WL_OUTPUT`, as wlroots and mutter read it).
    public var wlOutput: String?

    public init(
        name: String, node: String? = nil, vendor: UInt32? = nil, product: UInt32? = nil, bus: String? = nil,
        wlOutput: String? = nil
    ) {
        (self.name, self.node, self.vendor, self.product, self.bus, self.wlOutput) =
            (name, node, vendor, product, bus, wlOutput)
    }

    /// sway's name for it (`vendor:product:name`, the numbers in decimal, spaces as `_`).
    public var swayIdentifier: String {
        "\(vendor ?? 0):\(product ?? 0):" + name.replacingOccurrences(of: " ", with: "_")
    }

    /// A touchscreen of its own monitor, plugged in beside it (USB, Bluetooth), rather than a
    /// built-in panel's (I²C, SPI, a platform device).
    public var isExternal: Bool { ["usb", "bluetooth"].contains(bus ?? "") }

    /// The touchscreens udev knows now: each input event device with `ID_INPUT_TOUCHSCREEN=1`.
    public static func found() -> [Touchscreen] {
        UdevDevice.all(subsystem: "input", property: "ID_INPUT_TOUCHSCREEN", value: "1").compactMap { d in
            guard let node = d.devnode, node.hasPrefix("/dev/input/event") else { return nil }
            let name = d.attribute("device/name") ?? d.property("NAME").map { $0.trimmingQuotes } ?? node
            // The input device's own numbers (any bus), as libinput and sway read them.
            func number(_ name: String) -> UInt32? {
                (d.attribute("device/id/" + name) ?? "").split(separator: "\n").first.flatMap { UInt32($0, radix: 16) }
            }
            return Touchscreen(
                name: name.split(separator: "\n").first.map(String.init) ?? name, node: node,
                vendor: number("vendor"), product: number("product"), bus: d.property("ID_BUS"),
                wlOutput: d.property("WL_OUTPUT"))
        }
    }
}

extension String {
    /// The text without the quotes udev keeps around `NAME`.
    fileprivate var trimmingQuotes: String {
        hasPrefix("\"") && hasSuffix("\"") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

/// Which output each touchscreen belongs to, so that a turn maps each to its own screen and a
/// touch monitor beside Upright's screen is left to its own.
public enum TouchAssignment {
    /// A touchscreen's output, and why; `output` is `nil` when it cannot be told.
    public struct Decision: Sendable, Hashable {
        public var touchscreen: Touchscreen
        public var output: String?
        public var why: String
    }

    /// Whether `name` is a built-in panel's connector (eDP, DSI, LVDS).
    public static func isBuiltIn(_ connector: String) -> Bool {
        ["eDP", "DSI", "LVDS"].contains { connector.hasPrefix($0) }
    }

    /// Each touchscreen's output among `outputs`: the one its `WL_OUTPUT` names (a connector or
    /// a monitor's identity); else, built in, the built-in panel's connector (or the only output);
    /// else, a touch monitor's own, when one monitor alone is not built in; else none.
    public static func decide(_ touchscreens: [Touchscreen], outputs: [OutputState]) -> [Decision] {
        let builtIn = outputs.filter { isBuiltIn($0.name) }
        let external = outputs.filter { !isBuiltIn($0.name) }
        return touchscreens.map { t in
            if let wanted = t.wlOutput {
                if let o = outputs.first(where: { $0.isNamed(wanted) }) {
                    return Decision(touchscreen: t, output: o.name, why: "its udev WL_OUTPUT names it")
                }
                return Decision(touchscreen: t, output: nil, why: "its udev WL_OUTPUT (\(wanted)) names no output here")
            }
            if outputs.count == 1 {
                return Decision(touchscreen: t, output: outputs[0].name, why: "the only output")
            }
            if !t.isExternal, builtIn.count == 1 {
                return Decision(
                    touchscreen: t, output: builtIn[0].name, why: "built in: the built-in panel's connector")
            }
            if t.isExternal, external.count == 1 {
                return Decision(
                    touchscreen: t, output: external[0].name, why: "a touch monitor: the only external monitor")
            }
            return Decision(
                touchscreen: t, output: nil,
                why: "cannot tell its monitor among \(outputs.count) outputs: name it with a udev rule (WL_OUTPUT)")
        }
    }
}
