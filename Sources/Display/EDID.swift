import Files
import Foundation

/// A monitor's identity from its EDID (the 128-byte base block the kernel shows in
/// `/sys/class/drm/CARD-CONNECTOR/edid`): the maker, the model and the serial, named as wlroots
/// and kanshi name them (`"Dell Inc. D3218HN X9R5K8864M1E"`), so that `[display] output` can name
/// a monitor wherever it is plugged in. The bytes come from the monitor: any length and any
/// content is read without trapping; what is not an EDID is `nil`.
public struct MonitorIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The maker's PNP ID (`DEL`), and its name when the PNP table knows it (`Dell Inc.`).
    public var vendorID: String
    public var make: String
    /// The product's name (the 0xFC descriptor), else its product code (`0x05DF`).
    public var model: String
    /// The serial's text (the 0xFF descriptor), else its number (`0x01312D50`); `nil` when neither.
    public var serial: String?

    /// "Make Model Serial", as kanshi's `output` criteria and sway's outputs write it (`Unknown`
    /// for a serial the monitor does not give).
    public var description: String { Self.text(make: make, model: model, serial: serial) }

    /// A monitor's identity in words, as kanshi and sway write it: `Unknown` for what is not known.
    public static func text(make: String, model: String?, serial: String?) -> String {
        "\(make) \(model ?? "Unknown") \(serial ?? "Unknown")"
    }

    /// Reads `bytes` (an EDID: its base block is enough); `pnpName` names a PNP ID (`DEL` →
    /// `Dell Inc.`), `nil` when unknown.
    public init?(edid bytes: [UInt8], pnpName: (String) -> String? = { _ in nil }) {
        let header: [UInt8] = [0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]
        guard bytes.count >= 128, Array(bytes[0..<8]) == header else { return nil }
        let packed = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
        let letters = [(packed >> 10) & 0x1f, (packed >> 5) & 0x1f, packed & 0x1f]
        guard letters.allSatisfy({ (1...26).contains($0) }) else { return nil }
        vendorID = String(letters.map { Character(Unicode.Scalar(UInt8(64 + $0))) })
        make = pnpName(vendorID) ?? vendorID
        let product = UInt16(bytes[10]) | UInt16(bytes[11]) << 8
        let number = UInt32(bytes[12]) | UInt32(bytes[13]) << 8 | UInt32(bytes[14]) << 16 | UInt32(bytes[15]) << 24
        var name: String?
        var serialText: String?
        for d in 0..<4 {
            let at = 54 + 18 * d
            // A display descriptor (not a timing): two zero bytes, a zero, its tag, a zero.
            guard bytes[at] == 0, bytes[at + 1] == 0, bytes[at + 2] == 0 else { continue }
            let text = Self.text(bytes[(at + 5)..<(at + 18)])
            switch bytes[at + 3] {
            case 0xfc: name = name ?? text
            case 0xff: serialText = serialText ?? text
            default: break
            }
        }
        model = name.flatMap { $0.isEmpty ? nil : $0 } ?? "0x" + Self.hex(UInt32(product), digits: 4)
        serial =
            serialText.flatMap { $0.isEmpty ? nil : $0 } ?? (number == 0 ? nil : "0x" + Self.hex(number, digits: 8))
    }

    /// A descriptor's text: up to its newline, printable ASCII only, spaces trimmed.
    static func text(_ field: ArraySlice<UInt8>) -> String {
        let line = field.prefix { $0 != 0x0a && $0 != 0 }
        let printable = line.map { (0x20...0x7e).contains($0) ? Character(Unicode.Scalar($0)) : "?" }
        return String(printable).trimmingCharacters(in: .whitespaces)
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Whether `wanted` (`[display] output`) names this monitor: its whole identity, as kanshi
    /// writes it, with runs of spaces as one.
    public func isNamed(_ wanted: String) -> Bool {
        Self.normalised(wanted) == Self.normalised(description)
    }

    static func normalised(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

extension MonitorIdentity {
    /// The monitors connected now, by connector (`HDMI-A-1`), from the kernel's DRM connectors
    /// under `root`: each `CARD-CONNECTOR/edid` that holds one (a connector with nothing plugged
    /// in shows an empty file). At most 16 KB of each is read.
    public static func connected(root: String = "/sys/class/drm", pnp: String = PNPNames.path)
        -> [(connector: String, identity: MonitorIdentity)]
    {
        let names = PNPNames.parse(readText(pnp, limit: 1 << 20) ?? "")
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        return entries.compactMap { entry in
            guard entry.hasPrefix("card"), let dash = entry.firstIndex(of: "-") else { return nil }
            guard let bytes = readPrefix(root + "/" + entry + "/edid", limit: 16 << 10),
                let identity = MonitorIdentity(edid: bytes, pnpName: { names[$0] })
            else { return nil }
            return (String(entry[entry.index(after: dash)...]), identity)
        }
    }
}

/// The PNP IDs' names (`/usr/share/hwdata/pnp.ids`, Debian's `hwdata`: `DEL\tDell Inc.`), read
/// once; an ID it does not know keeps its three letters.
public enum PNPNames {
    public static let path = "/usr/share/hwdata/pnp.ids"

    /// The names in `text`, a line per ID: the ID, a tab, the name.
    public static func parse(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 3 else { continue }
            out[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return out
    }
}
