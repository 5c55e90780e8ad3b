import Foundation

/// The Raspberry Pi firmware's `get_throttled` word: under-voltage, a capped clock, throttling
/// and the soft temperature limit, now (bits 0–3) and since boot (bits 16–19).
public struct Throttling: Sendable, Hashable {
    public var raw: UInt32

    public init(raw: UInt32) { self.raw = raw }

    /// `0x50005` as the firmware writes it (hexadecimal, with or without `0x`).
    public init?(text: String) {
        var t = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if t.hasPrefix("0x") { t.removeFirst(2) }
        guard !t.isEmpty, t.count <= 8, let v = UInt32(t, radix: 16) else { return nil }
        raw = v
    }

    static let names = ["under-voltage", "the ARM clock capped", "throttled", "the soft temperature limit"]

    /// What holds now, and what happened since boot and holds no more, in words.
    public var problems: [String] {
        var out: [String] = []
        for (bit, name) in Self.names.enumerated() {
            if raw & (1 << bit) != 0 {
                out.append("\(name) now")
            } else if raw & (1 << (bit + 16)) != 0 {
                out.append("\(name) since boot")
            }
        }
        return out
    }

    /// Whether power or heat holds the board back now.
    public var now: Bool { raw & 0xF != 0 }
}

/// A thermal zone's temperature, and the lowest trip point the kernel acts at.
public struct ThermalZone: Sendable, Hashable {
    public var name: String
    public var celsius: Double
    public var limit: Double?

    /// Within 5 °C of its lowest trip point, or 85 °C where it has none.
    public var isHot: Bool { celsius >= (limit.map { $0 - 5 } ?? 85) }
}

/// The hardware's health as sysfs shows it, under `root` (`/` on a device; a fake tree in tests).
public enum HardwareReadings {
    /// Why a reading could not be taken.
    public struct Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// `get_throttled` where the firmware offers it (`nil` elsewhere), or why it cannot be read.
    public static func throttling(root: String = "/") -> Result<Throttling, Unreadable>? {
        let path = root + "/sys/devices/platform/soc/soc:firmware/get_throttled"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(Unreadable(description: "\(path): cannot be read"))
        }
        let text = String(decoding: data.prefix(64), as: UTF8.self)
        guard let t = Throttling(text: text) else {
            return .failure(Unreadable(description: "\(path): '\(text)' is not a hexadecimal word"))
        }
        return .success(t)
    }

    /// Each `thermal_zone*`'s temperature (millidegrees in `temp`) and lowest trip point.
    public static func thermalZones(root: String = "/") -> [ThermalZone] {
        let dir = root + "/sys/class/thermal"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasPrefix("thermal_zone") }.sorted().compactMap { zone in
            let base = dir + "/" + zone
            guard let milli = number(base + "/temp") else { return nil }
            let trips = (0..<16).compactMap { number(base + "/trip_point_\($0)_temp") }.filter { $0 > 0 }
            let type = text(base + "/type") ?? zone
            return ThermalZone(name: type, celsius: milli / 1000, limit: trips.min().map { $0 / 1000 })
        }
    }

    static func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map {
            String(decoding: $0.prefix(256), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func number(_ path: String) -> Double? { text(path).flatMap(Double.init) }
}

extension HardwareReadings {
    /// The readings under `root`, for the status: the throttling word, each zone, and the
    /// problems in words (what holds now first); `faults` are those that hold now.
    public static func read(root: String = "/") -> (
        throttled: String?, zones: [ThermalZone], problems: [String], faults: [String]
    ) {
        var problems: [String] = [], faults: [String] = [], word: String?
        switch throttling(root: root) {
        case .success(let t)?:
            word = "0x" + String(t.raw, radix: 16)
            problems += t.problems
            faults += t.problems.filter { $0.hasSuffix(" now") }
        case .failure(let why)?: problems.append(why.description)
        case nil: break
        }
        let zones = thermalZones(root: root)
        for z in zones where z.isHot {
            let limit = z.limit.map { String(format: " (its limit %.0f °C)", $0) } ?? ""
            let hot = String(format: "%@ at %.0f °C", z.name, z.celsius) + limit
            problems.append(hot)
            faults.append(hot)
        }
        return (word, zones, problems, faults)
    }
}
