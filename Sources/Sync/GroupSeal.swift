import Crypto
public import Wire

/// The group key's seal on a message: `S1 TIME CODE BODY`, where `CODE` is HMAC-SHA256 under the
/// group's key over the version, the full topic, the time the sender sealed it (its system clock,
/// Unix seconds) and the body. A message whose code does not check, or that was sealed for
/// another topic (another group, kind, sender or addressee), opens to nothing.
public struct GroupSeal: Sendable {
    /// The key's bytes (Crypto's `SymmetricKey` is made for each use: it is not `Sendable`).
    private let bytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: bytes) }
    /// The shortest key taken (bytes): HMAC-SHA256's own strength.
    public static let minimumKey = 32
    static let version = "S1"

    /// `nil` for a key shorter than ``minimumKey`` bytes.
    public init?(key: [UInt8]) {
        guard key.count >= Self.minimumKey else { return nil }
        bytes = key
    }

    /// `body` for `topic`, sealed at `time`.
    public func seal(_ body: String, topic: String, at time: Double) -> String {
        let stamp = Self.stamp(time)
        let code = HMAC<SHA256>.authenticationCode(for: Self.signed(topic: topic, stamp: stamp, body: body), using: key)
        return "\(Self.version) \(stamp) \(Self.hex(Array(code)))" + (body.isEmpty ? "" : " " + body)
    }

    /// A sealed payload's parts once its code checks: the body, the time it was sealed and the
    /// code (which a replay repeats).
    public struct Opened: Sendable, Hashable {
        public var body: Substring
        public var time: Double
        public var code: String
    }

    /// The body of `payload` received on `topic`, or why it has none.
    public func open(_ payload: Substring, topic: String) -> Result<Opened, GroupRejection> {
        let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == Self.version, parts[1].utf8.count <= 32, let time = Double(parts[1]),
            time.isFinite, parts[2].utf8.count == 64, let code = Self.bytes(hex: parts[2])
        else { return .failure(.unsigned) }
        let body = parts.count == 4 ? parts[3] : ""
        let signed = Self.signed(topic: topic, stamp: String(parts[1]), body: String(body))
        guard HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: signed, using: key) else {
            return .failure(.unsigned)
        }
        return .success(Opened(body: body, time: time, code: String(parts[2])))
    }

    /// Whether `payload` carries a seal (whoever's): a node without the key says so.
    public static func looksSealed(_ payload: Substring) -> Bool { payload.hasPrefix(version + " ") }

    /// A time to the microsecond, as it is written (and signed).
    static func stamp(_ time: Double) -> String { "\((time * 1_000_000).rounded() / 1_000_000)" }

    static func signed(topic: String, stamp: String, body: String) -> [UInt8] {
        Array("upright-sync \(version)\n\(topic)\n\(stamp)\n\(body)".utf8)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for c in hex.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }
}
